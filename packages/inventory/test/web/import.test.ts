import assert from "node:assert/strict";
import { test } from "node:test";
import { assertAccessible, horizontalOverflow, useBrowser } from "@anvil/core/testing";
import type { Envelope } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import {
  consoleErrorsOf,
  csrfToken,
  dialogsOf,
  SESSION_COOKIE,
  sessionCookie,
  signIn,
} from "../support/web.ts";

// The importer (/import): upload a CSV through the page, map a column the importer does not know
// by name, run it, watch its progress reach the end, read the failed row's error; and the `import`
// gate, in a real chromium.

const HOSTILE = `<script>alert("x")</script>"`;
/** A CSV header or cell holding the hostile text. */
const QUOTED = `"${HOSTILE.replaceAll('"', '""')}"`;

const CSV = [
  `Tag,Item Name,Model Name,Category,Purchase Date,${QUOTED}`,
  "WI-1,Web One,WebBook,Web laptops,2024-01-01,a",
  `WI-2,${QUOTED},WebBook,Web laptops,not-a-date,b`,
  "WI-3,Web Three,WebBook,Web laptops,,c",
].join("\n");

forEachInventory("inventory web: import", (inventory) => {
  const browser = useBrowser();

  test("upload, map, import: the progress reaches the end and the bad row's error is shown", async () => {
    const page = await browser.current.newPage();
    const dialogs = dialogsOf(page);
    const consoleErrors = consoleErrorsOf(page);
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.getByRole("link", { name: "Import" }).click();
    await page.waitForURL("**/import");
    await assertAccessible(page, "import");
    await page.getByLabel("Select Import File").setInputFiles({
      name: "web-import.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(CSV),
    });
    await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Upload" }).click()]);
    assert.match(new URL(page.url()).pathname, /^\/import\/\d+$/);
    assert.match(String(await page.getByRole("status").textContent()), /has been uploaded/);

    // The importer's own header matching fills the selects; "Tag" it does not know.
    assert.equal(await page.getByLabel("Tag", { exact: true }).inputValue(), "");
    assert.equal(await page.getByLabel("Item Name", { exact: true }).inputValue(), "item_name");
    assert.equal(await page.getByLabel("Model Name", { exact: true }).inputValue(), "asset_model");
    assert.equal(await page.getByLabel(HOSTILE, { exact: true }).inputValue(), "");
    assert.equal(await page.getByLabel("Import Type").inputValue(), "asset");
    await assertAccessible(page, "import mapping");
    await browser.current.screenshot(page, `${inventory.database.dialect}-import-mapping`);

    await page.getByLabel("Tag", { exact: true }).selectOption("asset_tag");
    await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Import" }).click()]);
    // htmx polls the progress until the import ends.
    await page.locator("#import-summary", { hasText: "Completed" }).waitFor();
    assert.equal(
      (await page.locator("#import-summary").textContent())?.replace(/\s+/g, " ").trim(),
      "Completed: 3 of 3 rows. 2 created, 0 updated, 0 unchanged, 1 failed.",
    );
    assert.equal(await page.locator("#import-bar").getAttribute("value"), "3");
    assert.equal(await page.locator("#import-bar").getAttribute("max"), "3");
    const errors = await page.locator("#import-errors tbody tr").all();
    assert.equal(errors.length, 1);
    assert.deepEqual(
      (await errors[0].locator("td").allTextContents()).map((text) => text.trim()),
      ["3", HOSTILE, "purchase_date", "The purchase date field must be a valid date."],
    );
    assert.deepEqual(dialogs, []);
    assert.deepEqual(consoleErrors, []);
    assert.ok(!(await page.content()).includes("<script>alert"), "the CSV's markup reached the page");
    await assertAccessible(page, "import finished");
    await browser.current.screenshot(page, `${inventory.database.dialect}-import-finished`);

    // While an import runs its page asks for its progress until it ends: shown here by setting the
    // stored progress by hand, which the page then follows without being reloaded.
    const database = inventory.server.app.database;
    assert.ok(database);
    const id = Number(new URL(page.url()).pathname.split("/").pop());
    const progress = (set: Record<string, unknown>) =>
      database.db.updateTable("imports").set(set).where("id", "=", id).execute();
    await progress({ import_status: "processing", rows_processed: 1, updated_at: new Date().toISOString() });
    await page.reload();
    assert.equal(
      (await page.locator("#import-summary").textContent())?.replace(/\s+/g, " ").trim(),
      "Processing: 1 of 3 rows. 2 created, 0 updated, 0 unchanged, 1 failed.",
    );
    assert.equal(await page.getByRole("button", { name: "Import" }).count(), 0, "no second run meanwhile");
    const polled = page.waitForResponse((answer) => answer.url().endsWith(`/import/${id}/progress`));
    await progress({ import_status: "completed", rows_processed: 3 });
    await polled;
    await page.getByRole("link", { name: "Import this file again" }).waitFor();
    assert.equal(await page.locator("#import-bar").getAttribute("value"), "3");

    // The rows it made, through the API.
    const made = await api<{ name: string }>(inventory, "GET", "/hardware/bytag/WI-3");
    assert.equal(made.body.name, "Web Three");
    const refused = await api<Envelope>(inventory, "GET", "/hardware/bytag/WI-2");
    assert.equal(refused.body.status, "error");

    // The list of files says how it went; a phone's width scrolls only the table.
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${inventory.url}/import`);
    const cells = await page.locator("#imports tbody tr").first().locator("td").allTextContents();
    assert.equal(cells[0].trim(), "web-import.csv");
    assert.equal(cells[3].trim(), "completed: 3 of 3 rows, 1 failed");
    assert.equal(await horizontalOverflow(page), 0);
    await browser.current.screenshot(page, `${inventory.database.dialect}-import-list-360`);

    await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name: "Delete web-import.csv" }).click(),
    ]);
    assert.match(String(await page.getByRole("status").textContent()), /successfully deleted/);
    assert.equal(await page.locator("#imports").count(), 0);
  });

  test("a user without the import gate (admin does not imply it) sees no link and is refused", async () => {
    // One import of the superuser's, which the refused user must not be able to run.
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.goto(`${inventory.url}/import`);
    await page.getByLabel("Select Import File").setInputFiles({
      name: "kept.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("Asset Tag\nWI-9\n"),
    });
    await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Upload" }).click()]);
    const id = new URL(page.url()).pathname.split("/").pop();

    await userWithToken(inventory, "wiadmin", { admin: "1" });
    const other = await browser.current.newPage();
    await signIn(other, inventory.url, "wiadmin", "password123");
    assert.equal(await other.getByRole("link", { name: "Import" }).count(), 0);
    assert.equal(await other.getByRole("link", { name: "Reports" }).count(), 1);
    const answer = await other.goto(`${inventory.url}/import`);
    assert.equal(answer?.status(), 403);

    // Forged posts, with the user's own valid token: refused before the body is read.
    await other.goto(`${inventory.url}/`);
    const token = await csrfToken(other);
    const cookie = `${SESSION_COOKIE}=${(await sessionCookie(other)).value}`;
    const upload = new FormData();
    upload.set("_csrf", token);
    upload.set("files", new Blob(["Asset Tag\nWI-10\n"], { type: "text/csv" }), "forged.csv");
    const posted = await fetch(`${inventory.url}/import`, {
      method: "POST",
      headers: { cookie },
      body: upload,
      redirect: "manual",
    });
    assert.equal(posted.status, 403);
    const run = await fetch(`${inventory.url}/import/${id}/process`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: token, "import-type": "asset" }),
      redirect: "manual",
    });
    assert.equal(run.status, 403);
    const imports = await api<{ name: string; import_status: string | null }[]>(inventory, "GET", "/imports");
    assert.deepEqual(
      imports.body.map((row) => [row.name, row.import_status]),
      [["kept.csv", null]],
    );
  });
});
