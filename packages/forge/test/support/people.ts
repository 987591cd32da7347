import assert from "node:assert/strict";
import { runAnvil } from "@anvil/core/testing";
import { api, basic } from "./forge.ts";

/** A user made through the admin API, with an all-scopes token of their own. */
export interface Person {
  id: number;
  login: string;
  token: string;
}

/** A user made through the admin API (no password change needed); the answer's body. */
export async function makeUser<T = { id: number; login: string }>(
  url: string,
  adminToken: string,
  username: string,
  extra: Record<string, unknown> = {},
): Promise<T> {
  const made = await api<T>(url, "POST", "/admin/users", {
    token: adminToken,
    shape: "User",
    body: {
      username,
      email: `${username}@example.com`,
      password: "password123",
      must_change_password: false,
      ...extra,
    },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return made.body;
}

export async function makePerson(
  url: string,
  adminToken: string,
  username: string,
  extra: Record<string, unknown> = {},
): Promise<Person> {
  const made = await makeUser(url, adminToken, username, extra);
  const token = await api<{ sha1: string }>(url, "POST", `/users/${username}/tokens`, {
    auth: basic(username, "password123"),
    body: { name: "test", scopes: ["all"] },
    shape: "AccessToken",
  });
  assert.equal(token.status, 201, JSON.stringify(token.body));
  return { id: made.id, login: made.login, token: token.body.sha1 };
}

/**
 * A user made with `anvil forge admin user create … --access-token` on the data a forge process
 * uses (`where`: `--data-dir D --database URL`), password `<username>password`; answers their token.
 */
export async function makeUserByCommand(where: readonly string[], username: string): Promise<string> {
  const created = await runAnvil([
    "forge",
    "admin",
    "user",
    "create",
    "--username",
    username,
    "--password",
    `${username}password`,
    "--email",
    `${username}@example.com`,
    "--access-token",
    ...where,
  ]);
  assert.equal(created.code, 0, created.stderr);
  const token = /Access token was successfully created\.\.\. ([0-9a-f]{40})\n/.exec(created.stdout)?.[1];
  assert.ok(token, created.stdout);
  return token;
}
