import { hash, randomBytes } from "node:crypto";

// API tokens are random secrets shown once; only their SHA-256 is stored, so a leaked database
// does not leak working tokens, and a lookup by hash needs no constant-time compare.

/** A new random token secret of `bytes` random bytes, as lower-case hex. */
export function generateTokenSecret(bytes = 20): string {
  return randomBytes(bytes).toString("hex");
}

/** The stored form of a token secret: SHA-256, hex. */
export function hashToken(secret: string): string {
  // The one-shot form: every call with a token hashes, and it skips building a Hash object.
  return hash("sha256", secret, "hex");
}
