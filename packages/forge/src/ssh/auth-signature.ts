import { verify } from "node:crypto";
import type { DecodedKey } from "./key-blob.ts";

/**
 * Whether a client's publickey-auth signature over `data` is valid for `key`. ssh2 hands ECDSA
 * signatures over as DER and names the digest only for rsa-sha2-256/512, so a plain `ssh-rsa`
 * signature is SHA-1. Security keys sign a different message (application hash, flags, counter),
 * which is not implemented: such keys can be stored but cannot log in here.
 */
export function isValidAuthSignature(
  key: DecodedKey,
  data: Buffer,
  signature: Buffer,
  hashAlgo: string | undefined,
): boolean {
  const digest = digestFor(key, hashAlgo);
  if (digest === undefined) return false;
  try {
    return verify(digest, data, key.publicKey, signature);
  } catch {
    return false;
  }
}

function digestFor(key: DecodedKey, hashAlgo: string | undefined): string | null | undefined {
  switch (key.family) {
    case "rsa":
      return hashAlgo ?? "sha1";
    case "ecdsa":
      return key.curveHash;
    case "ed25519":
      return null;
    default:
      return undefined;
  }
}
