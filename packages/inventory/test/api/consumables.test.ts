import assert from "node:assert/strict";
import { test } from "node:test";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { category, created, type Envelope, type List, logged, person, STRICT } from "../support/items.ts";

const NOT_ENOUGH = "There are not enough consumables for this checkout. Please check the quantity left. ";

forEachInventory("inventory API: consumables", (inventory) => {
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  let categoryId = 0;
  let userId = 0;

  test("create, check out to users by quantity, list who received it; delete is always allowed", async () => {
    categoryId = await category(inventory, "consumable", "Toner");
    userId = await person(inventory, "bob");
    const supplier = await created(inventory, "/suppliers", { name: "Paper Inc" });
    const made = await call("POST", "/consumables", {
      name: "Toner 12A",
      qty: 5,
      category_id: categoryId,
      supplier_id: supplier,
      item_no: "T-12A",
    });
    assert.equal(made.body.messages, "Consumable created successfully.");
    const consumable = made.body.payload;
    assert.equal(consumable.item_no, "T-12A");
    assert.equal(consumable.remaining, 5);
    assert.equal(consumable.qty, 5);
    assert.equal(consumable.user_can_checkout, true);
    assert.deepEqual(consumable.supplier, { id: supplier, name: "Paper Inc" });
    assert.deepEqual(consumable.available_actions, {
      checkout: true,
      checkin: false,
      update: true,
      delete: true,
      clone: true,
    });
    const id = consumable.id as number;

    const out = await call("POST", `/consumables/${id}/checkout`, {
      assigned_to: userId,
      checkout_qty: 2,
      note: "for printer",
    });
    assert.deepEqual(out.body, {
      status: "success",
      messages: "Consumable checked out successfully.",
      payload: null,
    });
    assert.equal((await call<Record<string, unknown>>("GET", `/consumables/${id}`)).body.remaining, 3);
    assert.equal((await call<Record<string, unknown>>("GET", `/users/${userId}`)).body.consumables_count, 2);
    assert.equal(
      (await call<Record<string, unknown>>("GET", `/suppliers/${supplier}`)).body.consumables_count,
      1,
    );
    const users = await call<List<Record<string, unknown>>>("GET", `/consumables/${id}/users`);
    assert.equal(users.body.total, 2);
    assert.deepEqual(users.body.rows[0].user, { id: userId, name: "bob Tester" });
    assert.equal(users.body.rows[0].note, "for printer");
    assert.deepEqual(users.body.rows[0].created_by, { id: 1, name: "Admin" });
    assert.equal(await logged(inventory, "consumable", id, "checkout"), 1);

    const unknown = await call("POST", `/consumables/${id}/checkout`, { assigned_to: 99999 });
    assert.deepEqual(unknown.body, { status: "error", messages: "No user found", payload: null });
    const tooMany = await call("POST", `/consumables/${id}/checkout`, {
      assigned_to: userId,
      checkout_qty: 4,
    });
    assert.deepEqual(tooMany.body, { status: "error", messages: NOT_ENOUGH, payload: null });
    const strict = await api(inventory, "POST", `/consumables/${id}/checkout`, {
      body: { assigned_to: userId, checkout_qty: 4 },
      headers: STRICT,
    });
    assert.equal(strict.status, 409);

    assert.equal((await call("DELETE", `/consumables/${id}`)).body.status, "success");
    assert.equal((await call("GET", `/consumables/${id}`)).body.messages, "Consumable not found");
  });

  test("validation: quantity 0..99999, a consumable category, bad input never 500", async () => {
    const empty = await call("POST", "/consumables", { qty: 100000 });
    assert.deepEqual(empty.body.messages, {
      name: ["The name field is required."],
      qty: ["The qty field must not be greater than 99999."],
      category_id: ["The category id field is required."],
    });
    const zero = await call("POST", "/consumables", { name: "Empty box", qty: 0, category_id: categoryId });
    assert.equal(zero.body.status, "success");
    const none = await call("POST", `/consumables/${zero.body.payload.id}/checkout`, { assigned_to: userId });
    assert.equal(none.body.messages, NOT_ENOUGH);
    const accessoryCategory = await category(inventory, "accessory", "Cables");
    const wrong = await call("POST", "/consumables", {
      name: "Cable",
      qty: 1,
      category_id: accessoryCategory,
    });
    assert.deepEqual(wrong.body.messages, {
      category_type: ["This category must be a consumable category."],
    });
    const missing = await call("POST", `/consumables/${zero.body.payload.id}/checkout`, {});
    assert.deepEqual(missing.body.messages, { assigned_to: ["The assigned to field is required."] });
    for (const body of [{ assigned_to: "x" }, { assigned_to: userId, checkout_qty: -1 }, [1]])
      assert.equal((await call("POST", `/consumables/${zero.body.payload.id}/checkout`, body)).status, 200);
    assert.equal(
      (await call("POST", "/consumables/nope/checkout", {})).body.messages,
      "Consumable not found",
    );
    assert.equal((await call("GET", "/consumables/nope/users")).body.messages, "Consumable not found");
  });

  test("32 simultaneous check-outs of the last unit: exactly one succeeds", async () => {
    const id = await created(inventory, "/consumables", {
      name: "Last toner",
      qty: 1,
      category_id: categoryId,
    });
    const answers = await Promise.all(
      Array.from({ length: 32 }, () => call("POST", `/consumables/${id}/checkout`, { assigned_to: userId })),
    );
    assert.equal(answers.filter((answer) => answer.body.status === "success").length, 1);
    assert.ok(answers.every((answer) => answer.status === 200));
    assert.equal((await call<List>("GET", `/consumables/${id}/users`)).body.total, 1);
    assert.equal(await logged(inventory, "consumable", id, "checkout"), 1);
  });

  test("permissions: checkout needs consumables.checkout", async () => {
    const id = await created(inventory, "/consumables", { name: "Pens", qty: 10, category_id: categoryId });
    const viewer = await userWithToken(inventory, "cons-viewer", { "consumables.view": "1" });
    assert.equal((await call("GET", `/consumables/${id}/users`, undefined, viewer.token)).status, 200);
    assert.equal(
      (await call("POST", `/consumables/${id}/checkout`, { assigned_to: userId }, viewer.token)).status,
      403,
    );
    assert.equal((await call("DELETE", `/consumables/${id}`, undefined, viewer.token)).status, 403);
    const list = await call<List<{ name: string }>>(
      "GET",
      "/consumables?search=pens",
      undefined,
      viewer.token,
    );
    assert.deepEqual(
      list.body.rows.map((row) => row.name),
      ["Pens"],
    );
  });
});
