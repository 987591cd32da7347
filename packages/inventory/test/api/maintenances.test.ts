import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { created, logged, STRICT } from "../support/items.ts";

type Row = Record<string, unknown> & { id: number };

forEachInventory("inventory API: asset maintenances", (inventory) => {
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  let f: AssetFixture;
  let asset = 0;
  let other = 0;
  let supplier = 0;
  let repair = 0;

  test("create answers the stored row; show answers Snipe-IT's maintenance object", async () => {
    f = await assetFixture(inventory, "mt");
    const company = await created(inventory, "/companies", { name: "Maint Co" });
    asset = await createAsset(inventory, f, "MT-1", {
      name: "Laptop <1>",
      serial: "SER-1",
      company_id: company,
      rtd_location_id: f.locationId,
    });
    other = await createAsset(inventory, f, "MT-2");
    supplier = await created(inventory, "/suppliers", { name: "Fixers & Co" });
    const made = await call("POST", "/maintenances", {
      asset_id: asset,
      supplier_id: supplier,
      asset_maintenance_type: "repair",
      title: "Screen <cracked>",
      is_warranty: true,
      start_date: "2025-01-01",
      completion_date: "2025-01-11",
      cost: "1234.5",
      notes: "replaced panel",
    });
    assert.equal(made.body.status, "success", JSON.stringify(made.body));
    assert.equal(made.body.messages, "Asset Maintenance created successfully.");
    const raw = made.body.payload;
    repair = raw.id as number;
    assert.equal(raw.asset_id, asset);
    assert.equal(raw.asset_maintenance_type, "Repair", "the type is stored as Snipe-IT names it");
    assert.equal(raw.asset_maintenance_time, 10);
    assert.equal(raw.start_date, "2025-01-01");
    assert.equal(raw.created_by, 1);
    assert.match(String(raw.created_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

    const shown = await call<Row>("GET", `/maintenances/${repair}`);
    const { created_at, updated_at, asset: assetObject, ...rest } = shown.body;
    assert.ok(created_at && updated_at);
    assert.equal((assetObject as Row).id, asset);
    assert.equal((assetObject as Row).name, "Laptop &lt;1&gt;");
    assert.equal((assetObject as Row).asset_tag, "MT-1");
    assert.equal((assetObject as Row).serial, "SER-1");
    assert.equal((assetObject as Row).deleted_at, null);
    assert.deepEqual(rest, {
      id: repair,
      model: { id: f.modelId, name: "mt X1 mt-MN" },
      status_label: {
        id: f.deployable,
        name: "mt deployable",
        status_type: "deployable",
        status_meta: "deployable",
      },
      company: { id: company, name: "Maint Co" },
      title: "Screen &lt;cracked&gt;",
      location: { id: f.locationId, name: "mt HQ" },
      rtd_location: { id: f.locationId, name: "mt HQ" },
      notes: "replaced panel",
      supplier: { id: supplier, name: "Fixers &amp; Co" },
      cost: "1,234.50",
      asset_maintenance_type: "Repair",
      start_date: { date: "2025-01-01", formatted: "2025-01-01" },
      asset_maintenance_time: 10,
      completion_date: { date: "2025-01-11", formatted: "2025-01-11" },
      user_id: { id: 1, name: "Admin" },
      created_by: { id: 1, name: "Admin" },
      is_warranty: true,
      available_actions: { update: true, delete: true },
    });
    assert.equal(await logged(inventory, "maintenance", repair, "create"), 1);
  });

  test("validation in Laravel's words; bad input is never a 500", async () => {
    const empty = await call("POST", "/maintenances", {});
    assert.deepEqual(empty.body, {
      status: "error",
      messages: {
        asset_id: ["The asset id field is required."],
        asset_maintenance_type: ["The asset maintenance type field is required."],
        title: ["The title field is required."],
        start_date: ["The start date field is required."],
      },
      payload: null,
    });
    const base = {
      asset_id: asset,
      asset_maintenance_type: "Upgrade",
      title: "RAM",
      start_date: "2025-02-01",
    };
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ asset_id: 999999 }, { asset_id: ["The selected asset id is invalid."] }],
      [{ supplier_id: 999999 }, { supplier_id: ["The selected supplier id is invalid."] }],
      [
        { asset_maintenance_type: "Polish" },
        { asset_maintenance_type: ["The selected asset maintenance type is invalid."] },
      ],
      [{ title: "x".repeat(101) }, { title: ["The title field must not be greater than 100 characters."] }],
      [{ start_date: "not a date" }, { start_date: ["The start date field must be a valid date."] }],
      [
        { completion_date: "2025-01-01" },
        { completion_date: ["The completion date field must be a date after or equal to start date."] },
      ],
      [{ cost: "a lot" }, { cost: ["The cost field must be a number."] }],
      [{ is_warranty: "maybe" }, { is_warranty: ["The is warranty field must be true or false."] }],
    ];
    for (const [change, messages] of cases) {
      const answer = await call("POST", "/maintenances", { ...base, ...change });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body.messages, messages, JSON.stringify(change));
    }
    const strict = await api(inventory, "POST", "/maintenances", { body: {}, headers: STRICT });
    assert.equal(strict.status, 422);
    for (const raw of ["[1]", '"x"', "{"])
      assert.ok(
        [200, 422].includes((await api(inventory, "POST", "/maintenances", { rawBody: raw })).status),
      );
    assert.deepEqual((await call("GET", "/maintenances/999999")).body, {
      status: "error",
      messages: "AssetMaintenance not found",
      payload: null,
    });
    assert.equal((await call("GET", "/maintenances/abc")).body.messages, "AssetMaintenance not found");
  });

  test("list: paging, sorting, search and the asset_id, supplier_id and type filters; the older path too", async () => {
    for (const [assetId, type, title] of [
      [other, "Calibration", "Calibrate screen"],
      [other, "PAT test", "Yearly PAT"],
      [asset, "Maintenance", "Clean fans"],
    ] as const)
      await created(inventory, "/maintenances", {
        asset_id: assetId,
        asset_maintenance_type: type,
        title,
        start_date: "2025-03-01",
      });
    const all = await call<List<Row>>("GET", "/maintenances?sort=title&order=asc");
    assert.equal(all.body.total, 4);
    assert.deepEqual(
      all.body.rows.map((row) => row.title),
      ["Calibrate screen", "Clean fans", "Screen &lt;cracked&gt;", "Yearly PAT"],
    );
    const ofAsset = await call<List<Row>>(`GET`, `/maintenances?asset_id=${asset}`);
    assert.equal(ofAsset.body.total, 2);
    assert.ok(ofAsset.body.rows.every((row) => (row.asset as Row).id === asset));
    assert.equal((await call<List>("GET", `/maintenances?supplier_id=${supplier}`)).body.total, 1);
    assert.equal((await call<List>("GET", "/maintenances?asset_maintenance_type=PAT%20test")).body.total, 1);
    assert.equal((await call<List>("GET", "/maintenances?asset_id=abc")).body.total, 0);
    const searched = await call<List<Row>>("GET", "/maintenances?search=calib%20OR%20fans");
    assert.equal(searched.body.total, 2);
    // Through what is related, as Snipe-IT searches: the asset's tag, its model, the supplier.
    const byTag = await call<List<Row>>("GET", "/maintenances?search=mt-2&sort=title&order=asc");
    assert.deepEqual(
      byTag.body.rows.map((row) => row.title),
      ["Calibrate screen", "Yearly PAT"],
    );
    assert.equal((await call<List>("GET", "/maintenances?search=X1")).body.total, 4);
    assert.equal((await call<List>("GET", "/maintenances?search=fixers")).body.total, 1);
    assert.equal((await call<List>("GET", "/maintenances?search=ser-1")).body.total, 2);
    assert.equal((await call<List>("GET", "/maintenances?search=nothing%25like%25this")).body.total, 0);
    const page = await call<List<Row>>("GET", "/maintenances?sort=asset_tag&order=desc&limit=1&offset=1");
    assert.equal(page.body.total, 4);
    assert.equal(page.body.rows.length, 1);
    assert.equal((page.body.rows[0].asset as Row).asset_tag, "MT-2");
    for (const sort of ["asset_name", "serial", "status_label", "supplier", "created_by", "user_id", "cost"])
      assert.equal((await call<List>("GET", `/maintenances?sort=${sort}`)).body.total, 4, sort);
    const legacy = await call<List<Row>>("GET", "/hardware/maintenances?sort=title&order=asc");
    assert.deepEqual(legacy.body, all.body);
    assert.equal((await call<Row>("GET", `/hardware/maintenances/${repair}`)).body.id, repair);
  });

  test("update recomputes the days; delete removes it; both are logged", async () => {
    const patched = await call("PATCH", `/maintenances/${repair}`, { completion_date: "2025-01-04" });
    assert.equal(patched.body.messages, "Asset Maintenance edited successfully.");
    assert.equal(patched.body.payload.asset_maintenance_time, 3);
    const cleared = await call("PUT", `/maintenances/${repair}`, { completion_date: null, cost: 0 });
    assert.equal(cleared.body.payload.asset_maintenance_time, null);
    assert.equal(cleared.body.payload.cost, null, "a cost of 0 is stored as none (Snipe-IT's quirk)");
    const backwards = await call("PATCH", `/maintenances/${repair}`, {
      start_date: "2026-01-01",
      completion_date: "2025-12-31",
    });
    assert.equal(backwards.body.status, "error");
    assert.equal((await call<Row>("GET", `/maintenances/${repair}`)).body.title, "Screen &lt;cracked&gt;");
    assert.equal(await logged(inventory, "maintenance", repair, "update"), 2);

    const gone = await call("DELETE", `/maintenances/${repair}`);
    assert.deepEqual(gone.body, {
      status: "success",
      messages: "The asset maintenance was deleted successfully.",
      payload: null,
    });
    assert.equal((await call("GET", `/maintenances/${repair}`)).body.messages, "AssetMaintenance not found");
    assert.equal(
      (await call("DELETE", `/maintenances/${repair}`)).body.messages,
      "AssetMaintenance not found",
    );
    assert.equal(await logged(inventory, "maintenance", repair, "delete"), 1);
    assert.equal((await call<List>("GET", `/maintenances?asset_id=${asset}`)).body.total, 1);
  });

  test("permissions: reading takes assets.view, every write assets.edit", async () => {
    const viewer = await userWithToken(inventory, "mt-viewer", { "assets.view": "1" });
    const editor = await userWithToken(inventory, "mt-editor", { "assets.view": "1", "assets.edit": "1" });
    const stranger = await userWithToken(inventory, "mt-stranger", { "users.view": "1" });
    const body = {
      asset_id: other,
      asset_maintenance_type: "Repair",
      title: "Hinge",
      start_date: "2025-04-01",
    };
    assert.equal((await call("GET", "/maintenances", undefined, stranger.token)).status, 403);
    const list = await call<List<Row>>("GET", "/maintenances", undefined, viewer.token);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.rows[0].available_actions, { update: false, delete: false });
    assert.equal((await call("POST", "/maintenances", body, viewer.token)).status, 403);
    const made = await call("POST", "/maintenances", body, editor.token);
    assert.equal(made.body.status, "success");
    const id = made.body.payload.id as number;
    assert.equal((await call("DELETE", `/maintenances/${id}`, undefined, viewer.token)).status, 403);
    assert.equal(
      (await call("DELETE", `/maintenances/${id}`, undefined, editor.token)).body.status,
      "success",
    );
  });
});

forEachInventory(
  "inventory API: maintenances under full multiple companies support",
  (inventory) => {
    test("a maintenance belongs to its asset's company", async () => {
      const f = await assetFixture(inventory, "fm");
      const acme = await created(inventory, "/companies", { name: "Acme" });
      const globex = await created(inventory, "/companies", { name: "Globex" });
      const ours = await createAsset(inventory, f, "FM-ACME", { company_id: acme });
      const theirs = await createAsset(inventory, f, "FM-GLOBEX", { company_id: globex });
      const body = (assetId: number) => ({
        asset_id: assetId,
        asset_maintenance_type: "Repair",
        title: `Fix ${assetId}`,
        start_date: "2025-05-01",
      });
      await created(inventory, "/maintenances", body(ours));
      const hidden = await created(inventory, "/maintenances", body(theirs));
      const alice = await userWithToken(inventory, "fm-alice", { "assets.view": "1", "assets.edit": "1" });
      await api(inventory, "PATCH", `/users/${alice.id}`, { body: { company_id: acme } });
      const call = <T = Envelope>(method: string, path: string, payload?: unknown) =>
        api<T>(inventory, method, path, { body: payload, token: alice.token });
      const list = await call<List<Row>>("GET", "/maintenances");
      assert.deepEqual(
        list.body.rows.map((row) => (row.asset as Row).asset_tag),
        ["FM-ACME"],
      );
      assert.equal(
        (await call("GET", `/maintenances/${hidden}`)).body.messages,
        "AssetMaintenance not found",
      );
      assert.equal(
        (await call("DELETE", `/maintenances/${hidden}`)).body.messages,
        "AssetMaintenance not found",
      );
      assert.deepEqual((await call("POST", "/maintenances", body(theirs))).body.messages, {
        asset_id: ["The selected asset id is invalid."],
      });
      assert.equal((await call("POST", "/maintenances", body(ours))).body.status, "success");
    });
  },
  { apiThrottlePerMinute: 0, fullMultipleCompaniesSupport: true },
);
