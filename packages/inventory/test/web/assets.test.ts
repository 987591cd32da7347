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
  let fieldId: number;
  let fieldModelId: number;
  const dialect = () => inventory.database.dialect;

  test("setup: labels, models (one with a custom field), locations and a user, through the API", async () => {
    fixture = await assetFixture(inventory, "W");
    fieldId = await created(inventory, "/fields", {
      name: "MAC Address",
      element: "text",
      format: "ANY",
    });
    const fieldsetId = await created(inventory, "/fieldsets", { name: "Laptops" });
    const associated = await api<Envelope>(inventory, "POST", `/fields/${fieldId}/associate`, {
      body: { fieldset_id: fieldsetId },
    });
    assert.equal(associated.body.status, "success", JSON.stringify(associated.body));
    fieldModelId = await created(inventory, "/models", {
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
    assert.match(
      String(await page.locator(".field.has-error").first().textContent()),
      /asset tag field is required/,
    );
    assert.match(
      String(await page.locator("#field-model_id-note").textContent()),
      /model id field is required/,
    );

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
    // A blocked script or style, a missing file, an htmx error: each is a console error.
    const consoleErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.goto(`${inventory.url}/hardware`);
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

    // axe runs after the updates in place: it leaves style="" on elements, which htmx would then
    // copy over on a swap, and the pages' policy refuses (a console error of the test's own making).
    assert.deepEqual(consoleErrors, []);
    await assertAccessible(page, "asset list, filtered and sorted in place");

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
    // A custom field is a column too, sorted by its value (the assets without one last, descending).
    const mac = `_snipeit_mac_address_${fieldId}`;
    await page.goto(`${inventory.url}/hardware?col=asset_tag&col=${mac}&sort=${mac}`);
    assert.deepEqual((await columnTexts(page, "MAC Address"))[0], "00:11:22:33:44:55");
    assert.deepEqual((await columnTexts(page, "Asset Tag"))[0], "WEB-0001");
    assert.equal(await page.getByLabel("MAC Address").isChecked(), true);
    await page.goto(`${inventory.url}/hardware?sort=asset_tag&order=asc&limit=20&offset=2`);
    assert.match(String(await page.locator("#asset-list .summary").textContent()), /Showing 3 to 4 of 4/);
    await page.getByRole("link", { name: "Previous" }).click();
    await page.waitForURL((url) => !url.search.includes("offset"));
    assert.match(String(await page.locator("#asset-list .summary").textContent()), /Showing 1 to 4 of 4/);
    await browser.current.screenshot(page, `${dialect()}-asset-list`);

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

  /** The id of the asset with this tag (through the API). */
  async function assetId(tag: string): Promise<number> {
    const found = await api<{ id: number }>(inventory, "GET", `/hardware/bytag/${encodeURIComponent(tag)}`);
    assert.equal(found.status, 200, `no asset ${tag}`);
    return found.body.id;
  }

  async function holderOf(id: number) {
    return (await api<{ assigned_to: { id: number } | null }>(inventory, "GET", `/hardware/${id}`)).body
      .assigned_to;
  }

  test("checkout to a user and checkin, both in the history; a file uploaded and downloaded; the label", async () => {
    const id = await createAsset(inventory, fixture, "OUT-1");
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.goto(`${inventory.url}/hardware/${id}`);
    await follow(page, page.getByRole("link", { name: "Checkout", exact: true }).click());
    assert.equal(new URL(page.url()).pathname, `/hardware/${id}/checkout`);
    await assertAccessible(page, "checkout form");
    await browser.current.screenshot(page, `${dialect()}-asset-checkout`);
    // Only a deployable label may come with a checkout.
    const labels = await page.getByLabel("Status").locator("option").allTextContents();
    assert.ok(labels.includes("W deployable") && !labels.includes("W pending"), labels.join("|"));
    await choose(page.getByLabel("Select a User"), "WFirst");
    await page.getByLabel("Notes").fill("Going out");
    await follow(page, page.getByRole("button", { name: "Checkout" }).click());
    assert.equal(new URL(page.url()).pathname, `/hardware/${id}`);
    assert.equal(await page.getByRole("status").first().textContent(), "Asset checked out successfully.");
    assert.match(
      (await page.locator("dl.details").first().textContent()) ?? "",
      /Checked Out To\s*WFirst Holder/,
    );
    assert.equal((await holderOf(id))?.id, fixture.userId);

    await follow(page, page.getByRole("link", { name: "Checkin", exact: true }).click());
    await assertAccessible(page, "checkin form");
    await browser.current.screenshot(page, `${dialect()}-asset-checkin`);
    await page.getByLabel("Notes").fill("Back home");
    await follow(page, page.getByRole("button", { name: "Checkin" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "Asset checked in successfully.");
    assert.equal(await holderOf(id), null);
    // Checked in already: its page says so, rather than a form that could only be refused.
    await page.goto(`${inventory.url}/hardware/${id}/checkin`);
    assert.equal(new URL(page.url()).pathname, `/hardware/${id}`);
    assert.equal(await page.locator(".flash-error").textContent(), "That asset is already checked in.");
    const history = await page.locator("table").last().locator("tbody tr").allTextContents();
    assert.ok(
      history.some((row) => /checkout/.test(row) && /Going out/.test(row)),
      history.join("\n"),
    );
    assert.ok(
      history.some((row) => /checkin from/.test(row) && /Back home/.test(row)),
      history.join("\n"),
    );

    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "receipt.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("paid in full\n"),
    });
    await page.getByLabel("Notes").fill("The receipt");
    await follow(page, page.getByRole("button", { name: "Upload" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "File(s) successfully uploaded.");
    const link = page.getByRole("link", { name: "receipt.txt" });
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    const path = await download.path();
    const { readFile } = await import("node:fs/promises");
    assert.equal(await readFile(path, "utf8"), "paid in full\n");

    const [label] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Generate Label" }).click(),
    ]);
    assert.match(label.suggestedFilename(), /\.pdf$/);
    assert.equal((await readFile(await label.path())).subarray(0, 5).toString(), "%PDF-");
    assert.equal(await page.getByRole("img", { name: /QR code/ }).count(), 1);
  });

  test("three assets checked out at once from the list, each with its result", async () => {
    for (const tag of ["BULK-1", "BULK-2", "BULK-3"]) await createAsset(inventory, fixture, tag);
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.goto(`${inventory.url}/hardware?search=BULK`);
    for (const tag of ["BULK-1", "BULK-2", "BULK-3"]) await page.getByLabel(`Select ${tag}`).check();
    await follow(page, page.getByRole("button", { name: "Bulk Checkout" }).click());
    assert.equal(new URL(page.url()).pathname, "/hardware/bulk/checkout");
    assert.deepEqual((await page.locator("main ul li").allTextContents()).sort(), [
      "BULK-1",
      "BULK-2",
      "BULK-3",
    ]);
    await assertAccessible(page, "bulk checkout");
    await choose(page.getByLabel("Select a User"), "WFirst");
    await follow(page, page.getByRole("button", { name: "Checkout" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "3 assets checked out.");
    const rows = await page.locator("tbody tr").allTextContents();
    assert.equal(rows.length, 3);
    assert.ok(
      rows.every((row) => /Success/.test(row) && /Asset checked out successfully/.test(row)),
      rows.join("\n"),
    );
    await assertAccessible(page, "bulk result");
    for (const tag of ["BULK-1", "BULK-2", "BULK-3"])
      assert.equal((await holderOf(await assetId(tag)))?.id, fixture.userId);

    // An audit of the three, through the same bulk write.
    const ids = await Promise.all(["BULK-1", "BULK-2", "BULK-3"].map(assetId));
    await page.goto(`${inventory.url}/hardware/bulk/audit?${ids.map((id) => `ids=${id}`).join("&")}`);
    await assertAccessible(page, "bulk audit");
    await page.getByLabel("Notes").fill("Stocktaking");
    await follow(page, page.getByRole("button", { name: "Audit" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "3 assets audited.");

    // One checked in; then a checkout of two, one of them out still: each says how it went.
    await page.goto(`${inventory.url}/hardware/bulk/checkin?ids=${ids[0]}`);
    await follow(page, page.getByRole("button", { name: "Checkin" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "1 assets checked in.");
    await page.goto(`${inventory.url}/hardware/bulk/checkout?ids=${ids[0]}&ids=${ids[1]}`);
    await choose(page.getByLabel("Select a User"), "WFirst");
    await follow(page, page.getByRole("button", { name: "Checkout" }).click());
    assert.equal(await page.getByRole("alert").first().textContent(), "1 of 2 assets checked out; 1 failed.");
    const outcomes = await page.locator("tbody tr").allTextContents();
    assert.match(outcomes[0], /BULK-1\s*Success/);
    assert.match(outcomes[1], /BULK-2\s*Failed\s*That asset is not available for checkout!/);
  });

  test("two browsers checking out the same asset at once: one succeeds, the other is refused", async () => {
    const id = await createAsset(inventory, fixture, "RACE-1");
    const pages = [await browser.current.newPage(), await browser.current.newPage()];
    for (const page of pages) {
      await signIn(page, inventory.url, "admin", "adminpassword");
      await page.goto(`${inventory.url}/hardware/${id}/checkout`);
      await choose(page.getByLabel("Select a User"), "WFirst");
    }
    await Promise.all(
      pages.map((page) => follow(page, page.getByRole("button", { name: "Checkout" }).click())),
    );
    const outcomes = await Promise.all(
      pages.map(async (page) => ({
        path: new URL(page.url()).pathname,
        said: (await page.locator(".flash").first().textContent()) ?? "",
      })),
    );
    const won = outcomes.filter((outcome) => outcome.said === "Asset checked out successfully.");
    const refused = outcomes.filter(
      (outcome) => outcome.said === "That asset is not available for checkout!",
    );
    assert.equal(won.length, 1, JSON.stringify(outcomes));
    assert.equal(refused.length, 1, JSON.stringify(outcomes));
    assert.equal(refused[0].path, `/hardware/${id}/checkout`);
    assert.equal((await holderOf(id))?.id, fixture.userId);
    const history = await api<{ rows: { action_type: string }[] }>(
      inventory,
      "GET",
      `/hardware/${id}/history`,
    );
    assert.equal(history.body.rows.filter((row) => row.action_type === "checkout").length, 1);
  });

  test("a read-only user sees no buttons to change assets, and a forged form is refused", async () => {
    await userWithToken(inventory, "viewer", { "assets.view": "1" });
    const id = await assetId("WEB-0004");
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "viewer", "password123");
    await page.goto(`${inventory.url}/hardware`);
    assert.match(String(await page.locator("#asset-list .summary").textContent()), /assets/);
    for (const name of ["Create New", "Checkout", "Edit", "Clone"])
      assert.equal(await page.getByRole("link", { name, exact: true }).count(), 0, name);
    assert.equal(await page.getByRole("button", { name: /Bulk/ }).count(), 0);
    assert.equal(await page.locator('input[name="ids"]').count(), 0);
    await assertAccessible(page, "asset list, read-only");
    await page.goto(`${inventory.url}/hardware/${id}`);
    for (const name of ["Edit Asset", "Clone Asset", "Checkout", "Audit"])
      assert.equal(await page.getByRole("link", { name, exact: true }).count(), 0, name);
    assert.equal(await page.getByRole("link", { name: "Delete" }).count(), 0);
    assert.equal(await page.getByRole("button", { name: "Upload" }).count(), 0);

    const session = (await sessionCookie(page)).value;
    const token = await csrfToken(page);
    const forged: [string, Record<string, string>][] = [
      [`/hardware/${id}/checkout`, { checkout_to_type: "user", assigned_user: String(fixture.userId) }],
      [
        `/hardware/${id}`,
        { asset_tag: "FORGED", model_id: String(fixture.modelId), status_id: String(fixture.deployable) },
      ],
      [`/hardware/${id}/delete`, {}],
      [
        "/hardware",
        { asset_tag: "FORGED", model_id: String(fixture.modelId), status_id: String(fixture.deployable) },
      ],
      ["/hardware/bulk/delete", { ids: String(id) }],
    ];
    for (const [path, form] of forged) {
      const answer = await withCookie(inventory.url, path, session, {
        method: "POST",
        form: { _csrf: token, ...form },
      });
      assert.equal(answer.status, 403, path);
    }
    for (const path of [
      `/hardware/${id}/checkout`,
      `/hardware/${id}/delete`,
      `/hardware/${id}/edit`,
      "/hardware/create",
      `/hardware/bulk/delete?ids=${id}`,
    ])
      assert.equal((await withCookie(inventory.url, path, session)).status, 403, path);
    const after = await api<{ asset_tag: string; assigned_to: unknown; deleted_at: unknown }>(
      inventory,
      "GET",
      `/hardware/${id}`,
    );
    assert.deepEqual(
      [after.body.asset_tag, after.body.assigned_to, after.body.deleted_at],
      ["WEB-0004", null, null],
    );
  });

  test(`${HOSTILE} in every text field is shown as typed, never as markup`, async () => {
    const locationId = await created(inventory, "/locations", { name: `Loc ${HOSTILE}` });
    const modelId = await created(inventory, "/models", {
      name: `Model ${HOSTILE}`,
      category_id: fixture.categoryId,
    });
    await created(inventory, "/users", {
      first_name: `Esc${HOSTILE}`,
      last_name: "Person",
      username: "escaper",
      password: "password123",
      password_confirmation: "password123",
    });
    const tag = `TAG${HOSTILE}`;
    const id = await createAsset(inventory, fixture, tag, {
      model_id: modelId,
      name: `Name ${HOSTILE}`,
      serial: `Serial ${HOSTILE}`,
      notes: `Notes ${HOSTILE}`,
      order_number: `Order ${HOSTILE}`,
      rtd_location_id: locationId,
    });
    // A value a spreadsheet would run as a formula, and one in a custom field.
    await createAsset(inventory, fixture, "TAG-FORMULA", { name: "=HYPERLINK(1)" });
    const field = await api<{ db_column_name: string }>(inventory, "GET", `/fields/${fieldId}`);
    const customId = await createAsset(inventory, fixture, "TAG-CUSTOM", {
      model_id: fieldModelId,
      [field.body.db_column_name]: `Mac ${HOSTILE}`,
    });
    const page = await browser.current.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signIn(page, inventory.url, "admin", "adminpassword");
    const visit = async (path: string, what: string) => {
      await page.goto(`${inventory.url}${path}`);
      const html = await page.content();
      assert.ok(!html.includes("<script>alert"), `markup from a value on ${what}`);
      return (await page.locator("main").textContent()) ?? "";
    };
    const list = await visit(
      `/hardware?search=TAG&col=asset_tag&col=name&col=serial&col=model&col=location&col=notes&col=order_number`,
      "the list",
    );
    for (const value of [
      tag,
      `Name ${HOSTILE}`,
      `Serial ${HOSTILE}`,
      `Model ${HOSTILE}`,
      `Loc ${HOSTILE}`,
      `Notes ${HOSTILE}`,
      `Order ${HOSTILE}`,
    ])
      assert.ok(list.includes(value), `${value} on the list`);
    assert.ok((await visit(`/hardware/${customId}`, "a custom field")).includes(`Mac ${HOSTILE}`));
    await visit(`/hardware/${customId}/edit`, "a custom field's input");
    assert.equal(await page.getByLabel("MAC Address").inputValue(), `Mac ${HOSTILE}`);
    const shown = await visit(`/hardware/${id}`, "the asset's page");
    for (const value of [tag, `Name ${HOSTILE}`, `Serial ${HOSTILE}`, `Notes ${HOSTILE}`, `Order ${HOSTILE}`])
      assert.ok(shown.includes(value), `${value} on the asset's page`);
    await visit(`/hardware/${id}/edit`, "the form");
    assert.equal(await page.getByLabel("Asset Tag").inputValue(), tag);
    assert.equal(await page.getByLabel("Notes").inputValue(), `Notes ${HOSTILE}`);
    await assertAccessible(page, "edit form");
    await browser.current.screenshot(page, `${dialect()}-asset-edit`);
    await visit(`/hardware/${id}/checkout`, "the checkout form");
    await choose(page.getByLabel("Select a User"), `Esc${HOSTILE}`);
    await page.getByLabel("Notes").fill(`Note ${HOSTILE}`);
    await follow(page, page.getByRole("button", { name: "Checkout" }).click());
    const after = (await page.locator("main").textContent()) ?? "";
    assert.ok(after.includes(`Esc${HOSTILE} Person`), "the holder's name");
    assert.ok(after.includes(`Note ${HOSTILE}`), "the note in the history");
    assert.ok(!(await page.content()).includes("<script>alert"));
    const csv = await withCookie(
      inventory.url,
      `/hardware/export.csv?search=TAG&col=asset_tag`,
      (await sessionCookie(page)).value,
    );
    assert.equal((await csv.text()).split("\n")[1], `"TAG<script>alert(""x"")</script>"""`);
    const formula = await withCookie(
      inventory.url,
      "/hardware/export.csv?search=TAG-FORMULA&col=asset_tag&col=name",
      (await sessionCookie(page)).value,
    );
    assert.equal((await formula.text()).split("\n")[1], `TAG-FORMULA,'=HYPERLINK(1)`);
    assert.deepEqual(dialogs, []);
  });

  test("edit, clone, audit, bulk edit of status and location, delete and bulk delete", async () => {
    const id = await createAsset(inventory, fixture, "LIFE-1", { name: "Before" });
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "admin", "adminpassword");

    await page.goto(`${inventory.url}/hardware/${id}/edit`);
    assert.equal(await page.getByLabel("Asset Tag").inputValue(), "LIFE-1");
    await page.getByLabel("Asset Name").fill("After");
    await page.getByLabel("Purchase Cost").fill("-5");
    await follow(page, page.getByRole("button", { name: "Save" }).click());
    assert.match(String(await page.locator("#field-purchase_cost-note").textContent()), /at least 0/);
    await page.getByLabel("Purchase Cost").fill("1234.5");
    await follow(page, page.getByRole("button", { name: "Save" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "Asset updated successfully.");
    assert.match(String(await page.locator("dl.details").first().textContent()), /After[\s\S]*1,234.50/);

    await follow(page, page.getByRole("link", { name: "Clone Asset" }).click());
    await assertAccessible(page, "clone form");
    assert.equal(await page.getByLabel("Asset Tag").inputValue(), "");
    assert.equal(await page.getByLabel("Asset Name").inputValue(), "After");
    await page.getByLabel("Asset Tag").fill("LIFE-2");
    await follow(page, page.getByRole("button", { name: "Save" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "Asset created successfully. :)");
    const cloneId = await assetId("LIFE-2");
    assert.equal(new URL(page.url()).pathname, `/hardware/${cloneId}`);

    await page.goto(`${inventory.url}/hardware/${id}/audit`);
    await assertAccessible(page, "audit form");
    await choose(page.getByLabel("Location", { exact: true }), "W Branch");
    await page.getByLabel("Update the location").check();
    await page.getByLabel("Notes").fill("Seen on the shelf");
    await follow(page, page.getByRole("button", { name: "Audit" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "Asset audit successfully logged.");
    const audited = (
      await api<{ location: { id: number }; last_audit_date: unknown }>(inventory, "GET", `/hardware/${id}`)
    ).body;
    assert.equal(audited.location.id, fixture.otherLocationId);
    assert.notEqual(audited.last_audit_date, null);

    await page.goto(`${inventory.url}/hardware?search=LIFE`);
    for (const tag of ["LIFE-1", "LIFE-2"]) await page.getByLabel(`Select ${tag}`).check();
    await follow(page, page.getByRole("button", { name: "Bulk Edit" }).click());
    await assertAccessible(page, "bulk edit");
    await choose(page.getByLabel("Status"), "W pending");
    await follow(page, page.getByRole("button", { name: "Save" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "2 assets updated.");
    for (const asset of [id, cloneId]) {
      const shown = (
        await api<{ status_label: { id: number }; name: string }>(inventory, "GET", `/hardware/${asset}`)
      ).body;
      assert.deepEqual([shown.status_label.id, shown.name], [fixture.pending, "After"]);
    }

    await page.goto(`${inventory.url}/hardware/${cloneId}`);
    await follow(page, page.getByRole("link", { name: "Delete" }).click());
    await assertAccessible(page, "delete");
    await follow(page, page.getByRole("button", { name: "Delete" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "The asset was deleted successfully.");
    await page.goto(`${inventory.url}/hardware/bulk/delete?ids=${id}`);
    await assertAccessible(page, "bulk delete");
    await follow(page, page.getByRole("button", { name: "Delete" }).click());
    assert.equal(await page.getByRole("status").first().textContent(), "1 assets deleted.");
    for (const asset of [id, cloneId])
      assert.notEqual(
        (await api<{ deleted_at: unknown }>(inventory, "GET", `/hardware/${asset}`)).body.deleted_at,
        null,
      );
  });

  test("at 360 px wide the list and the asset's page do not scroll sideways", async () => {
    const page = await browser.current.newPage({ width: 360, height: 740 });
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.goto(`${inventory.url}/hardware`);
    assert.equal(await horizontalOverflow(page), 0);
    await page.goto(`${inventory.url}/hardware/${await assetId("WEB-0001")}`);
    assert.equal(await horizontalOverflow(page), 0);
  });
});
