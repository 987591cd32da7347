import { createHmac } from "node:crypto";

// Receivers check that a delivery came from us by recomputing an HMAC of the raw body with the
// secret they share with us (GitHub's X-Hub-Signature-256, Gitea's X-Gitea-Signature).

/** Hex HMAC-SHA256 of `body` keyed by `secret`. */
export function signHmacSha256Hex(secret: string, body: string): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

/** Hex HMAC-SHA1 of `body` keyed by `secret` (GitHub's older X-Hub-Signature). */
export function signHmacSha1Hex(secret: string, body: string): string {
  return createHmac("sha1", secret).update(body).digest("hex");
}
