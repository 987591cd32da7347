import { createHash, createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { MalformedKey, WireReader } from "./wire.ts";

// What a public key blob (the base64 part of an authorized_keys line, or what a client offers
// during authentication) holds, decoded and checked the way OpenSSH would before trusting it.

/** Gitea's names for key kinds, as used by its `[ssh.minimum_key_sizes]` settings. */
export type KeyFamily = "rsa" | "ecdsa" | "ed25519" | "ecdsa-sk" | "ed25519-sk";

export interface DecodedKey {
  type: string;
  family: KeyFamily;
  bits: number;
  publicKey: KeyObject;
  /** ECDSA signatures hash with the curve's own digest. */
  curveHash?: string;
}

interface Curve {
  name: string;
  jwk: string;
  coordinateBytes: number;
  bits: number;
  hash: string;
}

const CURVES: Readonly<Record<string, Curve>> = {
  "ecdsa-sha2-nistp256": { name: "nistp256", jwk: "P-256", coordinateBytes: 32, bits: 256, hash: "sha256" },
  "ecdsa-sha2-nistp384": { name: "nistp384", jwk: "P-384", coordinateBytes: 48, bits: 384, hash: "sha384" },
  "ecdsa-sha2-nistp521": { name: "nistp521", jwk: "P-521", coordinateBytes: 66, bits: 521, hash: "sha512" },
  "sk-ecdsa-sha2-nistp256@openssh.com": {
    name: "nistp256",
    jwk: "P-256",
    coordinateBytes: 32,
    bits: 256,
    hash: "sha256",
  },
};

export const SUPPORTED_KEY_TYPES: ReadonlySet<string> = new Set([
  "ssh-ed25519",
  "ssh-rsa",
  ...Object.keys(CURVES),
  "sk-ssh-ed25519@openssh.com",
]);

// OpenSSH's own bounds for an RSA modulus; the forge's minimum is a separate, stricter policy.
const RSA_MIN_BITS = 1024;
const RSA_MAX_BITS = 16384;

/** Why a key type the forge does not take is refused, in Gitea's words where it has them. */
export function unsupportedTypeReason(type: string): string {
  if (type === "ssh-dss") return "key type is not allowed: dsa";
  if (type.includes("-cert-v0")) return "SSH certificates are not supported";
  return `unsupported key type: ${type.slice(0, 64)}`;
}

/** `SHA256:<base64 without padding>`, as `ssh-keygen -lf` prints it. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

/** Decodes a key blob; throws MalformedKey with a reason a user can act on. */
export function decodeKeyBlob(blob: Buffer): DecodedKey {
  const reader = new WireReader(blob);
  const type = reader.text();
  const key = decodeKeyBody(type, reader);
  reader.end();
  return key;
}

function decodeKeyBody(type: string, reader: WireReader): DecodedKey {
  switch (type) {
    case "ssh-rsa":
      return decodeRsa(reader);
    case "ssh-ed25519":
      return { type, family: "ed25519", bits: 256, publicKey: decodeEd25519(reader) };
    case "sk-ssh-ed25519@openssh.com": {
      const publicKey = decodeEd25519(reader);
      reader.string();
      return { type, family: "ed25519-sk", bits: 256, publicKey };
    }
    default: {
      const curve = CURVES[type];
      if (curve === undefined) throw new MalformedKey(unsupportedTypeReason(type));
      const publicKey = decodeEcdsa(reader, curve);
      const security = type.startsWith("sk-");
      if (security) reader.string();
      return {
        type,
        family: security ? "ecdsa-sk" : "ecdsa",
        bits: curve.bits,
        publicKey,
        curveHash: curve.hash,
      };
    }
  }
}

function decodeRsa(reader: WireReader): DecodedKey {
  const exponent = reader.positiveMpint();
  const modulus = reader.positiveMpint();
  if ((exponent[exponent.length - 1] & 1) === 0 || (exponent.length === 1 && exponent[0] < 3)) {
    throw new MalformedKey("the RSA public exponent is not valid");
  }
  if ((modulus[modulus.length - 1] & 1) === 0) throw new MalformedKey("the RSA modulus is not valid");
  const publicKey = importJwk({
    kty: "RSA",
    n: modulus.toString("base64url"),
    e: exponent.toString("base64url"),
  });
  const bits = publicKey.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < RSA_MIN_BITS || bits > RSA_MAX_BITS) {
    throw new MalformedKey(
      `an RSA key must have ${RSA_MIN_BITS} to ${RSA_MAX_BITS} bits, this one has ${bits}`,
    );
  }
  return { type: "ssh-rsa", family: "rsa", bits, publicKey };
}

function decodeEd25519(reader: WireReader): KeyObject {
  const key = reader.string();
  if (key.length !== 32) throw new MalformedKey("an Ed25519 key must be 32 bytes");
  return importJwk({ kty: "OKP", crv: "Ed25519", x: key.toString("base64url") });
}

function decodeEcdsa(reader: WireReader, curve: Curve): KeyObject {
  const name = reader.text();
  if (name !== curve.name) throw new MalformedKey(`the curve ${name} does not match the key type`);
  const point = reader.string();
  const size = curve.coordinateBytes;
  if (point.length !== 1 + 2 * size || point[0] !== 0x04) {
    throw new MalformedKey("the ECDSA point is not an uncompressed point of the key's curve");
  }
  return importJwk({
    kty: "EC",
    crv: curve.jwk,
    x: point.subarray(1, 1 + size).toString("base64url"),
    y: point.subarray(1 + size).toString("base64url"),
  });
}

// OpenSSL checks that an EC point lies on its curve here, which the wire format alone cannot.
function importJwk(jwk: JsonWebKey): KeyObject {
  try {
    return createPublicKey({ key: jwk, format: "jwk" });
  } catch {
    throw new MalformedKey("the key material is not a valid public key");
  }
}
