import assert from "node:assert/strict";
import { hmacHex, type Received } from "@anvil/core/testing";

export { type Answer, hmacHex, type Received, type Receiver, startReceiver } from "@anvil/core/testing";

/** The signatures a delivery carries, checked against `secret` as each header family defines them. */
export function assertSigned(request: Received, secret: string): void {
  const form = request.headers["content-type"] === "application/x-www-form-urlencoded";
  const payload = form ? (new URLSearchParams(request.body).get("payload") ?? "") : request.body;
  assert.equal(request.headers["x-gitea-signature"], hmacHex("sha256", secret, payload));
  assert.equal(request.headers["x-gogs-signature"], hmacHex("sha256", secret, payload));
  assert.equal(request.headers["x-hub-signature-256"], `sha256=${hmacHex("sha256", secret, request.body)}`);
  assert.equal(request.headers["x-hub-signature"], `sha1=${hmacHex("sha1", secret, request.body)}`);
  assert.equal(request.headers["x-forge-signature"], hmacHex("sha256", secret, request.body));
}

/** The JSON payload of a delivery, whatever its content type. */
export function payloadOf<T = Record<string, unknown>>(request: Received): T {
  const form = request.headers["content-type"] === "application/x-www-form-urlencoded";
  return JSON.parse(form ? (new URLSearchParams(request.body).get("payload") ?? "") : request.body) as T;
}
