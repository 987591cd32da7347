import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { giteaApi } from "gitea-js";
import { api, basic, forEachForge } from "../support/forge.ts";
import { makeUser as createUser } from "../support/people.ts";

interface Token {
  id: number;
  name: string;
  sha1: string;
  token_last_eight: string;
  scopes: string[];
}
interface User {
  id: number;
  login: string;
  email: string;
  is_admin: boolean;
  login_name: string;
  source_id: number;
}

forEachForge("forge accounts: tokens, users, admin", (forge) => {
  const root = basic("root", "rootpassword");

  const makeUser = (username: string, extra: Record<string, unknown> = {}) =>
    createUser<User>(forge.url, forge.adminToken, username, extra);

  async function tokenFor(username: string, password: string, name: string, scopes: string[]) {
    const made = await api<Token>(forge.url, "POST", `/users/${username}/tokens`, {
      auth: basic(username, password),
      body: { name, scopes },
      shape: "AccessToken",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return made.body;
  }

  test("a token is made with basic auth, shown once, stored only as a hash", async () => {
    const made = await tokenFor("root", "rootpassword", "ci", ["write:user", "read:user", "read:admin"]);
    assert.match(made.sha1, /^[0-9a-f]{40}$/);
    assert.equal(made.token_last_eight, made.sha1.slice(-8));
    assert.deepEqual(made.scopes, ["read:admin", "write:user"]);
    const listed = await api<Token[]>(forge.url, "GET", "/users/root/tokens", {
      auth: root,
      shape: "AccessToken[]",
    });
    const again = listed.body.find((t) => t.id === made.id);
    assert.equal(again?.sha1, "", "the secret is never shown again");
    assert.equal(listed.headers.get("x-total-count"), String(listed.body.length));
    const db = forge.server.app.database;
    const stored = await db?.db
      .selectFrom("access_token")
      .select(["token_hash"])
      .where("id", "=", made.id)
      .executeTakeFirst();
    assert.equal(stored?.token_hash, createHash("sha256").update(made.sha1).digest("hex"));
  });

  test("every way of presenting a token is accepted", async () => {
    const { sha1 } = await tokenFor("root", "rootpassword", "ways", ["all"]);
    const ways: Array<[string, Record<string, string>]> = [
      ["", { authorization: `token ${sha1}` }],
      ["", { authorization: `Bearer ${sha1}` }],
      ["", { authorization: basic("root", sha1) }],
      ["", { authorization: basic(sha1, "") }],
      ["", { authorization: basic(sha1, "x-oauth-basic") }],
      [`?token=${sha1}`, {}],
      [`?access_token=${sha1}`, {}],
    ];
    for (const [query, headers] of ways) {
      const me = await api<User>(forge.url, "GET", `/user${query}`, { headers, shape: "User" });
      assert.equal(me.status, 200, `${query} ${JSON.stringify(headers)}`);
      assert.equal(me.body.login, "root");
      assert.equal(me.body.is_admin, true);
    }
  });

  test("a token's use is noted once a minute, and listed", async () => {
    const { id, sha1 } = await tokenFor("root", "rootpassword", "noted", ["all"]);
    const stored = async () => {
      const row = await forge.server.app.database?.db
        .selectFrom("access_token")
        .select("last_used_at")
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      return row?.last_used_at;
    };
    assert.equal(await stored(), null);
    assert.equal((await api(forge.url, "GET", "/user", { token: sha1 })).status, 200);
    const first = await stored();
    assert.notEqual(first, null);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await api(forge.url, "GET", "/user", { token: sha1 })).status, 200);
    assert.deepEqual(await stored(), first, "a second use within the minute writes nothing");
    const listed = await api<Array<Token & { last_used_at: string }>>(
      forge.url,
      "GET",
      "/users/root/tokens",
      {
        auth: root,
      },
    );
    assert.notEqual(listed.body.find((t) => t.id === id)?.last_used_at, "0001-01-01T00:00:00Z");
  });

  test("wrong or missing credentials are 401", async () => {
    assert.equal((await api(forge.url, "GET", "/user")).status, 401);
    const bad = await api<{ message: string }>(forge.url, "GET", "/user", { token: "0".repeat(40) });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.message, "invalid username, password or token");
    assert.equal(
      (await api(forge.url, "GET", "/user", { auth: basic("root", "wrong-password") })).status,
      401,
    );
  });

  test("token routes need basic auth with the password, and the user or an admin", async () => {
    const denied = await api<{ message: string }>(forge.url, "POST", "/users/root/tokens", {
      token: forge.adminToken,
      body: { name: "via-token", scopes: ["all"] },
    });
    assert.equal(denied.status, 401);
    assert.equal(denied.body.message, "auth required");
    await makeUser("tina");
    const other = await api(forge.url, "GET", "/users/root/tokens", { auth: basic("tina", "password123") });
    assert.equal(other.status, 403);
    const forTina = await api<Token>(forge.url, "POST", "/users/tina/tokens", {
      auth: root,
      body: { name: "made-by-admin", scopes: ["read:user"] },
      shape: "AccessToken",
    });
    assert.equal(forTina.status, 201);
  });

  test("token names and scopes: 400 for a duplicate, none or an unknown one", async () => {
    await tokenFor("root", "rootpassword", "dup", ["all"]);
    const cases: Array<[unknown, string]> = [
      [{ name: "dup", scopes: ["all"] }, "access token name has been used already"],
      [{ name: "DUP", scopes: ["all"] }, "access token name has been used already"],
      [{ name: "none", scopes: [] }, "access token must have a scope"],
      [{ name: "none2" }, "access token must have a scope"],
      [{ name: "weird", scopes: ["write:everything"] }, "invalid access token scope provided"],
    ];
    for (const [body, message] of cases) {
      const res = await api<{ message: string }>(forge.url, "POST", "/users/root/tokens", {
        auth: root,
        body,
      });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.message, new RegExp(`^${message}`));
    }
  });

  test("a token's scopes limit its routes; public ones need none", async () => {
    const { sha1 } = await tokenFor("root", "rootpassword", "reader", ["read:user"]);
    assert.equal((await api(forge.url, "GET", "/user", { token: sha1 })).status, 200);
    assert.equal(
      (await api(forge.url, "GET", "/version", { token: sha1, shape: "ServerVersion" })).status,
      200,
    );
    const admin = await api<{ message: string }>(forge.url, "GET", "/admin/users", { token: sha1 });
    assert.equal(admin.status, 403);
    assert.match(
      admin.body.message,
      /^token does not have at least one of required scope\(s\), required=\[read:admin write:admin\]/,
    );
    const write = await api(forge.url, "POST", "/admin/users", {
      token: (await tokenFor("root", "rootpassword", "admin-read", ["read:admin"])).sha1,
      body: { username: "nobody", email: "nobody@example.com", password: "password123" },
    });
    assert.equal(write.status, 403);
  });

  test("tokens are deleted by id or by name and stop working", async () => {
    const first = await tokenFor("root", "rootpassword", "first", ["all"]);
    const second = await tokenFor("root", "rootpassword", "second", ["all"]);
    // Used first, so a caller kept for a token is known to go with it.
    assert.equal((await api(forge.url, "GET", "/user", { token: first.sha1 })).status, 200);
    assert.equal((await api(forge.url, "GET", "/user", { token: second.sha1 })).status, 200);
    assert.equal(
      (await api(forge.url, "DELETE", `/users/root/tokens/${first.id}`, { auth: root })).status,
      204,
    );
    assert.equal((await api(forge.url, "DELETE", "/users/root/tokens/second", { auth: root })).status, 204);
    assert.equal((await api(forge.url, "GET", "/user", { token: first.sha1 })).status, 401);
    assert.equal((await api(forge.url, "GET", "/user", { token: second.sha1 })).status, 401);
    assert.equal((await api(forge.url, "DELETE", "/users/root/tokens/second", { auth: root })).status, 404);
  });

  test("admin users: create, list, edit, delete; only site admins", async () => {
    const made = await makeUser("alice", { full_name: "Alice A", login_name: "alice-ldap" });
    assert.equal(made.login, "alice");
    assert.equal(made.login_name, "alice-ldap", "login_name is echoed to admins");
    assert.equal(made.source_id, 0);
    const list = await api<User[]>(forge.url, "GET", "/admin/users?limit=2", {
      token: forge.adminToken,
      shape: "User[]",
    });
    assert.equal(list.status, 200);
    assert.equal(list.body.length, 2);
    assert.ok(Number(list.headers.get("x-total-count")) >= 2);
    assert.match(
      list.headers.get("link") ?? "",
      /^<http:\/\/forge\.test\/api\/v1\/admin\/users\?limit=2&page=2>; rel="next"/,
    );
    const edited = await api<User & { full_name: string; is_admin: boolean }>(
      forge.url,
      "PATCH",
      "/admin/users/alice",
      {
        token: forge.adminToken,
        body: { source_id: 0, login_name: "alice", full_name: "Alice B", admin: true },
        shape: "User",
      },
    );
    assert.equal(edited.status, 200);
    assert.equal(edited.body.full_name, "Alice B");
    assert.equal(edited.body.is_admin, true);
    const { sha1 } = await tokenFor("tina", "password123", "tina", ["all"]);
    const refused = await api<{ message: string }>(forge.url, "POST", "/admin/users", {
      token: sha1,
      body: { username: "mallory", email: "m@example.com", password: "password123" },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, "user should be the site admin");
    assert.equal(
      (await api(forge.url, "DELETE", "/admin/users/alice", { token: forge.adminToken })).status,
      204,
    );
    assert.equal((await api(forge.url, "GET", "/users/alice")).status, 404);
  });

  test("bad input to admin user creation: Gitea's 4xx, and nothing is created", async () => {
    await makeUser("carol");
    const before = await api(forge.url, "GET", "/admin/users", { token: forge.adminToken });
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [
        { username: "carol", email: "other@example.com", password: "password123" },
        422,
        /^user already exists \[name: carol\]$/,
      ],
      [
        { username: "CAROL", email: "other@example.com", password: "password123" },
        422,
        /^user already exists/,
      ],
      [
        { username: "carol2", email: "CAROL@example.com", password: "password123" },
        422,
        /^e-mail already in use/,
      ],
      [
        { username: "admin", email: "a@example.com", password: "password123" },
        422,
        /^name is reserved \[name: admin\]$/,
      ],
      [
        { username: "../x", email: "x@example.com", password: "password123" },
        422,
        /^\[Username\]: Username$/,
      ],
      [
        { username: "a".repeat(41), email: "x@example.com", password: "password123" },
        422,
        /^\[Username\]: MaxSize$/,
      ],
      [{ username: "ok-name", email: "not-an-email", password: "password123" }, 422, /^\[Email\]: Email$/],
      [{ username: "ok-name", email: "ok@example.com", password: "short" }, 400, /^password is too short/],
      [
        { username: "ok-name", email: "ok@example.com", password: "password123", source_id: 3 },
        422,
        /^login source does not exist/,
      ],
      [{ email: "ok@example.com", password: "password123" }, 422, /^\[Username\]: Required$/],
      [{ username: 12, email: "ok@example.com", password: "password123" }, 422, /^\[Username\]: Type$/],
    ];
    for (const [body, status, message] of cases) {
      const res = await api<{ message: string }>(forge.url, "POST", "/admin/users", {
        token: forge.adminToken,
        body,
      });
      assert.equal(res.status, status, JSON.stringify(body));
      assert.match(res.body.message, message, JSON.stringify(body));
    }
    const malformed = await fetch(`${forge.url}/api/v1/admin/users`, {
      method: "POST",
      headers: { authorization: `token ${forge.adminToken}`, "content-type": "application/json" },
      body: "{not json",
    });
    assert.equal(malformed.status, 422);
    const after = await api(forge.url, "GET", "/admin/users", { token: forge.adminToken });
    assert.equal(after.headers.get("x-total-count"), before.headers.get("x-total-count"));
  });

  test("a token stops working as soon as its user may not sign in, and works again once allowed", async () => {
    await makeUser("gina", { password: "password123" });
    const token = await tokenFor("gina", "password123", "daily", ["all"]);
    assert.equal((await api(forge.url, "GET", "/user", { token: token.sha1 })).status, 200);
    const edit = (body: Record<string, unknown>) =>
      api(forge.url, "PATCH", "/admin/users/gina", {
        token: forge.adminToken,
        body: { source_id: 0, login_name: "gina", ...body },
      });
    await edit({ prohibit_login: true });
    const refused = await api<{ message: string }>(forge.url, "GET", "/user", { token: token.sha1 });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, "user is prohibited from signing in");
    await edit({ prohibit_login: false });
    assert.equal((await api(forge.url, "GET", "/user", { token: token.sha1 })).status, 200);
  });

  test("a user who must change their password is refused by the API until an admin clears it", async () => {
    const created = await api<User>(forge.url, "POST", "/admin/users", {
      token: forge.adminToken,
      body: { username: "dave", email: "dave@example.com", password: "password123" },
    });
    assert.equal(created.status, 201);
    const refused = await api<{ message: string }>(forge.url, "GET", "/user", {
      auth: basic("dave", "password123"),
    });
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /^You must change your password/);
    await api(forge.url, "PATCH", "/admin/users/dave", {
      token: forge.adminToken,
      body: { source_id: 0, login_name: "dave", must_change_password: false },
    });
    assert.equal((await api(forge.url, "GET", "/user", { auth: basic("dave", "password123") })).status, 200);
  });

  test("sudo: site admins act as another user; others get 403; unknown users 404", async () => {
    await makeUser("erin");
    const asErin = await api<User>(forge.url, "GET", "/user", {
      token: forge.adminToken,
      headers: { sudo: "erin" },
    });
    assert.equal(asErin.body.login, "erin");
    const viaQuery = await api<User>(forge.url, "GET", "/user?sudo=erin", { token: forge.adminToken });
    assert.equal(viaQuery.body.login, "erin");
    const { sha1 } = await tokenFor("erin", "password123", "erin", ["all"]);
    const refused = await api<{ message: string }>(forge.url, "GET", "/user", {
      token: sha1,
      headers: { sudo: "root" },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, "Only administrators allowed to sudo.");
    assert.equal(
      (await api(forge.url, "GET", "/user", { token: forge.adminToken, headers: { sudo: "ghost-user" } }))
        .status,
      404,
    );
  });

  test("public profiles: e-mail hidden from anonymous callers, private users hidden entirely", async () => {
    await makeUser("frank");
    await makeUser("grace", { visibility: "private" });
    const anonymous = await api<User>(forge.url, "GET", "/users/frank", { shape: "User" });
    assert.equal(anonymous.status, 200);
    assert.equal(anonymous.body.email, "frank@noreply.forge.test");
    assert.equal((anonymous.body as User & { html_url: string }).html_url, "http://forge.test/frank");
    assert.equal(anonymous.body.is_admin, false);
    const signedIn = await api<User>(forge.url, "GET", "/users/frank", {
      token: forge.adminToken,
      shape: "User",
    });
    assert.equal(signedIn.body.email, "frank@example.com");
    assert.equal((await api(forge.url, "GET", "/users/grace")).status, 404);
    assert.equal((await api(forge.url, "GET", "/users/grace", { token: forge.adminToken })).status, 200);
    const search = await api<{ ok: boolean; data: User[] }>(forge.url, "GET", "/users/search?q=FRA");
    assert.equal(search.body.ok, true);
    assert.deepEqual(
      search.body.data.map((u) => u.login),
      ["frank"],
    );
    assert.equal(search.headers.get("x-total-count"), "1");
    const hidden = await api<{ data: User[] }>(forge.url, "GET", "/users/search?q=grace");
    assert.deepEqual(hidden.body.data, []);
  });

  test("settings and version answer anyone in Gitea's shapes", async () => {
    assert.deepEqual((await api(forge.url, "GET", "/version", { shape: "ServerVersion" })).body, {
      version: "1.25.4",
    });
    const paging = await api<{ max_response_items: number; default_paging_num: number }>(
      forge.url,
      "GET",
      "/settings/api",
      {
        shape: "GeneralAPISettings",
      },
    );
    assert.equal(paging.body.max_response_items, 50);
    assert.equal(paging.body.default_paging_num, 30);
    await api(forge.url, "GET", "/settings/repository", { shape: "GeneralRepoSettings" });
    await api(forge.url, "GET", "/settings/ui", { shape: "GeneralUISettings" });
    await api(forge.url, "GET", "/settings/attachment", { shape: "GeneralAttachmentSettings" });
  });

  test("gitea-js, the npm client, works against the forge unchanged", async () => {
    const client = giteaApi(forge.url, { token: forge.adminToken, customFetch: fetch });
    const me = await client.user.userGetCurrent();
    assert.equal(me.data.login, "root");
    const created = await client.admin.adminCreateUser({
      username: "heidi",
      email: "heidi@example.com",
      password: "password123",
      must_change_password: false,
    });
    assert.equal(created.status, 201);
    assert.equal(created.data.login, "heidi");
    const version = await client.version.getVersion();
    assert.equal(version.data.version, "1.25.4");
    await assert.rejects(
      client.admin.adminCreateUser({ username: "heidi", email: "h2@example.com", password: "password123" }),
      (error: Response) => {
        assert.equal(error.status, 422);
        return true;
      },
    );
  });
});
