import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { category, created } from "../support/items.ts";

// Check-outs of counted stock are bounded in quantity, and under full multiple companies support
// nothing goes to another company's user or asset, and the activity report keeps to the company.

type Entry = { item: { id: number; type: string } | null; target: { id: number; type: string } | null };

forEachInventory(
  "inventory API: check-out quantities and targets",
  (inventory) => {
    let f: AssetFixture;
    let acme = 0;
    let globex = 0;
    let alice: { id: number; token: string };
    let bob: { id: number; token: string };
    const ids: Record<string, number> = {};
    const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
      api<T>(inventory, method, path, { body, token });

    test("fixture: two companies, their people and assets, Acme's stock", async () => {
      f = await assetFixture(inventory, "cl");
      acme = await created(inventory, "/companies", { name: "Acme" });
      globex = await created(inventory, "/companies", { name: "Globex" });
      alice = await userWithToken(inventory, "alice", {
        "assets.view": "1",
        "users.view": "1",
        "accessories.view": "1",
        "accessories.checkout": "1",
        "consumables.view": "1",
        "consumables.checkout": "1",
        "components.view": "1",
        "components.checkout": "1",
        "licenses.view": "1",
        "licenses.checkout": "1",
        "reports.view": "1",
      });
      bob = await userWithToken(inventory, "bob", {});
      for (const [user, company] of [
        [alice.id, acme],
        [bob.id, globex],
      ])
        await call("PATCH", `/users/${user}`, { company_id: company });
      ids.acmeAsset = await createAsset(inventory, f, "CL-ACME", { company_id: acme });
      ids.globexAsset = await createAsset(inventory, f, "CL-GLOBEX", { company_id: globex });
      const stock = { qty: 5000, company_id: acme };
      ids.accessory = await created(inventory, "/accessories", {
        name: "Acme cables",
        category_id: await category(inventory, "accessory", "Cables"),
        ...stock,
      });
      ids.consumable = await created(inventory, "/consumables", {
        name: "Acme paper",
        category_id: await category(inventory, "consumable", "Paper"),
        ...stock,
      });
      ids.component = await created(inventory, "/components", {
        name: "Acme RAM",
        category_id: await category(inventory, "component", "RAM"),
        ...stock,
      });
      ids.license = await created(inventory, "/licenses", {
        name: "Acme suite",
        seats: 2,
        category_id: await category(inventory, "license", "Suites"),
        company_id: acme,
      });
    });

    test("a check-out quantity above 1000 is refused with the field's message; 1000 is taken", async () => {
      for (const [path, body] of [
        [`/accessories/${ids.accessory}/checkout`, { assigned_user: alice.id }],
        [`/consumables/${ids.consumable}/checkout`, { assigned_to: alice.id }],
      ] as const) {
        const refused = await call("POST", path, { ...body, checkout_qty: 5000 });
        assert.equal(refused.status, 200, path);
        assert.deepEqual(refused.body, {
          status: "error",
          messages: { checkout_qty: ["The checkout qty field must not be greater than 1000."] },
          payload: null,
        });
        const taken = await call("POST", path, { ...body, checkout_qty: 1000 });
        assert.equal(taken.body.status, "success", `${path}: ${JSON.stringify(taken.body)}`);
      }
      const accessory = await call<{ remaining_qty: number }>("GET", `/accessories/${ids.accessory}`);
      assert.equal(accessory.body.remaining_qty, 4000, "only the accepted check-out took units");
    });

    test("another company's user or asset is no check-out target, whatever the item", async () => {
      const refusals: [string, string, Record<string, unknown>, unknown][] = [
        ["POST", `/accessories/${ids.accessory}/checkout`, { assigned_user: bob.id }, "User not found"],
        [
          "POST",
          `/accessories/${ids.accessory}/checkout`,
          { checkout_to_type: "asset", assigned_asset: ids.globexAsset },
          "Asset not found",
        ],
        ["POST", `/consumables/${ids.consumable}/checkout`, { assigned_to: bob.id }, "No user found"],
        ["POST", `/licenses/${ids.license}/checkout`, { assigned_to: bob.id }, "Target not found"],
        ["POST", `/licenses/${ids.license}/checkout`, { asset_id: ids.globexAsset }, "Target not found"],
      ];
      for (const [method, path, body, message] of refusals) {
        const answer = await call(method, path, body, alice.token);
        assert.deepEqual(answer.body, { status: "error", messages: message, payload: null }, path);
      }
      const seats = await call<List<{ id: number }>>(
        "GET",
        `/licenses/${ids.license}/seats`,
        undefined,
        alice.token,
      );
      const seat = await call(
        "PATCH",
        `/licenses/${ids.license}/seats/${seats.body.rows[0].id}`,
        {
          assigned_to: bob.id,
        },
        alice.token,
      );
      assert.deepEqual(seat.body, { status: "error", messages: "Target not found", payload: null });
      const component = await call(
        "POST",
        `/components/${ids.component}/checkout`,
        { assigned_to: ids.globexAsset, assigned_qty: 1 },
        alice.token,
      );
      assert.deepEqual(component.body, {
        status: "error",
        messages: null,
        payload: { assigned_to: ["The selected assigned to is invalid."] },
      });
      const own = await call(
        "POST",
        `/components/${ids.component}/checkout`,
        { assigned_to: ids.acmeAsset, assigned_qty: 1 },
        alice.token,
      );
      assert.equal(own.body.status, "success", "the caller's own company's asset is a target");
      const mine = await call(
        "POST",
        `/accessories/${ids.accessory}/checkout`,
        { assigned_user: alice.id },
        alice.token,
      );
      assert.equal(mine.body.status, "success");
    });

    test("the activity report shows no entry about another company's rows", async () => {
      const out = await call("POST", `/hardware/${ids.globexAsset}/checkout`, {
        checkout_to_type: "user",
        assigned_user: bob.id,
      });
      assert.equal(out.body.status, "success");
      const everything = await call<List<Entry>>("GET", "/reports/activity?limit=500");
      const theirs = (entry: Entry) =>
        [entry.item, entry.target].some(
          (side) =>
            (side?.type === "asset" && side.id === ids.globexAsset) ||
            (side?.type === "user" && side.id === bob.id),
        );
      assert.ok(everything.body.rows.some(theirs), "the superuser sees Globex's entries");
      const report = await call<List<Entry>>("GET", "/reports/activity?limit=500", undefined, alice.token);
      assert.equal(report.status, 200);
      assert.deepEqual(report.body.rows.filter(theirs), []);
      assert.equal(report.body.total, report.body.rows.length, "the total counts what is shown");
      assert.ok(
        report.body.rows.some((entry) => entry.item?.type === "accessory" && entry.item.id === ids.accessory),
        "Acme's entries are shown",
      );
    });
  },
  { apiThrottlePerMinute: 0, fullMultipleCompaniesSupport: true },
);
