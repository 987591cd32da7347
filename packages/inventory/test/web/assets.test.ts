import assert from "node:assert/strict";
import { test } from "node:test";
import { assertAccessible, horizontalOverflow, useBrowser } from "@anvil/core/testing";
import type { Locator, Page } from "playwright-core";
import { type AssetFixture, assetFixture, createAsset, type Envelope } from "../support/assets.ts";
import { api, forEachInventory, type InventoryState, userWithToken } from "../support/inventory.ts";
import { csrfToken, sessionCookie, signIn, withCookie } from "../support/web.ts";

// The asset pages (issue 20) in a real chromium, as a person uses them: the list with its search,
// filters, sorts and pages (in place with htmx, and without JavaScript), the form, the asset's
// page, checkout and checkin, files, bulk actions, two browsers racing, a read-only user.

const HOSTILE = `<script>alert("x")</script>"`;

async function created(inventory: InventoryState, path: string, body: Record<string, unknown>) {
  const answer = await api<Envelope<{ id: number }>>(inventory, "POST", path, { body });
  assert.equal(answer.body.status, "success", `${path}: ${JSON.stringify(answer.body)}`);
  return answer.body.payload.id;
}

/** Clicks and waits for the page the click leads to. */
async function follow(page: Page, click: Promise<void>) {
  await Promise.all([page.waitForNavigation(), click]);
}

/** Chooses the option of a labelled drop-down whose text contains `text` (select lists add detail). */
async function choose(select: Locator, text: string) {
  const label = await select.getAttribute("name");
  const options = await select
    .locator("option")
    .evaluateAll((nodes) =>
      nodes.map((node) => [(node as unknown as { value: string }).value, node.textContent ?? ""]),
    );
  const found = options.find(([, shown]) => shown.includes(text));
  assert.ok(found, `no option ${text} in ${label}: ${options.map(([, shown]) => shown).join("|")}`);
  await select.selectOption(found[0]);
}

/** Waits for the list's summary to say this (after an in-place update). */
async function shows(page: Page, text: string) {
  await page.locator("#asset-list .summary", { hasText: text }).waitFor();
}

/** The texts of a column of the asset table, by its header's title. */
async function columnTexts(page: Page, title: string): Promise<string[]> {
  const headers = await page.locator("table.assets thead th").allTextContents();
  const index = headers.findIndex((text) => text.trim().replace(/[▲▼]/g, "").trim() === title);
  assert.ok(index >= 0, `no column ${title} in ${headers.join("|")}`);
  return page.locator(`table.assets tbody tr td:nth-child(${index + 1})`).allTextContents();
}

forEachInventory("inventory web: asset pages", (inventory) => {
  const browser = useBrowser();
  let fixture: AssetFixture;
  const dialect = () => inventory.database.dialect;

  test("setup: labels, models (one with a custom field), locations and a user, through the API", async () => {
    fixture = await assetFixture(inventory, "W");
    const fieldId = await created(inventory, "/fields", {
      name: "MAC Address",
      element: "text",
      format: "ANY",
    });
    const fieldsetId = await created(inventory, "/fieldsets", { name: "Laptops" });
    const associated = await api<Envelope>(inventory, "POST", `/fields/${fieldId}/associate`, {
      body: { fieldset_id: fieldsetId },
    });
    assert.equal(associated.body.status, "success", JSON.stringify(associated.body));
    await created(inventory, "/models", {
      name: "W Laptop",
      category_id: fixture.categoryId,
      fieldset_id: fieldsetId,
    });
  });

  test("an asset made through the form, with its model's custom field; refused input is said next to the field", async () => {
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.goto(`${inventory.url}/hardware/create`);
    await assertAccessible(page, "asset form");
    await browser.current.screenshot(page, `${dialect()}-asset-create`);

    // Nothing typed: the service's messages, beside their fields.
    // The browser's own checks stop an empty required select; the server's are what we test.
    await page.evaluate(
      "document.querySelectorAll('[required]').forEach((e) => e.removeAttribute('required'))",
    );
    await page.getByLabel("Asset Tag").fill("");
    await follow(page, page.getByRole("button", { name: "Save" }).click());
    assert.match(String(await page.locator(".field.has-error").first().textContent()), /asset tag field is required/);
    assert.match(String(await page.locator("#field-model_id-note").textContent()), /model id field is required/);

    await page.getByLabel("Asset Tag").fill("WEB-0001");
    await choose(page.getByLabel("Status"), "W deployable");
    await page.getByLabel("Asset Name").fill("Web laptop");
    await page.getByLabel("Serial").fill("SER-0001");
    // Choosing the model brings its custom field in place (htmx).
    await choose(page.getByLabel("Model"), "W Laptop");
    await page.getByLabel("MAC Address").fill("00:11:22:33:44:55");
    await follow(page, page.getByRole("button", { name: "Save" }).click());
    assert.match(new URL(page.url()).pathname, /^\/hardware\/\d+$/);
    assert.equal(await page.getByRole("status").first().textContent(), "Asset created successfully. :)");
    const details = await page.locator("dl.details").allTextContents();
    assert.match(details.join(" "), /WEB-0001/);
    assert.match(details.join(" "), /00:11:22:33:44:55/);
    await assertAccessible(page, "asset page");
    await browser.current.screenshot(page, `${dialect()}-asset-show`);
  });

  test("without JavaScript, Reload Fields shows the model's custom fields and the list filters by plain GET", async () => {
    const context = await browser.current.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await signIn(page, inventory.url, "admin", "adminpassword");
      await page.goto(`${inventory.url}/hardware/create`);
      assert.equal(await page.getByLabel("MAC Address").count(), 0);
      await choose(page.getByLabel("Model"), "W Laptop");
      await page.getByLabel("Asset Tag").fill("WEB-NOJS");
      await follow(page, page.getByRole("button", { name: "Reload Fields" }).click());
      assert.equal(await page.getByLabel("MAC Address").count(), 1);
      assert.equal(await page.getByLabel("Asset Tag").inputValue(), "WEB-NOJS");

      await page.goto(`${inventory.url}/hardware`);
      await page.getByLabel("Search").fill("WEB-0001");
      await follow(page, page.getByRole("button", { name: "Apply" }).click());
      assert.equal(new URL(page.url()).searchParams.get("search"), "WEB-0001");
      assert.deepEqual(await columnTexts(page, "Asset Tag"), ["WEB-0001"]);
    } finally {
      await context.close();
    }
  });

  test("the list: search, sort by a header, filters, page size and pages, in place with a shareable URL", async () => {
    for (const [tag, status] of [
      ["WEB-0002", fixture.deployable],
      ["WEB-0003", fixture.pending],
      ["WEB-0004", fixture.deployable],
    ] as const)
      await createAsset(inventory, fixture, tag, { status_id: status, name: `List ${tag}` });
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.goto(`${inventory.url}/hardware`);
    await assertAccessible(page, "asset list");
    await browser.current.screenshot(page, `${dialect()}-asset-list`);
    assert.match(String(await page.locator("#asset-list .summary").textContent()), /of 4 assets/);

    await page.getByLabel("Search").fill("WEB-0003");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/search=WEB-0003/);
    await shows(page, "of 1 assets");
    assert.deepEqual(await columnTexts(page, "Asset Tag"), ["WEB-0003"]);

    await page.getByLabel("Search").fill("");
    await page.getByRole("button", { name: "Apply" }).click();
    await shows(page, "of 4 assets");
    await page.getByRole("link", { name: "Asset Tag" }).click();
    await page.waitForURL(/sort=asset_tag&order=asc/);
    await page.waitForSelector('th[aria-sort="ascending"]');
    assert.deepEqual(await columnTexts(page, "Asset Tag"), ["WEB-0001", "WEB-0002", "WEB-0003", "WEB-0004"]);
    await page.getByRole("link", { name: /Asset Tag/ }).click();
    await page.waitForSelector('th[aria-sort="descending"]');
    assert.deepEqual(await columnTexts(page, "Asset Tag"), ["WEB-0004", "WEB-0003", "WEB-0002", "WEB-0001"]);
    // Descending is the default order: the URL says only the sort.
    await page.waitForURL(
      (url) => url.searchParams.get("sort") === "asset_tag" && !url.search.includes("order"),
    );

    // A filter keeps the order chosen by the header.
    await choose(page.locator("#filter-status_id"), "W pending");
    await page.getByRole("button", { name: "Apply" }).click();
    await shows(page, "of 1 assets");
    assert.deepEqual(await columnTexts(page, "Asset Tag"), ["WEB-0003"]);
    assert.match(page.url(), /status_id=\d+/);
    assert.match(page.url(), /sort=asset_tag/);

    // The URL is shareable: opened afresh, it shows the same.
    await page.goto(page.url());
    assert.deepEqual(await columnTexts(page, "Asset Tag"), ["WEB-0003"]);

    // Checked out or not; a column chosen; pages of 20 (of 4: one page, no links).
    await page.goto(`${inventory.url}/hardware?assigned=yes`);
    assert.match(String(await page.locator("#asset-list .summary").textContent()), /No assets found/);
    await page.goto(`${inventory.url}/hardware?col=asset_tag&col=notes&sort=asset_tag&order=asc&limit=20`);
    const headers = await page.locator("table.assets thead th").allTextContents();
    assert.deepEqual(
      headers.map((text) => text.replace(/[▲▼]/g, "").trim()),
      ["Select", "Asset Tag", "Notes", "Checkin/Checkout", "Actions"],
    );
    assert.equal(await page.getByRole("link", { name: "Next" }).count(), 0);
    await page.goto(`${inventory.url}/hardware?sort=asset_tag&order=asc&limit=20&offset=2`);
    assert.match(String(await page.locator("#asset-list .summary").textContent()), /Showing 3 to 4 of 4/);
    await page.getByRole("link", { name: "Previous" }).click();
    await page.waitForURL((url) => !url.search.includes("offset"));
    assert.match(String(await page.locator("#asset-list .summary").textContent()), /Showing 1 to 4 of 4/);

    // Export: the rows of the filter, as CSV, with the chosen columns.
    const cookie = (await sessionCookie(page)).value;
    const csv = await withCookie(
      inventory.url,
      "/hardware/export.csv?search=WEB-000&col=asset_tag&col=name",
      cookie,
    );
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
    const lines = (await csv.text()).trim().split("\n").sort();
    assert.deepEqual(lines, [
      "Asset Tag,Asset Name",
      "WEB-0001,Web laptop",
      "WEB-0002,List WEB-0002",
      "WEB-0003,List WEB-0003",
      "WEB-0004,List WEB-0004",
    ]);
  });
});
