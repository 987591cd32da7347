import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, type InventoryState, userWithToken } from "../support/inventory.ts";
import { category, created } from "../support/items.ts";

type Row = Record<string, unknown> & { id: number };

const STAFF = {
  "assets.view": "1",
  "assets.create": "1",
  "assets.edit": "1",
  "assets.delete": "1",
  "assets.checkout": "1",
  "assets.checkin": "1",
  "users.view": "1",
  "accessories.view": "1",
  "accessories.checkout": "1",
  "accessories.checkin": "1",
  "licenses.view": "1",
  "licenses.checkout": "1",
  "locations.view": "1",
  "statuslabels.view": "1",
};

/** A user of `companyId` (none when null) with the staff permissions, and their token. */
async function staff(inventory: InventoryState, username: string, companyId: number | null) {
  const user = await userWithToken(inventory, username, STAFF);
  const moved = await api<Envelope>(inventory, "PATCH", `/users/${user.id}`, {
    body: { company_id: companyId },
  });
  assert.equal(moved.body.status, "success");
  return user;
}

forEachInventory(
  "inventory API: full multiple companies support",
  (inventory) => {
    let f: AssetFixture;
    let acme = 0;
    let globex = 0;
    let alice: { id: number; token: string };
    let nobody: { id: number; token: string };
    const ids: Record<string, number> = {};
    const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
      api<T>(inventory, method, path, { body, token });
    const tags = (page: List<Row>) => page.rows.map((row) => row.asset_tag).sort();
    const ofModel = () => `model_id=${f.modelId}`;

    test("fixture: two companies, assets of each and of none", async () => {
      f = await assetFixture(inventory, "co");
      acme = await created(inventory, "/companies", { name: "Acme" });
      globex = await created(inventory, "/companies", { name: "Globex" });
      alice = await staff(inventory, "alice", acme);
      nobody = await staff(inventory, "nobody", null);
      ids.acme = await createAsset(inventory, f, "CO-ACME", { company_id: acme, location_id: f.locationId });
      ids.globex = await createAsset(inventory, f, "CO-GLOBEX", {
        company_id: globex,
        serial: "SER-G",
        location_id: f.locationId,
      });
      ids.none = await createAsset(inventory, f, "CO-NONE");
    });

    test("lists show the caller's company only; a user without one sees rows of none; superusers all", async () => {
      const listed = (token?: string) =>
        call<List<Row>>("GET", `/hardware?${ofModel()}`, undefined, token).then((answer) => answer.body);
      assert.deepEqual(tags(await listed(alice.token)), ["CO-ACME"]);
      assert.equal((await listed(alice.token)).total, 1, "the total too");
      assert.deepEqual(tags(await listed(nobody.token)), ["CO-NONE"]);
      assert.deepEqual(tags(await listed()), ["CO-ACME", "CO-GLOBEX", "CO-NONE"]);
      const people = await call<List<Row>>("GET", "/users", undefined, alice.token);
      assert.deepEqual(
        people.body.rows.map((row) => row.username),
        ["alice"],
        "users are a company's rows too",
      );
      const filtered = await call<List<Row>>(
        "GET",
        `/hardware?${ofModel()}&company_id=${globex}`,
        undefined,
        alice.token,
      );
      assert.equal(filtered.body.total, 0, "asking for another company finds nothing");
      const location = await call<Row>("GET", `/locations/${f.locationId}`, undefined, alice.token);
      assert.equal(location.body.assets_count, 1, "counts only what the caller may see");
      assert.equal((await call<Row>("GET", `/locations/${f.locationId}`)).body.assets_count, 2);
    });

    test("the dashboard's charts count the caller's company's assets only", async () => {
      type Chart = { labels: string[]; datasets: Array<{ data: number[] }> };
      const chart = async (path: string, token?: string) =>
        (await call<Chart>("GET", `/statuslabels/assets/${path}`, undefined, token)).body;
      assert.deepEqual((await chart("name", alice.token)).labels, ["co deployable (1)"]);
      assert.deepEqual((await chart("name")).labels, ["co deployable (3)"]);
      assert.deepEqual((await chart("type", nobody.token)).datasets[0].data, [1, 0, 0, 0, 0]);
    });

    test("another company's asset does not exist for the caller, whatever the route", async () => {
      const theirs = ids.globex;
      const notFound = (answer: { body: Envelope }, message: string) =>
        assert.deepEqual(answer.body, { status: "error", messages: message, payload: null });
      notFound(await call("GET", `/hardware/${theirs}`, undefined, alice.token), "Asset does not exist.");
      notFound(
        await call("GET", "/hardware/bytag/CO-GLOBEX", undefined, alice.token),
        "Asset does not exist.",
      );
      notFound(
        await call("GET", "/hardware/byserial/SER-G", undefined, alice.token),
        "Asset does not exist.",
      );
      notFound(
        await call("GET", `/hardware/${theirs}/licenses`, undefined, alice.token),
        "Asset does not exist.",
      );
      notFound(await call("PATCH", `/hardware/${theirs}`, { name: "x" }, alice.token), "Asset not found");
      notFound(
        await call(
          "POST",
          `/hardware/${theirs}/checkout`,
          { checkout_to_type: "user", assigned_user: alice.id },
          alice.token,
        ),
        "Asset not found",
      );
      notFound(
        await call(
          "POST",
          "/hardware/bytag/CO-GLOBEX/checkout",
          { checkout_to_type: "user", assigned_user: alice.id },
          alice.token,
        ),
        "Asset not found",
      );
      notFound(await call("DELETE", `/hardware/${theirs}`, undefined, alice.token), "Asset does not exist.");
      const stored = await call<Row>("GET", `/hardware/${theirs}`);
      assert.equal(stored.body.name, "", "nothing was changed");
      assert.equal(stored.body.deleted_at, null);
      assert.equal(stored.body.assigned_to, null);
    });

    test("writes land in the caller's company, whatever company_id says", async () => {
      const made = await call<Envelope<Row>>(
        "POST",
        "/hardware",
        { asset_tag: "CO-NEW", model_id: f.modelId, status_id: f.deployable, company_id: globex },
        alice.token,
      );
      assert.equal(made.body.status, "success");
      assert.equal(made.body.payload.company_id, acme);
      const moved = await call<Envelope<Row>>(
        "PATCH",
        `/hardware/${ids.acme}`,
        { company_id: globex },
        alice.token,
      );
      assert.equal(moved.body.payload.company_id, acme);
      const renamed = await call<Envelope<Row>>(
        "PATCH",
        `/hardware/${ids.acme}`,
        { name: "Mine" },
        alice.token,
      );
      assert.equal(renamed.body.payload.company_id, acme, "an update not sending company_id keeps it");
      const bad = await call("POST", "/hardware", { asset_tag: "CO-BAD", company_id: "x" }, alice.token);
      assert.equal(bad.body.status, "error", "validation still answers first");
    });

    test("check-outs: another company's user is no target, another company's accessory no item", async () => {
      const bob = await staff(inventory, "bob", globex);
      const checkoutTo = (user: number) =>
        call<Envelope>(
          "POST",
          `/hardware/${ids.acme}/checkout`,
          { checkout_to_type: "user", assigned_user: user },
          alice.token,
        );
      const out = await checkoutTo(bob.id);
      assert.equal(out.body.messages, "Checkout target for asset CO-ACME is invalid - user does not exist.");
      assert.equal((await checkoutTo(alice.id)).body.status, "success");

      const keyboards = await category(inventory, "accessory", "co keyboards");
      const theirs = await created(inventory, "/accessories", {
        name: "Globex keyboard",
        qty: 2,
        category_id: keyboards,
        company_id: globex,
      });
      const taken = await call<Envelope>(
        "POST",
        `/accessories/${theirs}/checkout`,
        { assigned_user: alice.id },
        alice.token,
      );
      assert.deepEqual(taken.body, { status: "error", messages: "Accessory not found", payload: null });
      const hidden = { status: "error", messages: "Accessory not found", payload: null };
      assert.deepEqual((await call("GET", `/accessories/${theirs}`, undefined, alice.token)).body, hidden);
      const bobShown = await call("GET", `/users/${bob.id}`, undefined, alice.token);
      assert.deepEqual(bobShown.body, { status: "error", messages: "User not found", payload: null });
      assert.equal((await call<Row>("GET", `/accessories/${theirs}`)).body.checkouts_count, 0);
      const given = await call("POST", `/accessories/${theirs}/checkout`, { assigned_user: bob.id });
      assert.equal(given.body.status, "success");
      const [row] = (await call<List<Row>>("GET", `/accessories/${theirs}/checkedout`)).body.rows;
      const back = await call<Envelope>("POST", `/accessories/${row.id}/checkin`, {}, alice.token);
      assert.equal(back.body.messages, "AccessoryCheckout not found");
      assert.equal(
        (await call<List<Row>>("GET", `/accessories/${theirs}/checkedout`)).body.total,
        1,
        "the refused check-in rolled back",
      );

      const suites = await category(inventory, "license", "co suites");
      const license = await created(inventory, "/licenses", {
        name: "Globex suite",
        seats: 1,
        category_id: suites,
        company_id: globex,
      });
      const seats = await call("GET", `/licenses/${license}/seats`, undefined, alice.token);
      assert.deepEqual(seats.body, { status: "error", messages: "License not found", payload: null });
    });
  },
  { apiThrottlePerMinute: 0, fullMultipleCompaniesSupport: true },
);

forEachInventory("inventory API: companies without full multiple companies support", (inventory) => {
  test("the default, as Snipe-IT's: every caller sees every company's rows", async () => {
    const f = await assetFixture(inventory, "off");
    const acme = await created(inventory, "/companies", { name: "Acme" });
    const globex = await created(inventory, "/companies", { name: "Globex" });
    const alice = await staff(inventory, "alice", acme);
    const theirs = await createAsset(inventory, f, "OFF-GLOBEX", { company_id: globex });
    const listed = await api<List<Row>>(inventory, "GET", `/hardware?model_id=${f.modelId}`, {
      token: alice.token,
    });
    assert.deepEqual(
      listed.body.rows.map((row) => row.id),
      [theirs],
    );
    const made = await api<Envelope<Row>>(inventory, "POST", "/hardware", {
      token: alice.token,
      body: { asset_tag: "OFF-NEW", model_id: f.modelId, status_id: f.deployable, company_id: globex },
    });
    assert.equal(made.body.payload.company_id, globex);
  });
});
