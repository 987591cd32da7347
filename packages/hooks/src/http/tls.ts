// -secure, -tls-min-version, -cipher-suites and -list-cipher-suites with webhook's names (Go's
// crypto/tls names) mapped onto Node's OpenSSL ones.

import type { SecureVersion } from "node:tls";

interface CipherSuite {
  name: string;
  openssl: string;
  /** TLS 1.3 suites; the others work up to TLS 1.2 only. */
  tls13: boolean;
}

/** Go's tls.CipherSuites(), in Go's order. */
const CIPHER_SUITES: CipherSuite[] = [
  { name: "TLS_RSA_WITH_AES_128_CBC_SHA", openssl: "AES128-SHA", tls13: false },
  { name: "TLS_RSA_WITH_AES_256_CBC_SHA", openssl: "AES256-SHA", tls13: false },
  { name: "TLS_RSA_WITH_AES_128_GCM_SHA256", openssl: "AES128-GCM-SHA256", tls13: false },
  { name: "TLS_RSA_WITH_AES_256_GCM_SHA384", openssl: "AES256-GCM-SHA384", tls13: false },
  { name: "TLS_AES_128_GCM_SHA256", openssl: "TLS_AES_128_GCM_SHA256", tls13: true },
  { name: "TLS_AES_256_GCM_SHA384", openssl: "TLS_AES_256_GCM_SHA384", tls13: true },
  {
    name: "TLS_CHACHA20_POLY1305_SHA256",
    openssl: "TLS_CHACHA20_POLY1305_SHA256",
    tls13: true,
  },
  {
    name: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
    openssl: "ECDHE-ECDSA-AES128-SHA",
    tls13: false,
  },
  {
    name: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    openssl: "ECDHE-ECDSA-AES256-SHA",
    tls13: false,
  },
  { name: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", openssl: "ECDHE-RSA-AES128-SHA", tls13: false },
  { name: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", openssl: "ECDHE-RSA-AES256-SHA", tls13: false },
  {
    name: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    openssl: "ECDHE-ECDSA-AES128-GCM-SHA256",
    tls13: false,
  },
  {
    name: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    openssl: "ECDHE-ECDSA-AES256-GCM-SHA384",
    tls13: false,
  },
  {
    name: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    openssl: "ECDHE-RSA-AES128-GCM-SHA256",
    tls13: false,
  },
  {
    name: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    openssl: "ECDHE-RSA-AES256-GCM-SHA384",
    tls13: false,
  },
  {
    name: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
    openssl: "ECDHE-RSA-CHACHA20-POLY1305",
    tls13: false,
  },
  {
    name: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    openssl: "ECDHE-ECDSA-CHACHA20-POLY1305",
    tls13: false,
  },
];

const MIN_VERSIONS: Record<string, SecureVersion> = {
  "1.0": "TLSv1",
  "1.1": "TLSv1.1",
  "1.2": "TLSv1.2",
  "": "TLSv1.2",
  "1.3": "TLSv1.3",
};

/** -tls-min-version; throws with webhook's fatal message for anything else. */
export function tlsMinVersion(flag: string): SecureVersion {
  const version = Object.hasOwn(MIN_VERSIONS, flag) ? MIN_VERSIONS[flag] : undefined;
  if (version === undefined) throw new Error(`error: unknown minimum TLS version: ${flag}`);
  return version;
}

/** -list-cipher-suites: Go lists a suite when any version it supports is at least the minimum. */
export function listCipherSuites(flag: string): string {
  tlsMinVersion(flag);
  const atLeast13 = flag === "1.3";
  return CIPHER_SUITES.filter((suite) => suite.tls13 || !atLeast13)
    .map((suite) => `${suite.name}\n`)
    .join("");
}

/** -cipher-suites as OpenSSL's cipher string (all suites when empty); unknown names are fatal. */
export function opensslCiphers(flag: string): string {
  if (flag === "") return CIPHER_SUITES.map((suite) => suite.openssl).join(":");
  return flag
    .split(",")
    .map((name) => {
      const suite = CIPHER_SUITES.find((candidate) => candidate.name === name);
      if (suite === undefined) throw new Error(`error: unknown TLS cipher suite: ${name}`);
      return suite.openssl;
    })
    .join(":");
}

/** What Go's TLS server answers to a plain HTTP request, before closing the connection. */
export const HTTP_TO_HTTPS_RESPONSE =
  "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";

/** Go's tlsRecordHeaderLooksLikeHTTP: the first five bytes of a plain HTTP request. */
export function looksLikeHttp(firstBytes: Buffer): boolean {
  const head = firstBytes.toString("latin1", 0, 5);
  return ["GET /", "HEAD ", "POST ", "PUT /", "OPTIO"].includes(head);
}
