import assert from "node:assert/strict";
import { test } from "node:test";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import {
  assetRow,
  category,
  created,
  type Envelope,
  type List,
  logged,
  person,
  STRICT,
} from "../support/items.ts";

forEachInventory("inventory API: accessories", (inventory) => {
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  let categoryId = 0;
  let userId = 0;

  test("create answers the accessory object; counts reach categories, companies and users", async () => {
    categoryId = await category(inventory, "accessory", "Keyboards");
    userId = await person(inventory, "alice");
    const company = await created(inventory, "/companies", { name: "Accessory Co" });
    const made = await call("POST", "/accessories", {
      name: "Keyboard <K1>",
      qty: 3,
      category_id: categoryId,
      company_id: company,
      purchase_cost: "1234.5",
      purchase_date: "2025-01-02",
      min_amt: 1,
    });
    assert.equal(made.body.status, "success");
    assert.equal(made.body.messages, "Accessory created successfully.");
    const accessory = made.body.payload;
    assert.equal(accessory.name, "Keyboard &lt;K1&gt;");
    assert.deepEqual(accessory.category, { id: categoryId, name: "Keyboards" });
    assert.deepEqual(accessory.company, { id: company, name: "Accessory Co" });
    assert.equal(accessory.purchase_cost, "1,234.50");
    assert.deepEqual(accessory.purchase_date, { date: "2025-01-02", formatted: "2025-01-02" });
    assert.equal(accessory.qty, 3);
    assert.equal(accessory.remaining, 3);
    assert.equal(accessory.remaining_qty, 3);
    assert.equal(accessory.min_qty, 1);
    assert.equal(accessory.checkouts_count, 0);
    assert.equal(accessory.user_can_checkout, true);
    assert.deepEqual(accessory.available_actions, {
      checkout: true,
      checkin: false,
      update: true,
      delete: true,
      clone: true,
    });

    const id = accessory.id as number;
    const out = await call("POST", `/accessories/${id}/checkout`, {
      assigned_user: userId,
      checkout_qty: 2,
      note: "desk",
    });
    assert.deepEqual(out.body, {
      status: "success",
      messages: "Accessory checked out successfully.",
      payload: null,
    });
    const shown = await call<Record<string, unknown>>("GET", `/accessories/${id}`);
    assert.equal(shown.body.remaining, 1);
    assert.equal(shown.body.checkouts_count, 2);
    const user = await call<Record<string, unknown>>("GET", `/users/${userId}`);
    assert.equal(user.body.accessories_count, 2);
    const categoryShown = await call<Record<string, unknown>>("GET", `/categories/${categoryId}`);
    assert.equal(categoryShown.body.accessories_count, 1);
    assert.equal(categoryShown.body.item_count, 1);
    const companyShown = await call<Record<string, unknown>>("GET", `/companies/${company}`);
    assert.equal(companyShown.body.accessories_count, 1);
    assert.equal(await logged(inventory, "accessory", id, "checkout"), 1);

    const rows = await call<List<Record<string, unknown>>>("GET", `/accessories/${id}/checkedout`);
    assert.equal(rows.body.total, 2);
    const first = rows.body.rows[0];
    assert.equal(first.note, "desk");
    assert.deepEqual(first.available_actions, { checkin: true });
    const holder = first.assigned_to as Record<string, unknown>;
    assert.equal(holder.type, "user");
    assert.equal(holder.id, userId);
    assert.equal(holder.name, "alice Tester");
    assert.equal(holder.username, "alice");

    const refused = await call("DELETE", `/accessories/${id}`);
    assert.deepEqual(refused.body, {
      status: "error",
      messages: "This accessory cannot be deleted yet because some items are still checked out.",
      payload: null,
    });
    const userRefused = await call("DELETE", `/users/${userId}`);
    assert.equal(userRefused.body.status, "error");

    for (const row of rows.body.rows) {
      const back = await call("POST", `/accessories/${row.id}/checkin`, { note: "returned" });
      assert.equal(back.body.messages, "Accessory checked in successfully.");
    }
    const again = await call("POST", `/accessories/${first.id}/checkin`);
    assert.equal(again.body.status, "error");
    assert.equal(await logged(inventory, "accessory", id, "checkin from"), 2);
    assert.equal((await call("DELETE", `/accessories/${id}`)).body.status, "success");
    assert.equal((await call("GET", `/accessories/${id}`)).body.messages, "Accessory not found");
  });

  test("checkout to a location and to an asset; unknown targets answer `<Type> not found`", async () => {
    const id = await created(inventory, "/accessories", { name: "Mouse", qty: 5, category_id: categoryId });
    const location = await created(inventory, "/locations", { name: "Store room" });
    const toLocation = await call("POST", `/accessories/${id}/checkout`, {
      checkout_to_type: "location",
      assigned_location: location,
    });
    assert.equal(toLocation.body.status, "success");
    const place = await call<Record<string, unknown>>("GET", `/locations/${location}`);
    assert.equal(place.body.assigned_accessories_count, 1);
    const asset = await assetRow(inventory, "ACC-1");
    const toAsset = await call("POST", `/accessories/${id}/checkout`, {
      checkout_to_type: "asset",
      assigned_asset: asset,
    });
    assert.equal(toAsset.body.status, "success");
    const rows = await call<List<{ assigned_to: Record<string, unknown> }>>(
      "GET",
      `/accessories/${id}/checkedout`,
    );
    assert.deepEqual(
      rows.body.rows.map((row) => row.assigned_to.type),
      ["location", "asset"],
    );
    assert.equal(rows.body.rows[1].assigned_to.asset_tag, "ACC-1");

    for (const [type, message] of [
      ["user", "User not found"],
      ["location", "Location not found"],
      ["asset", "Asset not found"],
    ]) {
      const missing = await call("POST", `/accessories/${id}/checkout`, {
        checkout_to_type: type,
        [`assigned_${type}`]: 99999,
      });
      assert.deepEqual(missing.body, { status: "error", messages: message, payload: null });
    }
    const noTarget = await call("POST", `/accessories/${id}/checkout`, {});
    assert.deepEqual(noTarget.body.messages, {
      assigned_user: [
        "The assigned user field is required when none of assigned location / assigned asset are present.",
      ],
    });
    const badType = await call("POST", `/accessories/${id}/checkout`, {
      checkout_to_type: "planet",
      assigned_user: userId,
    });
    assert.deepEqual(badType.body.messages, {
      checkout_to_type: ["The selected checkout to type is invalid."],
    });
  });

  test("validation: required fields, an accessory category, quantity never below what is out", async () => {
    const empty = await call("POST", "/accessories", {});
    assert.deepEqual(empty.body.messages, {
      name: ["The name field is required."],
      qty: ["The qty field is required."],
      category_id: ["The category id field is required."],
    });
    const short = await call("POST", "/accessories", { name: "ab", qty: 0, category_id: categoryId });
    assert.deepEqual(short.body.messages, {
      name: ["The name field must be at least 3 characters."],
      qty: ["The qty field must be at least 1."],
    });
    const other = await category(inventory, "consumable", "Paper");
    const wrong = await call("POST", "/accessories", { name: "Cable", qty: 1, category_id: other });
    assert.deepEqual(wrong.body.messages, {
      category_type: ["This category must be an accessory category."],
    });

    const id = await created(inventory, "/accessories", { name: "Dock", qty: 2, category_id: categoryId });
    await call("POST", `/accessories/${id}/checkout`, { assigned_user: userId, checkout_qty: 2 });
    const lower = await call("PATCH", `/accessories/${id}`, { qty: 1 });
    assert.deepEqual(lower.body.messages, { qty: ["The qty field must be at least 2."] });
    const more = await call("POST", `/accessories/${id}/checkout`, { assigned_user: userId });
    assert.deepEqual(more.body.messages, {
      checkout_qty: [
        "There are 0 total available accessories, and you are trying to check out 1. Please adjust the checkout quantity or the total stock of this accessory and try again.",
      ],
    });
    const raised = await call("PATCH", `/accessories/${id}`, { qty: 3 });
    assert.equal(raised.body.status, "success");
    const tooMany = await call("POST", `/accessories/${id}/checkout`, {
      assigned_user: userId,
      checkout_qty: 2,
    });
    assert.match(
      String((tooMany.body.messages as Record<string, string[]>).checkout_qty[0]),
      /only one available/,
    );
    const strict = await api(inventory, "POST", `/accessories/${id}/checkout`, {
      body: { assigned_user: userId, checkout_qty: 2 },
      headers: STRICT,
    });
    assert.equal(strict.status, 422);

    for (const body of [{ checkout_qty: "lots", assigned_user: userId }, { assigned_user: [1] }, "text"])
      assert.equal((await call("POST", `/accessories/${id}/checkout`, body)).status, 200);
    assert.equal((await call("POST", "/accessories/abc/checkout", {})).body.messages, "Accessory not found");
    assert.equal((await call("POST", "/accessories/abc/checkin", {})).status, 200);
    assert.equal((await call("GET", "/accessories/abc/checkedout")).status, 200);
  });

  test("32 simultaneous check-outs of the last unit: exactly one succeeds", async () => {
    const id = await created(inventory, "/accessories", {
      name: "Last one",
      qty: 1,
      category_id: categoryId,
    });
    const answers = await Promise.all(
      Array.from({ length: 32 }, () =>
        call("POST", `/accessories/${id}/checkout`, { assigned_user: userId }),
      ),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(32).fill(200),
    );
    assert.equal(answers.filter((answer) => answer.body.status === "success").length, 1);
    const rows = await call<List>("GET", `/accessories/${id}/checkedout`);
    assert.equal(rows.body.total, 1);
    assert.equal(await logged(inventory, "accessory", id, "checkout"), 1);
    const checkins = await Promise.all(
      Array.from({ length: 8 }, () => call("POST", `/accessories/${rows.body.rows[0].id}/checkin`)),
    );
    assert.equal(checkins.filter((answer) => answer.body.status === "success").length, 1);
  });

  test("permissions: view, create, checkout and checkin are separate; read-only tokens cannot write", async () => {
    const id = await created(inventory, "/accessories", { name: "Headset", qty: 4, category_id: categoryId });
    const viewer = await userWithToken(inventory, "acc-viewer", { "accessories.view": "1" });
    assert.equal((await call("GET", "/accessories", undefined, viewer.token)).status, 200);
    const denied = await call("POST", `/accessories/${id}/checkout`, { assigned_user: userId }, viewer.token);
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { message: "This action is unauthorized." });
    assert.equal((await call("POST", "/accessories", { name: "X" }, viewer.token)).status, 403);
    const shown = await call<Record<string, unknown>>("GET", `/accessories/${id}`, undefined, viewer.token);
    assert.deepEqual(shown.body.available_actions, {
      checkout: false,
      checkin: false,
      update: false,
      delete: false,
      clone: false,
    });
    const clerk = await userWithToken(inventory, "acc-clerk", { "accessories.checkout": "1" });
    assert.equal(
      (await call("POST", `/accessories/${id}/checkout`, { assigned_user: userId }, clerk.token)).body.status,
      "success",
    );
    const rows = await call<List>("GET", `/accessories/${id}/checkedout`);
    assert.equal(
      (await call("POST", `/accessories/${rows.body.rows[0].id}/checkin`, {}, clerk.token)).status,
      403,
    );
    assert.equal((await call("GET", "/accessories", undefined, clerk.token)).status, 403);
  });

  test("list: filters, search, sort allow-list and a counts sort", async () => {
    const list = await call<List<{ name: string; checkouts_count: number }>>(
      "GET",
      `/accessories?category_id=${categoryId}&sort=checkouts_count&order=desc`,
    );
    assert.ok(list.body.total >= 4);
    const counts = list.body.rows.map((row) => row.checkouts_count);
    assert.deepEqual(
      counts,
      [...counts].sort((a, b) => b - a),
    );
    const search = await call<List<{ name: string }>>("GET", "/accessories?search=headset");
    assert.deepEqual(
      search.body.rows.map((row) => row.name),
      ["Headset"],
    );
    assert.equal((await call<List>("GET", "/accessories?category_id=abc")).body.total, 0);
    assert.equal((await call("GET", "/accessories?sort=nonsense;drop")).status, 200);
  });
});
