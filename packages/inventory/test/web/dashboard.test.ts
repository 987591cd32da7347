import assert from "node:assert/strict";
import { test } from "node:test";
import { assertAccessible, horizontalOverflow, useBrowser } from "@anvil/core/testing";
import type { Page } from "playwright-core";
import { type AssetFixture, assetFixture, createAsset, type Envelope } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { consoleErrorsOf, dialogsOf, signIn } from "../support/web.ts";

// The dashboard (`/`): counts of what the user may see, assets by status as a chart and a table,
// assets due for audit and check-in, and the latest activity, in a real chromium.

const HOSTILE = `<script>alert("x")</script>"`;

function day(offset: number): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

/** The cells of a table's body, row by row, as text. */
async function cells(page: Page, selector: string): Promise<string[][]> {
  const rows = await page.locator(`${selector} tbody tr`).all();
  return Promise.all(
    rows.map(async (row) => (await row.locator("th, td").allTextContents()).map((text) => text.trim())),
  );
}

/** The dashboard's counts, by label. */
async function counts(page: Page): Promise<Record<string, string>> {
  const items = await page.locator(".dashboard-counts li").allTextContents();
  return Object.fromEntries(items.map((item) => item.trim().split(/\s+/).reverse()));
}

forEachInventory("inventory web: dashboard", (inventory) => {
  const browser = useBrowser();
  let f: AssetFixture;

  test("fixture: assets under three labels, one due for audit, one due back; an accessory", async () => {
    f = await assetFixture(inventory, "dx");
    const renamed = await api<Envelope>(inventory, "PATCH", `/statuslabels/${f.deployable}`, {
      body: { name: HOSTILE, type: "deployable", color: "#1a9641" },
    });
    assert.equal(renamed.body.status, "success", JSON.stringify(renamed.body));
    await createAsset(inventory, f, "DX-1");
    await createAsset(inventory, f, "DX-2", { next_audit_date: day(-3) });
    await createAsset(inventory, f, "DX-3", { assigned_user: f.userId, expected_checkin: day(2) });
    await createAsset(inventory, f, "DX-4", { status_id: f.pending });
    await createAsset(inventory, f, "DX-5", { status_id: f.undeployable, next_audit_date: day(60) });
    const category = await api<Envelope<{ id: number }>>(inventory, "POST", "/categories", {
      body: { name: "dx cables", category_type: "accessory" },
    });
    const accessory = await api<Envelope>(inventory, "POST", "/accessories", {
      body: { name: "dx cable", qty: 3, category_id: category.body.payload.id },
    });
    assert.equal(accessory.body.status, "success", JSON.stringify(accessory.body));
  });

  test("a superuser sees every count, the chart and its table, what is due, and the activity", async () => {
    const page = await browser.current.newPage();
    const dialogs = dialogsOf(page);
    const consoleErrors = consoleErrorsOf(page);
    await signIn(page, inventory.url, "admin", "adminpassword");
    assert.equal(new URL(page.url()).pathname, "/");
    assert.deepEqual(await counts(page), {
      Assets: "5",
      Licenses: "0",
      Accessories: "1",
      Consumables: "0",
      Components: "0",
      People: "2",
    });

    // The table has the numbers, the label's name as text; the chart has a slice per row.
    assert.deepEqual(await cells(page, "#assets-by-status"), [
      [HOSTILE, "3"],
      ["dx pending", "1"],
      ["dx undeployable", "1"],
    ]);
    await page.locator("#assets-by-status-chart svg").waitFor();
    assert.equal(await page.locator("#assets-by-status-chart svg path.ct-slice-pie").count(), 3);
    assert.equal(
      await page.locator("#assets-by-status-chart path.ct-slice-pie").first().getAttribute("fill"),
      "#1a9641",
    );
    const html = await page.content();
    assert.ok(!html.includes("<script>alert"), "the label's markup reached the page");
    assert.deepEqual(dialogs, []);
    assert.deepEqual(consoleErrors, []);

    // Due: the overdue audit (not the one two months away), the check-in due in two days.
    assert.deepEqual(await cells(page, "#due-for-audit"), [["DX-2", "dx X1", day(-3)]]);
    assert.deepEqual(await cells(page, "#due-for-checkin"), [["DX-3", "dx X1", day(2)]]);
    const activity = await cells(page, "#recent-activity");
    assert.equal(activity.length, 10);
    assert.deepEqual(activity[0].slice(1), ["Admin", "create new", "dx cable", ""]);

    await assertAccessible(page, "dashboard");
    await browser.current.screenshot(page, `${inventory.database.dialect}-dashboard`);
  });

  test("the page's scripts: htmx and the chart's, under 60 KB compressed together", async () => {
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.locator("#assets-by-status-chart svg").waitFor();
    const scripts = await page
      .locator("script")
      .evaluateAll((elements) => elements.map((element) => element.getAttribute("src")));
    let compressed = 0;
    for (const src of scripts) {
      assert.ok(src, "an inline script");
      const answer = await fetch(new URL(src, inventory.url), { headers: { "accept-encoding": "gzip" } });
      assert.equal(answer.headers.get("content-encoding"), "gzip");
      // fetch hands back the body unpacked: the bytes sent are the header's.
      compressed += Number(answer.headers.get("content-length"));
      await answer.arrayBuffer();
    }
    assert.equal(scripts.length, 2);
    assert.ok(compressed > 20 * 1024 && compressed < 60 * 1024, `${compressed} bytes of script`);
  });

  test("a user sees only the counts and parts they may view, and fits 360 px", async () => {
    await userWithToken(inventory, "dxviewer", { "assets.view": "1" });
    const page = await browser.current.newPage({ width: 360, height: 740 });
    await signIn(page, inventory.url, "dxviewer", "password123");
    assert.deepEqual(await counts(page), { Assets: "5" });
    assert.equal(await page.locator("#assets-by-status").count(), 0);
    assert.equal(await page.locator("#recent-activity").count(), 0);
    assert.equal(await page.locator("#due-for-audit tbody tr").count(), 1);
    // No chart, so no chart's script.
    assert.equal(await page.locator('script[src*="status-chart"]').count(), 0);
    assert.equal(await horizontalOverflow(page), 0);
    await assertAccessible(page, "dashboard (viewer)");
    await browser.current.screenshot(page, `${inventory.database.dialect}-dashboard-360`);
  });
});
