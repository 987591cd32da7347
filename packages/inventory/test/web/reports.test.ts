import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { assertAccessible, horizontalOverflow, useBrowser } from "@anvil/core/testing";
import { parse } from "csv-parse/sync";
import type { Page } from "playwright-core";
import { type AssetFixture, assetFixture, createAsset, type Envelope } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { consoleErrorsOf, dialogsOf, sessionCookie, signIn, withCookie } from "../support/web.ts";

// The activity report (/reports/activity): the API's filters narrow it in place, the CSV download
// holds the same rows, and only holders of reports.view see it, in a real chromium.

const HOSTILE = `<script>alert("x")</script>"`;
const FORMULA = "=HYPERLINK(1)";

function day(offset: number): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

/** The report table's rows as their Action, Type, Item, To and Notes cells. */
async function reportRows(page: Page): Promise<string[][]> {
  const rows = await page.locator("#activity-table tbody tr").all();
  return Promise.all(
    rows.map(async (row) =>
      (await row.locator("td").allTextContents()).slice(2, 7).map((text) => text.trim()),
    ),
  );
}

/**
 * Does what changes the report and waits for htmx to have put the new one in place and its URL in
 * the address bar (the listener is in place before the click: the page runs them in order).
 */
async function filtered(page: Page, act: () => Promise<void>) {
  const done = page.evaluate(`Promise.all(["htmx:afterSettle", "htmx:pushedIntoHistory"].map((name) =>
    new Promise((resolve) => document.body.addEventListener(name, resolve, { once: true }))))`);
  await act();
  await done;
}

forEachInventory("inventory web: activity report", (inventory) => {
  const browser = useBrowser();
  let f: AssetFixture;
  let assetId: number;

  test("fixture: an asset made, checked out with a note and checked in", async () => {
    f = await assetFixture(inventory, "rx");
    assetId = await createAsset(inventory, f, "RX-1");
    const out = await api<Envelope>(inventory, "POST", `/hardware/${assetId}/checkout`, {
      body: { checkout_to_type: "user", assigned_user: f.userId, note: HOSTILE },
    });
    assert.equal(out.body.status, "success");
    const back = await api<Envelope>(inventory, "POST", `/hardware/${assetId}/checkin`, {
      body: { note: FORMULA },
    });
    assert.equal(back.body.status, "success");
  });

  test("filters narrow the rows in place; the download holds the same rows", async () => {
    const page = await browser.current.newPage();
    const dialogs = dialogsOf(page);
    const consoleErrors = consoleErrorsOf(page);
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.getByRole("link", { name: "Reports" }).click();
    await page.waitForURL("**/reports/activity");
    assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Activity Report");
    const everything = String(await page.getByRole("status").textContent());
    assert.match(everything, /^Showing 1 to \d+ of \d+$/);

    await filtered(page, async () => {
      await page.getByLabel("Action").selectOption("checkout");
      await page.getByRole("button", { name: "Filter" }).click();
    });
    assert.match(page.url(), /action_type=checkout/);
    assert.deepEqual(await reportRows(page), [["checkout", "asset", "RX-1", "rxFirst Holder", HOSTILE]]);

    await filtered(page, async () => {
      await page.getByLabel("Action").selectOption("");
      await page.getByLabel("Item Type").selectOption("asset");
      await page.getByRole("button", { name: "Filter" }).click();
    });
    assert.deepEqual(await reportRows(page), [
      ["checkin from", "asset", "RX-1", "rxFirst Holder", FORMULA],
      ["checkout", "asset", "RX-1", "rxFirst Holder", HOSTILE],
      ["create new", "asset", "RX-1", "", ""],
    ]);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(consoleErrors, []);
    assert.ok(!(await page.content()).includes("<script>alert"), "the note's markup reached the page");
    await assertAccessible(page, "activity report");
    await browser.current.screenshot(page, `${inventory.database.dialect}-activity-report`);

    // The download: the same rows, the text as typed, the formula made inert.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    const csv = parse(await readFile(String(await download.path()), "utf8"), { columns: true }) as Record<
      string,
      string
    >[];
    assert.deepEqual(
      csv.map((row) => [row.Action, row.Type, row.Item, row.To, row.Notes]),
      [
        ["checkin from", "asset", "RX-1", "rxFirst Holder", `'${FORMULA}`],
        ["checkout", "asset", "RX-1", "rxFirst Holder", HOSTILE],
        ["create new", "asset", "RX-1", "", ""],
      ],
    );
    assert.equal(csv[0].Admin, "Admin");

    // Sorting by a column, in place; a second click turns the order round; the filter stays.
    await filtered(page, () => page.getByRole("link", { name: "Action" }).click());
    assert.match(page.url(), /item_type=asset&sort=action_type&order=desc/);
    assert.equal(await page.locator('th[aria-sort="descending"]').textContent(), "Action ▼");
    assert.deepEqual(
      (await reportRows(page)).map((row) => row[0]),
      ["create new", "checkout", "checkin from"],
    );
    await filtered(page, () => page.getByRole("link", { name: "Action" }).click());
    assert.equal(await page.locator("th[aria-sort]").getAttribute("aria-sort"), "ascending");
    assert.deepEqual(
      (await reportRows(page)).map((row) => row[0]),
      ["checkin from", "checkout", "create new"],
    );

    // A period: entries of today are in, those from tomorrow on are none.
    await filtered(page, async () => {
      await page.getByLabel("Start Date").fill(day(1));
      await page.getByRole("button", { name: "Filter" }).click();
    });
    assert.equal(await page.getByRole("status").textContent(), "No activity matches.");
    await filtered(page, async () => {
      await page.getByLabel("Start Date").fill(day(0));
      await page.getByLabel("End Date").fill(day(0));
      await page.getByRole("button", { name: "Filter" }).click();
    });
    assert.equal((await reportRows(page)).length, 3);
  });

  test("the report pages in place, 25 rows a page, and the filters stay with the pages", async () => {
    // Enough entries for two pages of the Create New filter.
    for (let n = 0; n < 14; n += 1) {
      const made = await api<Envelope>(inventory, "POST", "/manufacturers", {
        body: { name: `rx maker ${n}` },
      });
      assert.equal(made.body.status, "success");
    }
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.goto(`${inventory.url}/reports/activity?action_type=create`);
    const status = page.getByRole("status");
    const total = Number(/of (\d+)$/.exec(String(await status.textContent()))?.[1]);
    assert.ok(total > 25 && total <= 50, `${total} entries`);
    assert.equal(await status.textContent(), `Showing 1 to 25 of ${total}`);
    await filtered(page, () => page.getByRole("link", { name: "Next" }).click());
    assert.equal(await status.textContent(), `Showing 26 to ${total} of ${total}`);
    assert.match(page.url(), /action_type=create&offset=25/);
    const second = await reportRows(page);
    assert.equal(second.length, total - 25);
    assert.ok(second.every((row) => row[0] === "create new"));
    assert.equal(await page.getByRole("link", { name: "Next" }).count(), 0);
    await filtered(page, () => page.getByRole("link", { name: "Previous" }).click());
    assert.equal(await status.textContent(), `Showing 1 to 25 of ${total}`);
  });

  test("without JavaScript the filters are a form; a bad date is the form again with its message", async () => {
    const page = await browser.current.newPage({ width: 360, height: 740 });
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.goto(
      `${inventory.url}/reports/activity?item_type=asset&item_id=${assetId}&action_type=create`,
    );
    assert.deepEqual(await reportRows(page), [["create new", "asset", "RX-1", "", ""]]);
    assert.equal(await horizontalOverflow(page), 0);
    await browser.current.screenshot(page, `${inventory.database.dialect}-activity-report-360`);

    const bad = await page.goto(
      `${inventory.url}/reports/activity?start_date=${encodeURIComponent(HOSTILE)}`,
    );
    assert.equal(bad?.status(), 422);
    assert.equal(
      await page.locator("#field-start_date-note").textContent(),
      "The start date field must be a valid date.",
    );
    assert.equal(await page.getByLabel("Start Date").inputValue(), "");
    // The API refuses it alike, in Snipe-IT's envelope.
    const refused = await api<Envelope>(inventory, "GET", "/reports/activity?end_date=nope");
    assert.equal(refused.body.status, "error");
    assert.deepEqual(refused.body.messages, { end_date: ["The end date field must be a valid date."] });
    const csv = await withCookie(
      inventory.url,
      "/reports/activity.csv?end_date=nope",
      (await sessionCookie(page)).value,
    );
    assert.equal(csv.status, 422);
    await assertAccessible(page, "activity report with an error");
  });

  test("a user without reports.view sees no Reports link and is refused the report and its download", async () => {
    await userWithToken(inventory, "rxviewer", { "assets.view": "1" });
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "rxviewer", "password123");
    assert.equal(await page.getByRole("link", { name: "Reports" }).count(), 0);
    assert.equal(await page.getByRole("link", { name: "Import" }).count(), 0);
    const answer = await page.goto(`${inventory.url}/reports/activity`);
    assert.equal(answer?.status(), 403);
    assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Error 403");
    const session = (await sessionCookie(page)).value;
    const csv = await withCookie(inventory.url, "/reports/activity.csv", session);
    assert.equal(csv.status, 403);
    assert.ok(!(await csv.text()).includes("RX-1"));
  });
});
