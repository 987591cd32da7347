import assert from "node:assert/strict";
import { before, test } from "node:test";
import { describeFindings, fuzzService } from "../../../core/test/fuzz/run.ts";
import { fuzzSettings } from "../../../core/test/fuzz/settings.ts";
import { assetFixture, createAsset } from "../support/assets.ts";
import { forEachInventory } from "../support/inventory.ts";
import { category, created } from "../support/items.ts";

// Malformed requests to every route of the inventory's own OpenAPI document (seeded and bounded:
// see core/test/fuzz/settings.ts to run longer or with another seed).

const FILE = "packages/inventory/test/fuzz/api.test.ts";

forEachInventory("inventory fuzz: no route answers 5xx or stalls on malformed requests", (inventory) => {
  // Seeded objects by the path's resource (the segment after /api/v1/ or /api/), and by parameter.
  const byResource: Record<string, string[]> = {};
  const byParameter: Record<string, string[]> = {};

  before(async () => {
    const fixture = await assetFixture(inventory, "fz");
    const asset = await createAsset(inventory, fixture, "FZ-1");
    const make = async (path: string, body: Record<string, unknown>) =>
      String(await created(inventory, path, body));
    const kinds = ["accessory", "consumable", "component", "license"] as const;
    const categories = Object.fromEntries(
      await Promise.all(kinds.map(async (kind) => [kind, await category(inventory, kind, `fz ${kind}s`)])),
    );
    Object.assign(byResource, {
      hardware: [String(asset)],
      models: [String(fixture.modelId)],
      categories: [String(fixture.categoryId)],
      manufacturers: [String(fixture.manufacturerId)],
      statuslabels: [String(fixture.deployable), String(fixture.archived)],
      locations: [String(fixture.locationId), String(fixture.otherLocationId)],
      // Never the admin whose token sends the requests (id 1).
      users: [String(fixture.userId)],
      // Never the token that sends the requests.
      account: ["999999"],
      companies: [await make("/companies", { name: "fz company" })],
      departments: [await make("/departments", { name: "fz department" })],
      suppliers: [await make("/suppliers", { name: "fz supplier" })],
      depreciations: [await make("/depreciations", { name: "fz depreciation", months: 36 })],
      groups: [await make("/groups", { name: "fz group", permissions: { "assets.view": "1" } })],
      accessories: [
        await make("/accessories", { name: "fz accessory", qty: 3, category_id: categories.accessory }),
      ],
      consumables: [
        await make("/consumables", { name: "fz consumable", qty: 3, category_id: categories.consumable }),
      ],
      components: [
        await make("/components", { name: "fz component", qty: 3, category_id: categories.component }),
      ],
      licenses: [await make("/licenses", { name: "fz license", seats: 2, category_id: categories.license })],
      fields: [await make("/fields", { name: "fz field", element: "text" })],
      fieldsets: [await make("/fieldsets", { name: "fz fieldset" })],
    });
    Object.assign(byParameter, {
      model_id: [String(fixture.modelId)],
      seat: ["1"],
      file_id: ["1"],
      type: [...kinds, "asset"],
      "*": ["FZ-1"],
    });
  });

  test("every operation of /api/v1/openapi.json, as the admin, anonymously and with junk credentials", async (t) => {
    const document = await (await fetch(`${inventory.url}/api/v1/openapi.json`)).json();
    const settings = fuzzSettings({ perRoute: 8 });
    const run = await fuzzService({
      url: inventory.url,
      document,
      settings,
      healthPath: "/health",
      target: {
        adminAuthorization: `Bearer ${inventory.adminToken}`,
        validValues: (name, path) => {
          if (name !== "id") return byParameter[name] ?? [];
          const resource = /^\/api\/(?:v1\/)?([^/]+)/.exec(path)?.[1] ?? "";
          return byResource[resource] ?? ["1"];
        },
        junkHeaders: (random) => ({
          "x-api-strict-status": random.pick(["1", "0", "junk"]),
          "x-requested-with": random.pick(["XMLHttpRequest", ""]),
        }),
      },
    });
    t.diagnostic(`seed ${settings.seed}, ${run.sent} requests, ${run.findings.length} problem(s)`);
    assert.ok(run.sent > 0, "no request was sent");
    assert.equal(run.findings.length, 0, describeFindings(run, settings, FILE));
  });
});
