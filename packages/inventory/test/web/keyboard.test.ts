import assert from "node:assert/strict";
import { test } from "node:test";
import { useBrowser } from "@anvil/core/testing";
import type { Locator, Page } from "playwright-core";
import { api, forEachInventory } from "../support/inventory.ts";

// A person at the keyboard alone: the first Tab reaches the skip link, which shows where the focus
// is and leads to the page's content; the login form is filled and sent with keys only. Then, as
// the walk-through starts, a model and an asset made through the forms, and the asset
// found with the list's search box.

/** The focused element: its tag, text and how its outline looks. */
function focused(page: Page) {
  return page.evaluate<{ tag: string; text: string; id: string; outline: string; width: number }>(`(() => {
    const element = document.activeElement;
    const style = getComputedStyle(element);
    return {
      tag: element.tagName.toLowerCase(),
      text: (element.textContent || "").trim(),
      id: element.id,
      outline: style.outlineStyle,
      width: parseFloat(style.outlineWidth) || 0,
    };
  })()`);
}

/** Tabs until the element with this id has the focus (at most 20 presses). */
async function tabTo(page: Page, id: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    if ((await focused(page)).id === id) return;
    await page.keyboard.press("Tab");
  }
  assert.fail(`Tab never reached #${id}`);
}

/** Selects the option whose text contains `text` (select lists add details to names). */
async function choose(select: Locator, text: string): Promise<void> {
  const option = select.locator("option", { hasText: text }).first();
  const value = await option.getAttribute("value");
  assert.ok(value, `no option with ${text}`);
  await select.selectOption(value);
}

forEachInventory("inventory web: keyboard and a first walk-through", (inventory) => {
  const browser = useBrowser();

  test("the skip link comes first, shows its focus and leads to the content; the login is done with keys", async () => {
    const page = await browser.current.newPage();
    await page.goto(`${inventory.url}/login`);
    await page.keyboard.press("Tab");
    const skip = await focused(page);
    assert.equal(skip.text, "Skip to main content");
    assert.notEqual(skip.outline, "none", "the focus is visible");
    assert.ok(skip.width > 0, "the focus outline has a width");
    await page.keyboard.press("Enter");
    assert.equal((await focused(page)).id, "main", "the skip link moves the focus to the content");

    const username = await page.getByLabel("Username or e-mail").getAttribute("id");
    const password = await page.getByLabel("Password", { exact: true }).getAttribute("id");
    assert.ok(username && password);
    await tabTo(page, username);
    await page.keyboard.type("admin");
    await tabTo(page, password);
    await page.keyboard.type("adminpassword");
    await Promise.all([page.waitForURL(`${inventory.url}/`), page.keyboard.press("Enter")]);
    assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Dashboard");
  });

  test("a model and an asset made through the forms, and the asset found with the search box", async () => {
    const category = await api<{ payload: { id: number } }>(inventory, "POST", "/categories", {
      body: { name: "Walk laptops", category_type: "asset" },
    });
    assert.ok(category.body.payload.id);
    const label = await api<{ payload: { id: number } }>(inventory, "POST", "/statuslabels", {
      body: { name: "Walk ready", type: "deployable" },
    });
    assert.ok(label.body.payload.id);

    const page = await browser.current.newPage();
    await page.goto(`${inventory.url}/login`);
    await page.getByLabel("Username or e-mail").fill("admin");
    await page.getByLabel("Password", { exact: true }).fill("adminpassword");
    await Promise.all([
      page.waitForURL(`${inventory.url}/`),
      page.getByRole("button", { name: "Login" }).click(),
    ]);

    await page.goto(`${inventory.url}/models`);
    await Promise.all([
      page.waitForURL(/\/models\/create$/),
      page.getByRole("link", { name: "Create New" }).click(),
    ]);
    await page.getByLabel("Name", { exact: true }).fill("Walk X1");
    await choose(page.getByLabel("Category"), "Walk laptops");
    await Promise.all([
      page.waitForURL(/\/models\/\d+$/),
      page.getByRole("button", { name: "Save" }).click(),
    ]);
    assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Walk X1");

    await page.goto(`${inventory.url}/hardware/create`);
    await page.getByLabel("Asset Tag").fill("WALK-1");
    await choose(page.getByLabel("Model"), "Walk X1");
    await choose(page.getByLabel("Status"), "Walk ready");
    await page.getByLabel("Asset Name").fill("Walk laptop");
    await Promise.all([
      page.waitForURL(/\/hardware\/\d+$/),
      page.getByRole("button", { name: "Save" }).click(),
    ]);

    await page.goto(`${inventory.url}/hardware`);
    await page.getByLabel("Search").fill("WALK-1");
    await page.getByLabel("Search").press("Enter");
    await page.getByRole("link", { name: "Walk laptop" }).waitFor();
    assert.equal(await page.locator("table.assets tbody tr").count(), 1);
  });
});
