import { createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { SUPPORTED_KEY_TYPES, unsupportedTypeReason } from "./key-blob.ts";
import { MalformedKey, wirePositiveMpint, wireString } from "./wire.ts";

// The textual forms Gitea accepts for a public key: an OpenSSH authorized_keys line (the type may
// be left out), an RFC 4716 "SSH2" block (PuTTYgen, `ssh-keygen -e`) and a PEM public key.

export interface KeyText {
  /** The type the text names, if it names one; the blob's own type must agree. */
  declaredType?: string;
  blob: Buffer;
  comment: string;
}

const RFC4716_BEGIN = "---- BEGIN SSH2 PUBLIC KEY ----";
const RFC4716_END = "---- END SSH2 PUBLIC KEY ----";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** The longest text read: OpenSSH's own limit for a public key file's line (16384-bit RSA fits). */
export const MAX_KEY_TEXT_LENGTH = 16 * 1024;

export function readKeyText(text: string): KeyText {
  if (text.length > MAX_KEY_TEXT_LENGTH) {
    throw new MalformedKey(`the key is longer than ${MAX_KEY_TEXT_LENGTH} characters`);
  }
  const content = text.trim();
  if (content === "") throw new MalformedKey("the key is empty");
  if (/PRIVATE KEY|PuTTY-User-Key-File/.test(content)) {
    throw new MalformedKey("this is a private key; paste the public key (the .pub file) instead");
  }
  if (content.startsWith(RFC4716_BEGIN)) return readRfc4716(content);
  if (content.startsWith("-----BEGIN")) return readPem(content);
  // U+2028 and U+2029 end a line for JavaScript as \n does.
  if (/[\r\n\u2028\u2029]/.test(content)) {
    throw new MalformedKey("only a single line with a single key please");
  }
  return readOpenSshLine(content);
}

/** Splits `text` at its first run of whitespace, scanning each character once. */
function splitField(text: string): [field: string, rest: string | undefined] {
  const end = text.search(/\s/);
  if (end === -1) return [text, undefined];
  const next = text.slice(end).search(/\S/);
  return [text.slice(0, end), next === -1 ? undefined : text.slice(end + next)];
}

function readOpenSshLine(line: string): KeyText {
  const [first, afterFirst] = splitField(line);
  const [second, rest = ""] = afterFirst === undefined ? [] : splitField(afterFirst);
  if (!SUPPORTED_KEY_TYPES.has(first)) return readUntypedLine(line, first, second);
  if (second === undefined) throw new MalformedKey(`the ${first} key has no key data`);
  return { declaredType: first, blob: decodeBase64(second), comment: checkedComment(rest) };
}

function readUntypedLine(line: string, first: string, second: string | undefined): KeyText {
  if (second === undefined && BASE64.test(first)) return { blob: decodeBase64(first), comment: "" };
  if ([...SUPPORTED_KEY_TYPES].some((type) => line.includes(` ${type} `))) {
    throw new MalformedKey(
      "authorized_keys options (such as command=...) are not accepted; paste only the key: type, base64 data and an optional comment",
    );
  }
  throw new MalformedKey(unsupportedTypeReason(first));
}

function readRfc4716(content: string): KeyText {
  const lines = content.split(/\r\n|\r|\n/);
  if (lines.at(-1)?.trim() !== RFC4716_END) throw new MalformedKey("the SSH2 public key has no END line");
  let comment = "";
  let data = "";
  let header = "";
  for (const line of lines.slice(1, -1)) {
    if (header !== "" || line.includes(":")) {
      header += line.endsWith("\\") ? line.slice(0, -1) : line;
      if (line.endsWith("\\")) continue;
      const colon = header.indexOf(":");
      if (colon > 0 && header.slice(0, colon).toLowerCase() === "comment") {
        comment = unquoted(header.slice(colon + 1).trim());
      }
      header = "";
    } else {
      data += line.trim();
    }
  }
  return { blob: decodeBase64(data), comment: checkedComment(comment) };
}

function unquoted(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

function readPem(content: string): KeyText {
  const notPublic = new MalformedKey("the PEM block is not a public key");
  // createPublicKey would also derive a key from a private key or read one out of a certificate.
  if (!/^-----BEGIN (RSA )?PUBLIC KEY-----/.test(content)) throw notPublic;
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: content, format: "pem" });
  } catch {
    throw notPublic;
  }
  return { blob: blobOfKeyObject(publicKey), comment: "" };
}

function blobOfKeyObject(publicKey: KeyObject): Buffer {
  let jwk: JsonWebKey;
  try {
    jwk = publicKey.export({ format: "jwk" });
  } catch {
    throw new MalformedKey(`unsupported PEM key type: ${publicKey.asymmetricKeyType}`);
  }
  const bytes = (value: string | undefined) => Buffer.from(value ?? "", "base64url");
  if (jwk.kty === "RSA") {
    return Buffer.concat([
      wireString("ssh-rsa"),
      wirePositiveMpint(bytes(jwk.e)),
      wirePositiveMpint(bytes(jwk.n)),
    ]);
  }
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") {
    return Buffer.concat([wireString("ssh-ed25519"), wireString(bytes(jwk.x))]);
  }
  const curve = { "P-256": "nistp256", "P-384": "nistp384", "P-521": "nistp521" }[jwk.crv ?? ""];
  if (jwk.kty === "EC" && curve !== undefined) {
    const point = Buffer.concat([Buffer.from([4]), bytes(jwk.x), bytes(jwk.y)]);
    return Buffer.concat([wireString(`ecdsa-sha2-${curve}`), wireString(curve), wireString(point)]);
  }
  throw new MalformedKey(`unsupported PEM key type: ${publicKey.asymmetricKeyType}`);
}

function decodeBase64(data: string): Buffer {
  const blob = Buffer.from(data, "base64");
  // Buffer.from skips characters that are not base64, so only an exact round trip is trusted.
  if (!BASE64.test(data) || data.length % 4 !== 0 || blob.toString("base64") !== data) {
    throw new MalformedKey("the key data is not valid base64");
  }
  return blob;
}

function checkedComment(comment: string): string {
  if (/(?!\t)\p{Cc}/u.test(comment)) throw new MalformedKey("the comment contains control characters");
  return comment.trim();
}
