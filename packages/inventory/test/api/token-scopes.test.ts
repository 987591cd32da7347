import assert from "node:assert/strict";
import { before, test } from "node:test";
import { createToken } from "../../src/services/tokens.ts";
import { type AssetFixture, assetFixture, createAsset, type Envelope } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { created } from "../support/items.ts";

// Scoped personal access tokens (Snipe-IT #19618): a token limited to some of its user's permissions.

const UNAUTHORIZED = { message: "This action is unauthorized." };
const TOKENS = "/account/personal-access-tokens";

type Created = Envelope<{ id: number; token: string; name: string } | null>;
type Listed = Array<{ id: number; name: string; scopes: string[] | null; read_only: boolean }>;

forEachInventory("inventory API: scoped tokens", (inventory) => {
  let fixture: AssetFixture;
  before(async () => {
    fixture = await assetFixture(inventory, "scope");
  });

  const mint = (body: Record<string, unknown>, token?: string, headers?: Record<string, string>) =>
    api<Created>(inventory, "POST", TOKENS, { body, token, headers });

  test("a superuser's token scoped to viewing and checking out assets does only that", async () => {
    const made = await mint({ name: "stocktake", scopes: ["assets.view", "assets.checkout"] });
    assert.equal(made.body.status, "success", JSON.stringify(made.body));
    const token = made.body.payload?.token ?? "";
    const id = await createAsset(inventory, fixture, "SCOPE-1");

    assert.equal((await api(inventory, "GET", "/hardware", { token })).status, 200);
    const shown = await api<{ available_actions: Record<string, boolean> }>(
      inventory,
      "GET",
      `/hardware/${id}`,
      {
        token,
      },
    );
    assert.equal(shown.body.available_actions.checkout, true);
    assert.equal(shown.body.available_actions.update, false, "the row's actions follow the scopes too");
    const out = await api<Envelope>(inventory, "POST", `/hardware/${id}/checkout`, {
      token,
      body: { checkout_to_type: "user", assigned_user: fixture.userId },
    });
    assert.equal(out.body.status, "success", JSON.stringify(out.body));

    for (const [method, path, body] of [
      ["GET", "/companies", undefined],
      ["GET", "/users", undefined],
      [
        "POST",
        "/hardware",
        { asset_tag: "SCOPE-2", model_id: fixture.modelId, status_id: fixture.deployable },
      ],
      ["PATCH", `/hardware/${id}`, { name: "renamed" }],
      ["POST", `/hardware/${id}/checkin`, {}],
      ["DELETE", `/hardware/${id}`, undefined],
      ["GET", "/groups", undefined],
    ] as const) {
      const refused = await api(inventory, method, path, { token, body });
      assert.deepEqual([refused.status, refused.body], [403, UNAUTHORIZED], `${method} ${path}`);
    }
    const asset = await api<{ name: string | null; assigned_to: unknown }>(
      inventory,
      "GET",
      `/hardware/${id}`,
    );
    assert.notEqual(asset.body.assigned_to, null, "still checked out: the check-in was refused");
    assert.notEqual(asset.body.name, "renamed");
  });

  test("a scope beyond the user's own permissions grants nothing; a permission outside the scopes neither", async () => {
    const viewer = await userWithToken(
      inventory,
      "scopedviewer",
      { "assets.view": "1", "locations.view": "1" },
      { scopes: ["assets.view", "assets.create", "companies.*"] },
    );
    assert.equal((await api(inventory, "GET", "/hardware", { token: viewer.token })).status, 200);
    for (const [method, path] of [
      ["GET", "/companies"],
      ["POST", "/hardware"],
      ["GET", "/locations"],
    ] as const) {
      const body = method === "POST" ? {} : undefined;
      const refused = await api(inventory, method, path, { token: viewer.token, body });
      assert.deepEqual([refused.status, refused.body], [403, UNAUTHORIZED], `${method} ${path}`);
    }

    const db = inventory.server.app.database!;
    const user = await db.db
      .selectFrom("users")
      .selectAll()
      .where("id", "=", viewer.id)
      .executeTakeFirstOrThrow();
    const { secret } = await createToken(db, user, { name: "all mine", scopes: ["superuser"] });
    assert.equal(
      (await api(inventory, "GET", "/locations", { token: secret })).status,
      200,
      "what the user holds",
    );
    const groups = await api(inventory, "GET", "/groups", { token: secret });
    assert.deepEqual(
      [groups.status, groups.body],
      [403, UNAUTHORIZED],
      "the superuser scope makes no superuser",
    );
  });

  test("a family wildcard covers the family's permissions and no other", async () => {
    const made = await mint({ name: "locations", scopes: ["locations.*"] });
    const token = made.body.payload?.token ?? "";
    const create = await api<Envelope>(inventory, "POST", "/locations", {
      token,
      body: { name: "Scoped site" },
    });
    assert.equal(create.body.status, "success", JSON.stringify(create.body));
    assert.equal((await api(inventory, "GET", "/locations", { token })).status, 200);
    assert.equal((await api(inventory, "GET", "/hardware", { token })).status, 403);
  });

  test("tokens are listed with their scopes; unscoped ones with null", async () => {
    await mint({ name: "listed", scopes: ["users.view", "users.view", "reports.view"] });
    const list = await api<Listed>(inventory, "GET", TOKENS);
    assert.deepEqual(list.body.find((row) => row.name === "listed")?.scopes, ["users.view", "reports.view"]);
    assert.equal(list.body.find((row) => row.name === "setup")?.scopes, null);
  });

  test("unknown permission names, an empty list or a non-list: Snipe-IT's validation error, nothing made", async () => {
    const before = (await api<Listed>(inventory, "GET", TOKENS)).body.length;
    const cases: [unknown, string][] = [
      [["assets.view", "assets.fly", 7], 'The selected scopes are invalid: "assets.fly", 7.'],
      [["hardware.view"], 'The selected scopes are invalid: "hardware.view".'],
      [["*"], 'The selected scopes are invalid: "*".'],
      [[], "The scopes field must have at least 1 items."],
      ["assets.view", "The scopes field must be an array."],
      [
        Array.from({ length: 101 }, () => "assets.view"),
        "The scopes field must not have more than 100 items.",
      ],
    ];
    for (const [scopes, message] of cases) {
      const refused = await mint({ name: "bad", scopes });
      assert.equal(refused.status, 200);
      assert.deepEqual(refused.body, { status: "error", messages: { scopes: [message] }, payload: null });
    }
    const strict = await mint({ name: "bad", scopes: ["nope"] }, undefined, { "x-api-strict-status": "1" });
    assert.equal(strict.status, 422);
    assert.equal((await api<Listed>(inventory, "GET", TOKENS)).body.length, before);
  });

  test("a scoped token makes only tokens its own scopes cover", async () => {
    const made = await mint({ name: "parent", scopes: ["assets.*", "self.api"] });
    const parent = made.body.payload?.token ?? "";
    const wider = await mint({ name: "wider", scopes: ["companies.view"] }, parent);
    assert.deepEqual([wider.status, wider.body], [403, UNAUTHORIZED]);
    const everything = await mint({ name: "everything", scopes: ["superuser"] }, parent);
    assert.deepEqual([everything.status, everything.body], [403, UNAUTHORIZED]);

    const narrower = await mint({ name: "narrower", scopes: ["assets.view"] }, parent);
    assert.equal(narrower.body.status, "success");
    const inherited = await mint({ name: "inherited" }, parent);
    assert.equal(inherited.body.status, "success");
    const list = await api<Listed>(inventory, "GET", TOKENS);
    assert.deepEqual(list.body.find((row) => row.name === "narrower")?.scopes, ["assets.view"]);
    assert.deepEqual(list.body.find((row) => row.name === "inherited")?.scopes, ["assets.*", "self.api"]);
    const child = inherited.body.payload?.token ?? "";
    assert.equal((await api(inventory, "GET", "/companies", { token: child })).status, 403);
  });

  test("a scoped token without self.api neither lists, makes nor revokes tokens", async () => {
    const made = await mint({ name: "narrow", scopes: ["assets.view"] });
    const token = made.body.payload?.token ?? "";
    const id = made.body.payload?.id ?? 0;
    for (const [method, path, body] of [
      ["GET", TOKENS, undefined],
      ["POST", TOKENS, { name: "more", scopes: ["assets.view"] }],
      ["DELETE", `${TOKENS}/${id}`, undefined],
    ] as const) {
      const refused = await api(inventory, method, path, { token, body });
      assert.deepEqual([refused.status, refused.body], [403, UNAUTHORIZED], `${method} ${path}`);
    }
    assert.equal((await api(inventory, "GET", "/hardware", { token })).status, 200, "not revoked");
  });

  test("a token scoped to users grants no permission beyond its scopes, though its user is a superuser", async () => {
    const made = await mint({ name: "people", scopes: ["users.*"] });
    const token = made.body.payload?.token ?? "";
    const target = await userWithToken(inventory, "promoted", {});
    const patched = await api<Envelope>(inventory, "PATCH", `/users/${target.id}`, {
      token,
      body: { permissions: { superuser: "1", admin: "1", "assets.view": "1", "users.view": "1" } },
    });
    assert.equal(patched.body.status, "success", JSON.stringify(patched.body));
    const stored = await api<{ permissions: Record<string, string> }>(
      inventory,
      "GET",
      `/users/${target.id}`,
    );
    assert.deepEqual(stored.body.permissions, { "users.view": "1" });
  });

  test("a scoped token read-only too: both tiers hold", async () => {
    const made = await mint({ name: "both", scopes: ["locations.*"], read_only: true });
    const token = made.body.payload?.token ?? "";
    assert.equal((await api(inventory, "GET", "/locations", { token })).status, 200);
    const write = await api(inventory, "POST", "/locations", { token, body: { name: "Nope" } });
    assert.deepEqual(write.body, { status: "error", messages: "This token is read-only.", payload: null });
  });
});

forEachInventory(
  "inventory API: scoped tokens under full multiple companies support",
  (inventory) => {
    test("a superuser's scoped token sees every company's rows: scopes narrow actions, not rows", async () => {
      const fixture = await assetFixture(inventory, "fmcs");
      const acme = await created(inventory, "/companies", { name: "Scoped Acme" });
      const id = await createAsset(inventory, fixture, "FMCS-1", { company_id: acme });
      const made = await api<Created>(inventory, "POST", TOKENS, {
        body: { name: "all", scopes: ["assets.view"] },
      });
      const token = made.body.payload?.token ?? "";
      const shown = await api<{ id: number }>(inventory, "GET", `/hardware/${id}`, { token });
      assert.equal(shown.body.id, id);
      assert.equal((await api(inventory, "GET", "/companies", { token })).status, 403);
    });
  },
  { apiThrottlePerMinute: 0, fullMultipleCompaniesSupport: true },
);
