import assert from "node:assert/strict";
import { type Api, giteaApi } from "gitea-js";
import { basic } from "../support/forge.ts";
import { assertClientType } from "./typings.ts";

// People made the way gitea-js users make them: the admin creates the account, and its owner
// creates a token with basic auth.

export type Client = Api<unknown>;

/** What gitea-js throws for a non-2xx answer: the Response, with the parsed body as `error`. */
export interface ClientError {
  status: number;
  error: { message?: unknown; url?: unknown };
}

/** A user made by the admin through gitea-js, with an all-scopes token and a client using it. */
export async function giteaJsPerson(
  forgeUrl: string,
  adminToken: string,
  username: string,
): Promise<{ client: Client; token: string }> {
  const made = await giteaApi(forgeUrl, { token: adminToken }).admin.adminCreateUser({
    username,
    email: `${username}@example.com`,
    password: "password123",
    must_change_password: false,
    full_name: undefined,
    login_name: undefined,
    send_notify: false,
  });
  assert.equal(made.status, 201);
  assertClientType("User", made.data);
  const token = await giteaApi(forgeUrl).users.userCreateToken(
    username,
    { name: "script", scopes: ["all"] },
    { headers: { Authorization: basic(username, "password123") } },
  );
  assert.equal(token.status, 201);
  assertClientType("AccessToken", token.data);
  assert.equal(typeof token.data.sha1, "string");
  return { client: giteaApi(forgeUrl, { token: token.data.sha1 }), token: token.data.sha1 as string };
}
