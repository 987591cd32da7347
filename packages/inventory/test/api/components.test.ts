import assert from "node:assert/strict";
import { test } from "node:test";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { assetRow, category, created, type Envelope, type List, logged, STRICT } from "../support/items.ts";

forEachInventory("inventory API: components", (inventory) => {
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  let categoryId = 0;
  let assetId = 0;

  test("create, check out to an asset, list, partial and full check-in, delete refusal", async () => {
    categoryId = await category(inventory, "component", "RAM");
    assetId = await assetRow(inventory, "CMP-1");
    const made = await call("POST", "/components", {
      name: "8GB DIMM",
      qty: 10,
      category_id: categoryId,
      serial: "SN-1",
      purchase_cost: 20,
    });
    assert.equal(made.body.messages, "Component created successfully.");
    const component = made.body.payload;
    assert.equal(component.remaining, 10);
    assert.equal(component.serial, "SN-1");
    assert.equal(component.purchase_cost, "20.00");
    assert.equal(component.user_can_checkout, 1, "QUIRK: components say 1/0");
    assert.deepEqual(component.available_actions, {
      checkout: true,
      checkin: true,
      update: true,
      delete: true,
    });
    const id = component.id as number;

    const out = await call("POST", `/components/${id}/checkout`, {
      assigned_to: assetId,
      assigned_qty: 4,
      note: "n",
    });
    assert.deepEqual(out.body, {
      status: "success",
      messages: "Component checked out successfully.",
      payload: null,
    });
    await call("POST", `/components/${id}/checkout`, { assigned_to: assetId, assigned_qty: 1 });
    const shown = await call<Record<string, unknown>>("GET", `/components/${id}`);
    assert.equal(shown.body.remaining, 5);
    assert.equal(
      (await call<Record<string, unknown>>("GET", `/categories/${categoryId}`)).body.components_count,
      1,
    );
    const assets = await call<List<Record<string, unknown>>>("GET", `/components/${id}/assets`);
    assert.equal(assets.body.total, 2, "two check-outs to the same asset are two rows");
    const row = assets.body.rows[0];
    assert.equal(row.id, assetId);
    assert.equal(row.name, "Asset CMP-1");
    assert.equal(row.qty, 4);
    assert.equal(row.type, "asset");
    assert.equal(row.note, "n");
    assert.deepEqual(row.available_actions, { checkin: true });

    const refused = await call("DELETE", `/components/${id}`);
    assert.equal(
      refused.body.messages,
      "Some components of this type are still checked out. Please check them in and try again.",
    );
    const lower = await call("PATCH", `/components/${id}`, { qty: 4 });
    assert.deepEqual(lower.body.messages, { qty: ["The qty field must be at least 5."] });

    const pivot = row.assigned_pivot_id as number;
    const tooMany = await call("POST", `/components/${pivot}/checkin`, { checkin_qty: 5 });
    assert.deepEqual(tooMany.body, {
      status: "error",
      messages: "Checkin quantity must be between 1 and 4",
      payload: null,
    });
    assert.equal((await call("POST", `/components/${pivot}/checkin`, {})).body.status, "error");
    const partial = await call("POST", `/components/${pivot}/checkin`, { checkin_qty: 3 });
    assert.deepEqual(partial.body, {
      status: "success",
      messages: "Component checked in successfully.",
      payload: null,
    });
    const after = await call<List<Record<string, unknown>>>("GET", `/components/${id}/assets`);
    assert.equal(after.body.rows[0].qty, 1);
    await call("POST", `/components/${pivot}/checkin`, { checkin_qty: 1 });
    await call("POST", `/components/${after.body.rows[1].assigned_pivot_id}/checkin`, { checkin_qty: "1" });
    const gone = await call("POST", `/components/${pivot}/checkin`, { checkin_qty: 1 });
    assert.equal(gone.body.messages, "No matching checkouts for that component join record");
    assert.equal(await logged(inventory, "component", id, "checkin from"), 3);
    assert.equal((await call("DELETE", `/components/${id}`)).body.status, "success");
  });

  test("QUIRK: checkout validation errors come back in the payload slot", async () => {
    const id = await created(inventory, "/components", { name: "SSD", qty: 2, category_id: categoryId });
    const empty = await call("POST", `/components/${id}/checkout`, {});
    assert.deepEqual(empty.body, {
      status: "error",
      messages: null,
      payload: {
        assigned_to: ["The assigned to field is required."],
        assigned_qty: ["The assigned qty field is required."],
      },
    });
    const unknown = await call("POST", `/components/${id}/checkout`, { assigned_to: 99999, assigned_qty: 0 });
    assert.deepEqual(unknown.body.payload, {
      assigned_to: ["The selected assigned to is invalid."],
      assigned_qty: ["The assigned qty field must be at least 1."],
    });
    const strict = await api(inventory, "POST", `/components/${id}/checkout`, { body: {}, headers: STRICT });
    assert.equal(strict.status, 422);
    const more = await call("POST", `/components/${id}/checkout`, { assigned_to: assetId, assigned_qty: 3 });
    assert.deepEqual(more.body, {
      status: "error",
      messages: "Not enough components remaining: 2 remaining, 3 requested ",
      payload: null,
    });
    const missing = await call("POST", "/components/99999/checkout", {
      assigned_to: assetId,
      assigned_qty: 1,
    });
    assert.equal(missing.body.messages, "Component does not exist.");
    const validation = await call("POST", "/components", { name: "ab", qty: "many" });
    assert.deepEqual(validation.body.messages, {
      name: ["The name field must be at least 3 characters."],
      qty: ["The qty field must be an integer."],
      category_id: ["The category id field is required."],
    });
    for (const body of [[1], "x", { assigned_to: { a: 1 }, assigned_qty: 1e30 }])
      assert.equal((await call("POST", `/components/${id}/checkout`, body)).status, 200);
    assert.equal((await call("POST", "/components/x/checkin", { checkin_qty: 1 })).status, 200);
    assert.equal((await call("GET", "/components/x/assets")).status, 200);
  });

  test("32 simultaneous check-outs of the last unit: exactly one succeeds", async () => {
    const id = await created(inventory, "/components", { name: "Last CPU", qty: 1, category_id: categoryId });
    const answers = await Promise.all(
      Array.from({ length: 32 }, () =>
        call("POST", `/components/${id}/checkout`, { assigned_to: assetId, assigned_qty: 1 }),
      ),
    );
    assert.equal(answers.filter((answer) => answer.body.status === "success").length, 1);
    assert.ok(answers.every((answer) => answer.status === 200));
    const rows = await call<List<{ assigned_pivot_id: number }>>("GET", `/components/${id}/assets`);
    assert.equal(rows.body.total, 1);
    const checkins = await Promise.all(
      Array.from({ length: 8 }, () =>
        call("POST", `/components/${rows.body.rows[0].assigned_pivot_id}/checkin`, { checkin_qty: 1 }),
      ),
    );
    assert.equal(checkins.filter((answer) => answer.body.status === "success").length, 1);
    assert.equal(await logged(inventory, "component", id, "checkin from"), 1);
  });

  test("permissions: checkout and checkin each need their own", async () => {
    const id = await created(inventory, "/components", { name: "Fan", qty: 3, category_id: categoryId });
    const fitter = await userWithToken(inventory, "cmp-fitter", { "components.checkout": "1" });
    const out = await call(
      "POST",
      `/components/${id}/checkout`,
      { assigned_to: assetId, assigned_qty: 1 },
      fitter.token,
    );
    assert.equal(out.body.status, "success");
    const rows = await call<List<{ assigned_pivot_id: number }>>("GET", `/components/${id}/assets`);
    const denied = await call(
      "POST",
      `/components/${rows.body.rows[0].assigned_pivot_id}/checkin`,
      { checkin_qty: 1 },
      fitter.token,
    );
    assert.equal(denied.status, 403);
    assert.equal((await call("GET", `/components/${id}/assets`, undefined, fitter.token)).status, 403);
    const list = await call<List<{ name: string }>>("GET", "/components?sort=name&order=asc&search=fan");
    assert.deepEqual(
      list.body.rows.map((row) => row.name),
      ["Fan"],
    );
  });
});
