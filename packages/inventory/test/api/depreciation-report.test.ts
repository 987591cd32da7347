import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { created } from "../support/items.ts";

type Row = Record<string, unknown>;

/** The day `months` months before today, on a day of the month every month has. */
function monthsAgo(months: number): string {
  const now = new Date();
  const day = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, Math.min(now.getUTCDate(), 28)),
  );
  return day.toISOString().slice(0, 10);
}

forEachInventory("inventory API: depreciation report", (inventory) => {
  let f: AssetFixture;
  let straightModel = 0;
  let percentModel = 0;
  const report = async (query: string, token?: string) =>
    api<List<Row>>(inventory, "GET", `/reports/depreciation?${query}`, { token });
  const byTag = async (query: string) =>
    new Map((await report(query)).body.rows.map((row) => [row.asset_tag as string, row]));

  test("fixture: models under an amount and a percent depreciation, assets bought at known times", async () => {
    f = await assetFixture(inventory, "dr");
    const amount = await created(inventory, "/depreciations", { name: "Three years", months: 36 });
    const percent = await created(inventory, "/depreciations", {
      name: "Ten months to 10%",
      months: 10,
      depreciation_min: 10,
      depreciation_type: "percent",
    });
    straightModel = await created(inventory, "/models", {
      name: "dr Straight",
      category_id: f.categoryId,
      depreciation_id: amount,
      eol: 48,
    });
    percentModel = await created(inventory, "/models", {
      name: "dr Percent",
      category_id: f.categoryId,
      depreciation_id: percent,
    });
    const holder = await created(inventory, "/locations", { name: "dr Paris", currency: "EUR" });
    await createAsset(inventory, f, "DR-1", {
      model_id: straightModel,
      purchase_cost: 3600,
      purchase_date: monthsAgo(12),
      name: "Year-old laptop",
      location_id: holder,
    });
    await createAsset(inventory, f, "DR-2", {
      model_id: percentModel,
      purchase_cost: 1000,
      purchase_date: monthsAgo(5),
    });
    await createAsset(inventory, f, "DR-3", {
      model_id: percentModel,
      purchase_cost: 1000,
      purchase_date: monthsAgo(30),
    });
    await createAsset(inventory, f, "DR-4", {
      purchase_cost: 500,
      purchase_date: monthsAgo(2),
      assigned_user: f.userId,
    });
  });

  test("rows carry the book value now, the monthly depreciation, the difference and the term", async () => {
    const rows = await byTag(`search=DR-`);
    assert.equal(rows.size, 4);
    const year = rows.get("DR-1") as Row;
    assert.equal(year.purchase_cost, "3,600.00");
    assert.equal(year.book_value, "2,400.00", "a third of three years gone");
    assert.equal(year.monthly_depreciation, "100.00");
    assert.equal(year.diff, "1,200.00");
    assert.equal(year.number_of_months, 36);
    assert.equal(year.depreciation, "Three years");
    assert.equal(year.model, "dr Straight");
    assert.equal(year.category, "dr laptops");
    assert.equal(year.location, "dr Paris");
    assert.equal(year.currency, "EUR", "the location's currency");
    assert.equal(year.checked_out_to, null);
    assert.equal(year.status, "deployable");
    assert.equal(year.status_label, "dr deployable");
    assert.deepEqual(year.purchase_date, { date: monthsAgo(12), formatted: monthsAgo(12) });
    assert.ok(year.eol !== null, "the model's end of life from the purchase date");
    const five = rows.get("DR-2") as Row;
    assert.equal(five.book_value, "550.00", "90 a month down towards a floor of 10%");
    assert.equal(five.monthly_depreciation, "90.00");
    assert.equal(five.diff, "450.00");
    assert.equal((rows.get("DR-3") as Row).book_value, "100.00", "past its term: the floor");
    const none = rows.get("DR-4") as Row;
    assert.equal(none.purchase_cost, "500.00");
    assert.equal(none.book_value, null, "no depreciation on its model");
    assert.equal(none.depreciation, null);
    assert.equal(none.currency, "USD", "the settings' default currency");
    assert.equal(none.checked_out_to, "drFirst Holder");
    assert.equal(none.status, "deployed");
  });

  test("the hardware list's paging, sorting and filters apply", async () => {
    const page = await report(`model_id=${percentModel}&sort=asset_tag&order=desc&limit=1`);
    assert.equal(page.body.total, 2);
    assert.deepEqual(
      page.body.rows.map((row) => row.asset_tag),
      ["DR-3"],
    );
    const next = await report(`model_id=${percentModel}&sort=asset_tag&order=desc&limit=1&offset=1`);
    assert.deepEqual(
      next.body.rows.map((row) => row.asset_tag),
      ["DR-2"],
    );
    assert.match(String(page.headers.get("link")), /rel="next"/);
  });

  test("reports.view is needed; assets.view alone is not enough", async () => {
    const viewer = await userWithToken(inventory, "drviewer", { "assets.view": "1" });
    assert.equal((await report("", viewer.token)).status, 403);
    const reporter = await userWithToken(inventory, "drreporter", { "reports.view": "1" });
    const allowed = await report("search=DR-1", reporter.token);
    assert.equal(allowed.status, 200);
    assert.equal(allowed.body.total, 1);
  });
});
