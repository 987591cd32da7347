import assert from "node:assert/strict";
import { test } from "node:test";
import { assetFixture, createAsset } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

const UNAUTHENTICATED = { error: "Unauthorized or unauthenticated." };
const UNAUTHORIZED = { message: "This action is unauthorized." };

forEachInventory("inventory API: tokens, tiers and permissions", (inventory) => {
  test("no token, a token of another scheme, or an unknown token: 401 with Snipe-IT's body", async () => {
    const cases: Record<string, string>[] = [
      {},
      { authorization: "token abc" },
      { authorization: "Bearer nonsense" },
    ];
    for (const headers of cases) {
      const res = await api(inventory, "GET", "/companies", { token: "", headers });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, UNAUTHENTICATED);
    }
  });

  test("an expired token is refused", async () => {
    const created = await api<{ payload: { token: string; id: number } }>(
      inventory,
      "POST",
      "/account/personal-access-tokens",
      {
        body: { name: "soon expired" },
      },
    );
    const db = inventory.server.app.database!;
    await db.db
      .updateTable("personal_access_tokens")
      .set({ expires_at: db.dialect === "sqlite" ? "2000-01-01T00:00:00.000Z" : new Date("2000-01-01") })
      .where("id", "=", created.body.payload.id)
      .execute();
    const res = await api(inventory, "GET", "/companies", { token: created.body.payload.token });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, UNAUTHENTICATED);
  });

  test("GET /version and GET /api/v1", async () => {
    assert.deepEqual((await api(inventory, "GET", "/version")).body, { version: "v8.1.4" });
    const base = await api<{ status: string; message: string; payload: null }>(inventory, "GET", "");
    assert.equal(base.status, 404);
    assert.equal(base.body.status, "error");
    assert.match(base.body.message, /^404 endpoint not found\. This is the base URL/);
  });

  test("personal access tokens: created once, listed, revoked; another user's is 404", async () => {
    const created = await api<{ status: string; payload: { id: number; token: string; name: string } }>(
      inventory,
      "POST",
      "/account/personal-access-tokens",
      { body: { name: "script" } },
    );
    assert.equal(created.body.status, "success");
    assert.equal(created.body.payload.name, "script");
    assert.match(created.body.payload.token, /^[0-9a-f]{64}$/);
    const me = await api<{ username: string }>(inventory, "GET", "/users/me", {
      token: created.body.payload.token,
    });
    assert.equal(me.body.username, "admin");

    const list = await api<Array<{ id: number; name: string; last_used_at: unknown }>>(
      inventory,
      "GET",
      "/account/personal-access-tokens",
    );
    const listed = list.body.find((token) => token.id === created.body.payload.id);
    assert.equal(listed?.name, "script");
    assert.notEqual(listed?.last_used_at, null, "its use is recorded, though kept reads may not show it");
    assert.ok(
      !JSON.stringify(list.body).includes(created.body.payload.token),
      "the secret is never shown again",
    );

    const other = await userWithToken(inventory, "tokenless", {});
    const foreign = await api(
      inventory,
      "DELETE",
      `/account/personal-access-tokens/${created.body.payload.id}`,
      {
        token: other.token,
      },
    );
    assert.equal(foreign.status, 404);

    const revoked = await api(
      inventory,
      "DELETE",
      `/account/personal-access-tokens/${created.body.payload.id}`,
    );
    assert.equal(revoked.status, 204);
    const after = await api(inventory, "GET", "/companies", { token: created.body.payload.token });
    assert.equal(after.status, 401);

    const missingName = await api<{ status: string; messages: unknown }>(
      inventory,
      "POST",
      "/account/personal-access-tokens",
      {
        body: {},
      },
    );
    assert.deepEqual(missingName.body.messages, { name: ["The name field is required."] });
  });

  test("a token's caller and the asset it reads are kept only while unchanged: a change counts at the next request", async () => {
    const viewer = await userWithToken(inventory, "kept-viewer", { "assets.view": "1" });
    const id = await createAsset(inventory, await assetFixture(inventory, "kept"), "KEPT-1", {
      name: "before",
    });
    const read = () => api<{ name: string }>(inventory, "GET", `/hardware/${id}`, { token: viewer.token });
    assert.equal((await read()).body.name, "before");
    assert.equal((await read()).body.name, "before", "asked again, unchanged");
    await api(inventory, "PATCH", `/hardware/${id}`, { body: { name: "after" } });
    assert.equal((await read()).body.name, "after");
    await api(inventory, "PATCH", `/users/${viewer.id}`, { body: { permissions: { "assets.view": "0" } } });
    const refused = await read();
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, UNAUTHORIZED);
  });

  test("a read-only token reads but every write is 403 in the envelope", async () => {
    const reader = await userWithToken(
      inventory,
      "reader",
      { "companies.view": "1", "companies.create": "1" },
      { readOnly: true },
    );
    assert.equal((await api(inventory, "GET", "/companies", { token: reader.token })).status, 200);
    for (const method of ["POST", "PATCH", "PUT", "DELETE"]) {
      const res = await api(inventory, method, method === "POST" ? "/companies" : "/companies/1", {
        token: reader.token,
        body: { name: "Nope" },
      });
      assert.equal(res.status, 403, method);
      assert.deepEqual(res.body, { status: "error", messages: "This token is read-only.", payload: null });
    }
    const read = await api<{ total: number }>(inventory, "GET", "/companies?search=Nope");
    assert.equal(read.body.total, 0, "nothing was written");
  });

  test("permissions: grant, group grant, explicit deny beats the group, admin, superuser-only groups", async () => {
    const group = await api<{ payload: { id: number } }>(inventory, "POST", "/groups", {
      body: { name: "Viewers", permissions: { "companies.view": "1", "locations.view": "1" } },
    });
    const plain = await userWithToken(inventory, "plain", { "companies.view": "1" });
    assert.equal((await api(inventory, "GET", "/companies", { token: plain.token })).status, 200);
    const denied = await api(inventory, "GET", "/locations", { token: plain.token });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, UNAUTHORIZED);
    const create = await api(inventory, "POST", "/companies", { token: plain.token, body: { name: "X" } });
    assert.deepEqual([create.status, create.body], [403, UNAUTHORIZED]);

    const member = await userWithToken(inventory, "member", { "locations.view": "-1" });
    await api(inventory, "PATCH", `/users/${member.id}`, { body: { groups: [group.body.payload.id] } });
    assert.equal(
      (await api(inventory, "GET", "/companies", { token: member.token })).status,
      200,
      "the group grants",
    );
    assert.equal(
      (await api(inventory, "GET", "/locations", { token: member.token })).status,
      403,
      "-1 beats the group",
    );

    const admin = await userWithToken(inventory, "adminish", { admin: "1" });
    assert.equal(
      (await api(inventory, "POST", "/companies", { token: admin.token, body: { name: "By admin" } })).status,
      200,
    );
    const groups = await api(inventory, "GET", "/groups", { token: admin.token });
    assert.deepEqual([groups.status, groups.body], [403, UNAUTHORIZED], "groups are for superusers only");
  });

  test("available_actions follow the caller's permissions", async () => {
    await api(inventory, "POST", "/companies", { body: { name: "Actions Inc" } });
    const viewer = await userWithToken(inventory, "viewer", { "companies.view": "1" });
    const seen = await api<{ rows: Array<{ name: string; available_actions: Record<string, boolean> }> }>(
      inventory,
      "GET",
      "/companies?search=Actions",
      { token: viewer.token },
    );
    assert.deepEqual(seen.body.rows[0].available_actions, { update: false, delete: false });
    const mine = await api<{ rows: Array<{ available_actions: Record<string, boolean> }> }>(
      inventory,
      "GET",
      "/companies?search=Actions",
    );
    assert.deepEqual(mine.body.rows[0].available_actions, { update: true, delete: true });
  });
});

forEachInventory(
  "inventory API: rate limit",
  (inventory) => {
    test("the limit+1st request in a minute is 429 with Retry-After and X-RateLimit headers", async () => {
      // The four requests must fall in one minute window.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
      const first = await api(inventory, "GET", "/companies");
      assert.equal(first.headers.get("x-ratelimit-limit"), "3");
      assert.equal(first.headers.get("x-ratelimit-remaining"), "2");
      await api(inventory, "GET", "/companies");
      await api(inventory, "GET", "/companies");
      const over = await api(inventory, "GET", "/companies");
      assert.equal(over.status, 429);
      assert.deepEqual(over.body, { status: "error", messages: "Too many requests", payload: null });
      assert.equal(over.headers.get("x-ratelimit-remaining"), "0");
      const retry = Number(over.headers.get("retry-after"));
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    });
  },
  { apiThrottlePerMinute: 3 },
);
