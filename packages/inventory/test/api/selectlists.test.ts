import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

interface Selectlist {
  results: Array<{ id: number; text: string; image: string | null }>;
  pagination: { more: boolean; per_page: number };
  total_count: number;
  page: number;
  page_count: number;
}

forEachInventory("inventory API: select lists", (inventory) => {
  const post = async (path: string, body: Record<string, unknown>) => {
    const answer = await api<Envelope<{ id: number }>>(inventory, "POST", path, { body });
    assert.equal(answer.body.status, "success", JSON.stringify(answer.body));
    return answer.body.payload.id;
  };
  const list = (path: string, token?: string) => api<Selectlist>(inventory, "GET", path, { token });
  let fixture: AssetFixture;

  test("the select2 envelope: 50 a page, page and page_count, more while pages remain, search", async () => {
    for (let n = 1; n <= 55; n++) await post("/suppliers", { name: `Vendor ${String(n).padStart(2, "0")}` });
    const first = await list("/suppliers/selectlist");
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body), ["results", "pagination", "total_count", "page", "page_count"]);
    assert.equal(first.body.results.length, 50);
    assert.deepEqual(first.body.pagination, { more: true, per_page: 50 });
    assert.equal(first.body.total_count, 55);
    assert.equal(first.body.page, 1);
    assert.equal(first.body.page_count, 2);
    assert.deepEqual(first.body.results[0], { id: first.body.results[0].id, text: "Vendor 01", image: null });

    const second = await list("/suppliers/selectlist?page=2");
    assert.deepEqual(
      second.body.results.map((item) => item.text),
      ["Vendor 51", "Vendor 52", "Vendor 53", "Vendor 54", "Vendor 55"],
    );
    assert.deepEqual(second.body.pagination, { more: false, per_page: 50 });
    assert.equal(second.body.page, 2);

    const searched = await list("/suppliers/selectlist?search=vendor%205");
    assert.equal(searched.body.total_count, 6, "Vendor 50…55 match, case-insensitively");
    const nonsense = await list("/suppliers/selectlist?page=abc");
    assert.equal(nonsense.body.page, 1, "a page that is not a number is the first");
    const past = await list("/suppliers/selectlist?page=9");
    assert.deepEqual(past.body.results, []);
    assert.equal(past.body.pagination.more, false);
  });

  test("hardware: name (tag) - model, the holder after an arrow; assetStatusType=RTD only what can go out", async () => {
    fixture = await assetFixture(inventory, "sel");
    const ready = await createAsset(inventory, fixture, "SEL-1", { name: "Laptop" });
    const out = await createAsset(inventory, fixture, "SEL-2", { name: "Desktop" });
    await createAsset(inventory, fixture, "SEL-3", { status_id: fixture.pending });
    await createAsset(inventory, fixture, "SEL-4", { status_id: fixture.archived });
    const checkout = await api<Envelope>(inventory, "POST", `/hardware/${out}/checkout`, {
      body: { checkout_to_type: "user", assigned_user: fixture.userId },
    });
    assert.equal(checkout.body.status, "success");

    const all = await list("/hardware/selectlist?search=SEL-");
    assert.deepEqual(
      all.body.results.map((item) => item.text),
      ["Laptop (SEL-1) - sel X1", "Desktop (SEL-2) - sel X1 → selFirst Holder", "(SEL-3) - sel X1(pending)"],
      "archived assets are never offered",
    );
    const rtd = await list("/hardware/selectlist?search=SEL-&assetStatusType=RTD");
    assert.deepEqual(
      rtd.body.results.map((item) => item.id),
      [ready],
    );
  });

  test("locations come as an indented tree; a search lists the matches flat", async () => {
    const parent = await post("/locations", { name: "Tree Campus" });
    const child = await post("/locations", { name: "Tree Building", parent_id: parent });
    await post("/locations", { name: "Tree Floor", parent_id: child });
    const tree = await list("/locations/selectlist");
    const texts = tree.body.results.map((item) => item.text);
    const at = texts.indexOf(" Tree Campus");
    assert.ok(at >= 0, JSON.stringify(texts));
    assert.deepEqual(texts.slice(at, at + 3), [" Tree Campus", "-- Tree Building", "---- Tree Floor"]);
    const searched = await list("/locations/selectlist?search=tree");
    assert.deepEqual(
      searched.body.results.map((item) => item.text),
      ["Tree Building", "Tree Campus", "Tree Floor"],
    );
  });

  test("categories by type, users as Last, First (username), models with category and maker, labels by kind", async () => {
    await post("/categories", { name: "Sel Cables", category_type: "accessory" });
    const accessory = await list("/categories/accessory/selectlist?search=sel");
    assert.deepEqual(
      accessory.body.results.map((item) => item.text),
      ["Sel Cables"],
    );
    const asset = await list("/categories/asset/selectlist?search=sel");
    assert.deepEqual(
      asset.body.results.map((item) => item.text),
      ["sel laptops"],
    );
    const unknown = await list("/categories/gadget/selectlist");
    assert.equal(unknown.body.total_count, 0);

    await post("/users", {
      first_name: "Ada",
      last_name: "Lovelace",
      username: "ada",
      employee_num: "42",
      password: "password123",
      password_confirmation: "password123",
    });
    const people = await list("/users/selectlist?search=lovelace");
    assert.deepEqual(
      people.body.results.map((item) => item.text),
      ["Lovelace, Ada (ada) - #42"],
    );

    const models = await list("/models/selectlist?search=sel");
    assert.deepEqual(
      models.body.results.map((item) => item.text),
      ["sel laptops - sel Maker sel X1 (#sel-MN)"],
    );

    const deployable = await list("/statuslabels/selectlist?deployable=1&search=sel");
    assert.deepEqual(
      deployable.body.results.map((item) => item.text),
      ["sel deployable"],
    );
    const pending = await list("/statuslabels/selectlist?pending=1");
    assert.deepEqual(pending.body.results.map((item) => item.text).sort(), ["Pending", "sel pending"]);
  });

  test("every resource upstream offers one answers in the same envelope", async () => {
    for (const path of [
      "accessories",
      "companies",
      "components",
      "consumables",
      "departments",
      "licenses",
      "manufacturers",
      "models",
      "statuslabels",
      "suppliers",
      "users",
      "hardware",
      "locations",
      "categories/asset",
    ]) {
      const answer = await list(`/${path}/selectlist`);
      assert.equal(answer.status, 200, path);
      assert.equal(answer.body.page, 1, path);
      assert.ok(Array.isArray(answer.body.results), path);
    }
  });

  test("view.selectlists: people who pick things may, readers of one list may not; no token is a 401", async () => {
    const reader = await userWithToken(inventory, "sel-reader", { "assets.view": "1", "users.view": "1" });
    const denied = await list("/users/selectlist", reader.token);
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { message: "This action is unauthorized." });
    const picker = await userWithToken(inventory, "sel-picker", { "assets.checkout": "1" });
    const allowed = await list("/users/selectlist", picker.token);
    assert.equal(allowed.status, 200);
    assert.ok(allowed.body.total_count >= 1);
    const anonymous = await api(inventory, "GET", "/users/selectlist", { token: "" });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body, { error: "Unauthorized or unauthenticated." });
  });
});

forEachInventory(
  "inventory API: select lists under full multiple companies support",
  (inventory) => {
    test("a user held to their company is offered only its assets", async () => {
      const company = async (name: string) =>
        (await api<Envelope<{ id: number }>>(inventory, "POST", "/companies", { body: { name } })).body
          .payload.id;
      const [mine, theirs] = [await company("Sel Mine"), await company("Sel Theirs")];
      const fixture = await assetFixture(inventory, "fmcs");
      await createAsset(inventory, fixture, "FMCS-MINE", { company_id: mine });
      await createAsset(inventory, fixture, "FMCS-THEIRS", { company_id: theirs });
      const clerk = await userWithToken(inventory, "fmcs-clerk", { "assets.checkout": "1" });
      await api(inventory, "PATCH", `/users/${clerk.id}`, { body: { company_id: mine } });
      const offered = await api<Selectlist>(inventory, "GET", "/hardware/selectlist?search=FMCS", {
        token: clerk.token,
      });
      assert.deepEqual(
        offered.body.results.map((item) => item.text),
        ["(FMCS-MINE) - fmcs X1"],
      );
      const everything = await api<Selectlist>(inventory, "GET", "/hardware/selectlist?search=FMCS");
      assert.equal(everything.body.total_count, 2, "a superuser sees every company's");
    });
  },
  { apiThrottlePerMinute: 0, fullMultipleCompaniesSupport: true },
);
