import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

type Asset = Record<string, unknown> & { id: number; asset_tag: string };

forEachInventory("inventory API: hardware", (inventory) => {
  let f: AssetFixture;
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });

  test("fixture", async () => {
    f = await assetFixture(inventory, "hw");
  });

  test("create answers the raw row; show answers the asset object", async () => {
    const created = await call<Envelope<Record<string, unknown>>>("POST", "/hardware", {
      asset_tag: "HW-1",
      name: "Laptop <one>",
      serial: "SER-1",
      model_id: f.modelId,
      status_id: f.deployable,
      purchase_date: "2024-01-15",
      purchase_cost: "1234.5",
      warranty_months: 24,
      rtd_location_id: f.locationId,
      requestable: true,
    });
    assert.equal(created.status, 200);
    assert.equal(created.body.status, "success");
    assert.equal(created.body.messages, "Asset created successfully. :)");
    const raw = created.body.payload;
    assert.equal(raw.model_id, f.modelId, "flat foreign keys");
    assert.equal(raw.asset_tag, "HW-1");
    assert.equal(raw.location_id, f.locationId, "a new asset starts at its default location");
    assert.match(String(raw.created_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

    const shown = await call<Asset>("GET", `/hardware/${raw.id}`);
    const asset = shown.body;
    assert.equal(asset.name, "Laptop &lt;one&gt;");
    assert.deepEqual(asset.model, { id: f.modelId, name: "hw X1" });
    assert.equal(asset.model_number, "hw-MN");
    assert.deepEqual(asset.category, { id: f.categoryId, name: "hw laptops" });
    assert.deepEqual(asset.manufacturer, { id: f.manufacturerId, name: "hw Maker" });
    assert.deepEqual(asset.status_label, {
      id: f.deployable,
      name: "hw deployable",
      status_type: "deployable",
      status_meta: "deployable",
    });
    assert.deepEqual(
      asset.asset_eol_date,
      { date: "2027-01-15", formatted: "2027-01-15" },
      "model EOL months",
    );
    assert.equal(asset.eol, "36 months");
    assert.equal(asset.warranty_months, "24 months");
    assert.deepEqual(asset.warranty_expires, { date: "2026-01-15", formatted: "2026-01-15" });
    assert.equal(asset.purchase_cost, "1,234.50");
    assert.deepEqual(asset.location, { id: f.locationId, name: "hw HQ" });
    assert.deepEqual(asset.rtd_location, { id: f.locationId, name: "hw HQ" });
    assert.equal(asset.assigned_to, null);
    assert.equal(asset.requestable, true);
    assert.equal(asset.byod, false);
    assert.equal(asset.user_can_checkout, true);
    assert.deepEqual(asset.custom_fields, {});
    assert.deepEqual(asset.available_actions, {
      checkout: true,
      checkin: false,
      clone: true,
      restore: false,
      update: true,
      audit: true,
      delete: true,
    });
    assert.deepEqual(asset.created_by, { id: 1, name: "Admin" });
  });

  test("validation messages, unique tags, bad input never 500 and writes nothing", async () => {
    const missing = await call("POST", "/hardware", {});
    assert.deepEqual(missing.body, {
      status: "error",
      messages: {
        asset_tag: ["The asset tag field is required."],
        model_id: ["The model id field is required."],
        status_id: ["The status id field is required."],
      },
      payload: null,
    });
    const types = await call("POST", "/hardware", {
      asset_tag: "HW-T",
      model_id: "abc",
      status_id: 99999,
      company_id: [1],
      purchase_date: "2024-02-31",
      purchase_cost: "cheap",
      requestable: "maybe",
    });
    assert.deepEqual(types.body.messages, {
      model_id: ["The model id field must be an integer."],
      status_id: ["The selected status id is invalid."],
      company_id: ["The company id field must be an integer."],
      purchase_date: ["The purchase date field must be a valid date."],
      purchase_cost: ["The purchase cost field must be a number."],
      requestable: ["The requestable field must be true or false."],
    });
    const duplicate = await call("POST", "/hardware", {
      asset_tag: "HW-1",
      model_id: f.modelId,
      status_id: f.deployable,
    });
    assert.deepEqual(duplicate.body.messages, { asset_tag: ["The asset tag must be unique."] });
    const other = await createAsset(inventory, f, "HW-2");
    const taken = await call("PATCH", `/hardware/${other}`, { asset_tag: "HW-1" });
    assert.deepEqual(taken.body.messages, { asset_tag: ["The asset tag has already been taken."] });
    const emptied = await call("PUT", `/hardware/${other}`, { asset_tag: "" });
    assert.deepEqual(emptied.body.messages, { asset_tag: ["The asset tag field is required."] });
    const malformed = await api<Envelope>(inventory, "POST", "/hardware", { rawBody: "{not json" });
    assert.equal(malformed.status, 422);
    assert.deepEqual(malformed.body, { status: "error", messages: "Invalid JSON", payload: null });
    const undeployable = await call("POST", "/hardware", {
      asset_tag: "HW-U",
      model_id: f.modelId,
      status_id: f.undeployable,
      assigned_user: f.userId,
    });
    assert.deepEqual(undeployable.body.messages, {
      status_id: ["That asset status is not deployable. This asset cannot be checked out."],
    });
    const listed = await call<List>("GET", "/hardware?asset_tag=HW-U");
    assert.equal(listed.body.total, 0, "a refused create stores nothing");
    const strict = await api(inventory, "POST", "/hardware", {
      body: {},
      headers: { "x-api-strict-status": "1" },
    });
    assert.equal(strict.status, 422);
  });

  test("update is partial on PATCH and PUT; unknown ids answer Snipe-IT's messages", async () => {
    const id = await createAsset(inventory, f, "HW-UPD", { name: "Before" });
    const patched = await call<Envelope<Record<string, unknown>>>("PUT", `/hardware/${id}`, {
      name: "After",
      asset_eol_date: "2030-01-01",
    });
    assert.equal(patched.body.messages, "Asset updated successfully.");
    assert.equal(patched.body.payload.name, "After");
    assert.equal(patched.body.payload.asset_tag, "HW-UPD");
    assert.equal(patched.body.payload.asset_eol_date, "2030-01-01");
    assert.ok(patched.body.payload.eol_explicit, "an explicit EOL date is kept");
    assert.deepEqual((await call("PATCH", "/hardware/99999", { name: "x" })).body, {
      status: "error",
      messages: "Asset not found",
      payload: null,
    });
    assert.deepEqual((await call("GET", "/hardware/99999")).body, {
      status: "error",
      messages: "Asset does not exist.",
      payload: null,
    });
    assert.equal((await call<Envelope>("GET", "/hardware/abc")).body.messages, "Asset does not exist.");
    assert.equal((await call<Envelope>("DELETE", "/hardware/99999")).body.messages, "Asset does not exist.");
  });

  test("bytag (tags with /) and byserial answer their shapes", async () => {
    const id = await createAsset(inventory, f, "HW/SLASH/1", { serial: "DUP-SER" });
    await createAsset(inventory, f, "HW-SER-2", { serial: "DUP-SER" });
    const byTag = await call<Asset>("GET", "/hardware/bytag/HW/SLASH/1");
    assert.equal(byTag.body.id, id);
    assert.equal(byTag.body.asset_tag, "HW/SLASH/1");
    const withDeleted = await call<List>("GET", "/hardware/bytag/HW/SLASH/1?deleted=true");
    assert.equal(withDeleted.body.total, 1);
    assert.equal(withDeleted.body.rows[0].id, id);
    assert.deepEqual((await call("GET", "/hardware/bytag/NOPE")).body, {
      status: "error",
      messages: "Asset does not exist.",
      payload: null,
    });
    const bySerial = await call<List>("GET", "/hardware/byserial/DUP-SER");
    assert.equal(bySerial.body.total, 2);
    assert.equal((await call<Envelope>("GET", "/hardware/byserial/NOPE")).body.status, "error");
  });

  test("list: filters, status meta filter, search over related names, relation sorts", async () => {
    const prefix = "lst";
    const g = await assetFixture(inventory, prefix);
    const rtd = await createAsset(inventory, g, "LST-RTD", { name: "Zulu" });
    const deployed = await createAsset(inventory, g, "LST-DEP", { name: "Alpha", assigned_user: g.userId });
    const pending = await createAsset(inventory, g, "LST-PEN", {
      status_id: g.pending,
      byod: true,
      name: "Mike",
    });
    const archived = await createAsset(inventory, g, "LST-ARC", { status_id: g.archived });
    const ids = (answer: { body: List }) => answer.body.rows.map((row) => row.id).sort();
    const list = (query: string) => call<List>("GET", `/hardware?model_id=${g.modelId}&${query}`);

    assert.deepEqual(ids(await list("")), [rtd, deployed, pending].sort(), "archived hidden by default");
    assert.deepEqual(ids(await list("status=RTD")), [rtd]);
    assert.deepEqual(ids(await list("status=Deployed")), [deployed]);
    assert.deepEqual(ids(await list("status=Pending")), [pending]);
    assert.deepEqual(ids(await list("status=Archived")), [archived]);
    assert.deepEqual(ids(await list("status=byod")), [pending]);
    assert.deepEqual(ids(await list(`status_id=${g.archived}`)), [archived]);
    assert.deepEqual(ids(await call<List>("GET", `/hardware?model_id[]=${g.modelId}&status=Archived`)), [
      archived,
    ]);
    assert.deepEqual(ids(await call<List>("GET", `/hardware?category_id=${g.categoryId},99999&status=RTD`)), [
      rtd,
    ]);
    assert.deepEqual(
      ids(await call<List>("GET", `/hardware?manufacturer_id=${g.manufacturerId}&status=Pending`)),
      [pending],
    );
    assert.deepEqual(
      ids(await call<List>("GET", `/hardware?assigned_to=${g.userId}&assigned_type=App%5CModels%5CUser`)),
      [deployed],
    );
    assert.deepEqual(ids(await call<List>("GET", `/hardware?location_id=${g.locationId}`)), [deployed]);
    assert.equal(
      (await call<List>("GET", "/hardware?company_id=abc")).body.total,
      0,
      "a bad id matches nothing",
    );
    assert.deepEqual(ids(await call<List>("GET", "/hardware?search=lstFirst")), [deployed], "holder's name");
    assert.deepEqual(ids(await call<List>("GET", "/hardware?search=lst%20pending")), [pending], "label name");
    assert.equal((await call<List>("GET", "/hardware?search=lst%20laptops")).body.total, 3, "category name");
    const byName = await list("sort=name&order=asc");
    assert.deepEqual(
      byName.body.rows.map((row) => row.id),
      [deployed, pending, rtd],
      "Alpha, Mike, Zulu",
    );
    for (const sort of [
      "model",
      "category",
      "manufacturer",
      "status_label",
      "location",
      "assigned_to",
      "bogus",
    ]) {
      const sorted = await list(`sort=${sort}`);
      assert.equal(sorted.status, 200, sort);
      assert.equal(sorted.body.total, 3, sort);
    }
    const paged = await list("limit=1&offset=1");
    assert.equal(paged.body.total, 3);
    assert.equal(paged.body.rows.length, 1);
  });

  test("delete checks in first, keeps the asset readable; restore puts the message in the payload", async () => {
    const id = await createAsset(inventory, f, "HW-DEL", { assigned_user: f.userId });
    const deleted = await call("DELETE", `/hardware/${id}`);
    assert.deepEqual(deleted.body, {
      status: "success",
      messages: "The asset was deleted successfully.",
      payload: null,
    });
    const shown = await call<Asset>("GET", `/hardware/${id}`);
    assert.notEqual(shown.body.deleted_at, null);
    assert.equal(shown.body.assigned_to, null, "checked in before the delete");
    assert.equal((shown.body.available_actions as Record<string, boolean>).restore, true);
    const trashed = await call<List>("GET", "/hardware?status=Deleted&asset_tag=HW-DEL");
    assert.equal(trashed.body.total, 1);
    assert.equal((await call<List>("GET", "/hardware?asset_tag=HW-DEL")).body.total, 0);
    assert.equal((await call<Envelope>("DELETE", `/hardware/${id}`)).body.messages, "Asset does not exist.");
    assert.equal(
      (await call<Envelope>("PATCH", `/hardware/${id}`, { name: "x" })).body.messages,
      "Asset not found",
    );

    const reused = await createAsset(inventory, f, "HW-DEL");
    assert.deepEqual((await call("POST", `/hardware/${id}/restore`)).body, {
      status: "error",
      messages: null,
      payload: "Error restoring asset: The asset tag must be unique.",
    });
    await call("DELETE", `/hardware/${reused}`);
    assert.deepEqual((await call("POST", `/hardware/${id}/restore`)).body, {
      status: "success",
      messages: null,
      payload: "Asset restored successfully.",
    });
    assert.deepEqual((await call("POST", `/hardware/${id}/restore`)).body, {
      status: "error",
      messages: null,
      payload: "The Asset was not deleted and therefore cannot be restored",
    });
    const log = await call<List>("GET", `/reports/activity?item_type=asset&item_id=${id}`);
    const actions = log.body.rows.map((row) => row.action_type);
    assert.deepEqual(actions.slice(0, 3), ["restore", "delete", "checkin from"]);
  });

  test("assets make resources in use: model, status label, location, company, user refuse delete", async () => {
    const g = await assetFixture(inventory, "use");
    const company = await call<Envelope<{ id: number }>>("POST", "/companies", { name: "use Co" });
    const id = await createAsset(inventory, g, "USE-1", {
      company_id: company.body.payload.id,
      assigned_user: g.userId,
    });
    const located = await createAsset(inventory, g, "USE-2", { rtd_location_id: g.otherLocationId });
    const refused = async (path: string, pattern: RegExp) => {
      const answer = await call<Envelope>("DELETE", path);
      assert.equal(answer.body.status, "error", path);
      assert.match(String(answer.body.messages), pattern, path);
    };
    await refused(`/models/${g.modelId}`, /^This model is currently associated with one or more assets/);
    await refused(
      `/statuslabels/${g.deployable}`,
      /^This Status Label is currently associated with at least one Asset/,
    );
    await refused(`/locations/${g.otherLocationId}`, /^This location is not currently deletable/);
    await refused(`/companies/${company.body.payload.id}`, /^This company is currently associated/);
    const user = await call<Envelope>("DELETE", `/users/${g.userId}`);
    assert.deepEqual(user.body.messages, {
      assigned_assets: ["This user has 1 assets assigned and cannot be deleted."],
    });
    await refused(`/categories/${g.categoryId}`, /^This category is currently associated/);
    const model = await call<Record<string, unknown>>("GET", `/models/${g.modelId}`);
    assert.equal(model.body.assets_count, 2);
    const location = await call<Record<string, unknown>>("GET", `/locations/${g.otherLocationId}`);
    assert.equal(location.body.rtd_assets_count, 1);
    assert.equal(location.body.assets_count, 1);
    const holder = await call<Record<string, unknown>>("GET", `/users/${g.userId}`);
    assert.equal(holder.body.assets_count, 1);
    const label = await call<Record<string, unknown>>("GET", `/statuslabels/${g.deployable}`);
    assert.equal(label.body.assets_count, 2);

    await call("DELETE", `/hardware/${id}`);
    await call("DELETE", `/hardware/${located}`);
    assert.equal((await call<Envelope>("DELETE", `/statuslabels/${g.deployable}`)).body.status, "success");
    assert.equal((await call<Envelope>("DELETE", `/models/${g.modelId}`)).body.status, "success");
  });

  test("audit, legacy audit by tag, and due/overdue lists", async () => {
    const id = await createAsset(inventory, f, "HW-AUD");
    const audited = await call<Envelope<Record<string, unknown>>>("POST", `/hardware/${id}/audit`, {
      note: "seen",
      next_audit_date: "2000-01-01",
      update_location: 1,
      location_id: f.otherLocationId,
    });
    assert.deepEqual(audited.body, {
      status: "success",
      messages: "Asset audit successfully logged.",
      payload: { id, asset_tag: "HW-AUD", note: "seen", next_audit_date: "2000-01-01" },
    });
    const shown = await call<Asset>("GET", `/hardware/${id}`);
    assert.deepEqual(shown.body.location, { id: f.otherLocationId, name: "hw Branch" });
    assert.notEqual(shown.body.last_audit_date, null);
    const overdue = await call<List>("GET", "/hardware/audits/overdue");
    assert.ok(overdue.body.rows.some((row) => row.id === id));
    assert.ok(!(await call<List>("GET", "/hardware/audits/due")).body.rows.some((row) => row.id === id));
    assert.ok(
      (await call<List>("GET", "/hardware/audit/due-or-overdue")).body.rows.some((row) => row.id === id),
    );
    const unknown = await call<Record<string, unknown>>("GET", "/hardware/audits/someday");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.status, "error");

    const legacy = await call<Envelope<Record<string, unknown>>>("POST", "/hardware/audit", {
      asset_tag: "HW-AUD",
    });
    assert.equal(legacy.body.status, "success");
    assert.match(String(legacy.body.payload.next_audit_date), /^\d{4}-\d{2}-\d{2}$/);
    const badDate = await call<Envelope>("POST", `/hardware/${id}/audit`, { next_audit_date: "soon" });
    assert.deepEqual(badDate.body.messages, {
      next_audit_date: ["The next audit date field must be a valid date."],
    });
    assert.equal(
      (await call<Envelope>("POST", "/hardware/audit", { asset_tag: "NOPE" })).body.status,
      "error",
    );

    const checkedOut = await createAsset(inventory, f, "HW-DUE", {
      assigned_user: f.userId,
      expected_checkin: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10),
    });
    const due = await call<List>("GET", "/hardware/checkins/due");
    assert.ok(due.body.rows.some((row) => row.id === checkedOut));
    assert.ok(
      !(await call<List>("GET", "/hardware/checkins/overdue")).body.rows.some((row) => row.id === checkedOut),
    );
  });

  test("history lists the asset's activity in the report's row shape", async () => {
    const id = await createAsset(inventory, f, "HW-HIST");
    await call("PATCH", `/hardware/${id}`, { name: "Renamed" });
    const history = await call<List>("GET", `/hardware/${id}/history`);
    assert.equal(history.body.total, 2);
    const [update, create] = history.body.rows;
    assert.equal(update.action_type, "update");
    assert.deepEqual(update.log_meta, { name: { old: null, new: "Renamed" } });
    assert.equal(create.action_type, "create new");
    assert.deepEqual(
      create.item,
      { id, name: "Renamed", type: "asset", serial: null },
      "the item's current name",
    );
    assert.deepEqual(Object.keys(update).sort(), Object.keys(create).sort());
    assert.equal(
      (await call<Envelope>("GET", "/hardware/99999/history")).body.messages,
      "Asset does not exist.",
    );
  });

  test("permissions: each route needs its permission; read-only tokens only read", async () => {
    const viewer = await userWithToken(inventory, "hw-viewer", { "assets.view": "1" });
    const id = await createAsset(inventory, f, "HW-PERM");
    assert.equal((await call("GET", `/hardware/${id}`, undefined, viewer.token)).status, 200);
    const shown = await call<Asset>("GET", `/hardware/${id}`, undefined, viewer.token);
    assert.deepEqual(shown.body.available_actions, {
      checkout: false,
      checkin: false,
      clone: false,
      restore: false,
      update: false,
      audit: false,
      delete: false,
    });
    for (const [method, path] of [
      ["POST", "/hardware"],
      ["PATCH", `/hardware/${id}`],
      ["DELETE", `/hardware/${id}`],
      ["POST", `/hardware/${id}/checkout`],
      ["POST", `/hardware/${id}/checkin`],
      ["POST", `/hardware/${id}/audit`],
      ["POST", `/hardware/${id}/restore`],
    ]) {
      const denied = await call(method, path, {}, viewer.token);
      assert.equal(denied.status, 403, `${method} ${path}`);
      assert.deepEqual(denied.body, { message: "This action is unauthorized." });
    }
    const nobody = await userWithToken(inventory, "hw-nobody", {});
    assert.equal((await call("GET", "/hardware", undefined, nobody.token)).status, 403);
    const reader = await userWithToken(inventory, "hw-reader", { superuser: "1" }, { readOnly: true });
    assert.equal((await call("GET", "/hardware", undefined, reader.token)).status, 200);
    const write = await call("POST", `/hardware/${id}/checkout`, {}, reader.token);
    assert.equal(write.status, 403);
    assert.deepEqual(write.body, { status: "error", messages: "This token is read-only.", payload: null });
    assert.equal((await call("GET", "/hardware", undefined, "")).status, 401);
  });
});
