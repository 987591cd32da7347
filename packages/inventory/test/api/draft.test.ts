import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset } from "../support/assets.ts";
import { forEachInventory, userWithToken } from "../support/inventory.ts";

// The seed's draft paths under /api/hardware (spec §25).

type Answer = Record<string, unknown>;

forEachInventory("inventory API: draft /api/hardware paths", (inventory) => {
  let f: AssetFixture;
  const draft = async (method: string, path: string, body?: unknown, token = inventory.adminToken) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${inventory.url}/api/hardware${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: JSON.parse(await res.text()) as Answer };
  };

  test("fixture", async () => {
    f = await assetFixture(inventory, "dr");
  });

  test("create, list, show, patch and delete answer the draft shapes", async () => {
    const created = await draft("POST", "/create/", {
      asset_tag: "DR-1",
      name: "Draft laptop",
      model_id: f.modelId,
      status_id: f.deployable,
      image_url: "http://example.test/x.png",
      model_number: "ignored",
      category_id: 99999,
      eol: 12,
    });
    assert.equal(created.status, 200);
    assert.equal(created.body.success, true);
    assert.equal(created.body.errors, null);
    const id = created.body.id as number;
    assert.equal(typeof id, "number");

    const refused = await draft("POST", "/create", { asset_tag: "DR-1", model_id: f.modelId });
    assert.deepEqual(refused.body, {
      success: false,
      id: null,
      errors: {
        status_id: ["The status id field is required."],
      },
    });
    const duplicate = await draft("POST", "/create", {
      asset_tag: "DR-1",
      model_id: f.modelId,
      status_id: f.deployable,
    });
    assert.deepEqual(duplicate.body.errors, { asset_tag: ["The asset tag must be unique."] });

    const list = await draft("GET", "/list?order=asc&limit=10&offset=0&search=DR-1");
    assert.equal(list.body.total, 1);
    assert.equal((list.body.rows as Answer[])[0].asset_tag, "DR-1");
    const shown = await draft("GET", `/show/${id}`);
    assert.equal(shown.body.id, id);
    assert.deepEqual(shown.body.model, { id: f.modelId, name: "dr X1" });
    assert.deepEqual((await draft("GET", "/show/99999")).body, {
      status: "error",
      messages: "Asset does not exist.",
      payload: null,
    });

    assert.deepEqual((await draft("PATCH", `/${id}`, { name: "Renamed" })).body, {
      success: true,
      id,
      errors: null,
    });
    assert.deepEqual((await draft("PATCH", `/${id}`, { purchase_date: "never" })).body, {
      success: false,
      id: null,
      errors: { purchase_date: ["The purchase date field must be a valid date."] },
    });
    assert.deepEqual((await draft("PATCH", "/99999", { name: "x" })).body, {
      success: false,
      id: null,
      errors: { id: ["Asset does not exist."] },
    });
    assert.deepEqual((await draft("DELETE", `/${id}`)).body, { success: true });
    assert.deepEqual((await draft("DELETE", `/${id}`)).body, {
      success: false,
      error: "Asset does not exist.",
    });
  });

  test("checkout state, check-out and check-in through the draft paths", async () => {
    const id = await createAsset(inventory, f, "DR-CO");
    const free = await fetch(`${inventory.url}/api/hardware/${id}/checkout`, {
      headers: { authorization: `Bearer ${inventory.adminToken}` },
    });
    assert.equal(await free.text(), "null");
    const out = await draft("POST", `/${id}/checkout`, {
      assigned_type: "user",
      assigned_id: f.userId,
      checkout_date: "2025-01-02",
      note: "draft",
    });
    assert.deepEqual(out.body, { success: true, id, errors: null });
    assert.deepEqual((await draft("GET", `/${id}/checkout`)).body, {
      assigned_type: "user",
      assigned_id: f.userId,
      assignee_name: "drFirst Holder",
    });
    const again = await draft("POST", `/${id}/checkout`, {
      assigned_type: "App\\Models\\Location",
      assigned_id: f.locationId,
    });
    assert.deepEqual(again.body, {
      success: false,
      id: null,
      errors: "That asset is not available for checkout!",
    });
    const missingTarget = await draft("POST", `/${id}/checkout`, { assigned_type: "user" });
    assert.equal(missingTarget.body.success, false);
    assert.deepEqual(
      (await draft("POST", `/${id}/checkin`, { note: "back", checkin_date: "2025-02-01" })).body,
      {
        success: true,
        id,
        errors: null,
      },
    );
    assert.deepEqual((await draft("POST", `/${id}/checkin`, {})).body, {
      success: false,
      id: null,
      errors: "That asset is already checked in.",
    });
    assert.deepEqual((await draft("GET", "/99999/checkout")).body, {
      success: false,
      error: "Asset does not exist.",
    });
    assert.equal((await draft("POST", "/99999/checkin", {})).body.success, false);

    const viewer = await userWithToken(inventory, "dr-viewer", { "assets.view": "1" }, { readOnly: true });
    assert.equal((await draft("GET", `/show/${id}`, undefined, viewer.token)).status, 200);
    const denied = await draft(
      "POST",
      `/${id}/checkout`,
      { assigned_type: "user", assigned_id: f.userId },
      viewer.token,
    );
    assert.equal(denied.status, 403);
    assert.equal((await draft("GET", "/list", undefined, "nope")).status, 401);
  });
});
