import assert from "node:assert/strict";
import { before, test } from "node:test";
import { assertAccessible, useBrowser } from "@anvil/core/testing";
import type { Page } from "playwright-core";
import { storedNow } from "../../src/services/database.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { made, submit } from "../support/pages.ts";
import { csrfToken, sessionCookie, signIn, withCookie } from "../support/web.ts";

// The forms' parts the definitions' columns do not describe (issue 20): a model's fieldset, a
// group's permissions and members, a user's groups and permissions, and restoring deleted rows.

const HOSTILE = `<script>"x</script>`;

/** The text of a detail page's line. */
async function line(page: Page, title: string): Promise<string | null> {
  return page.getByRole("row", { name: title }).getByRole("cell").textContent();
}

forEachInventory("inventory web: the forms' own sections", (inventory) => {
  const browser = useBrowser();
  let admin: Page;
  /** The model the first test makes, for the asset the drop-downs' test checks out. */
  let modelId = 0;

  before(async () => {
    admin = await browser.current.newPage();
    await signIn(admin, inventory.url, "admin", "adminpassword");
  });

  test("a model given a fieldset on its form shows it on its page", async () => {
    await made(inventory, "/categories", { name: "Laptops", category_type: "asset" });
    const fieldset = await made(inventory, "/fieldsets", { name: "Laptop fields" });
    const ram = await made(inventory, "/fields", { name: "RAM", element: "text" });
    await api(inventory, "POST", `/fields/${ram}/associate`, { body: { fieldset_id: fieldset } });
    await admin.goto(`${inventory.url}/models/create`);
    await admin.getByLabel("Name").fill("ThinkPad T14");
    await admin.getByLabel("Category").selectOption({ label: "Laptops" });
    await admin.getByLabel("Fieldset").selectOption({ label: "Laptop fields" });
    await assertAccessible(admin, "model form");
    await submit(admin, "Save");
    assert.equal(await admin.getByRole("status").textContent(), "Model created successfully.");
    assert.equal(await line(admin, "Fieldset"), "Laptop fields");
    modelId = Number(new URL(admin.url()).pathname.split("/").pop());
    await Promise.all([
      admin.waitForNavigation(),
      admin.getByRole("link", { name: "Laptop fields" }).click(),
    ]);
    assert.equal(await admin.getByRole("link", { name: "ThinkPad T14" }).count(), 1);
    assert.match((await admin.locator("main").textContent()) ?? "", /RAM/);
    // The asset form asks for the fieldset's fields once the model is chosen.
    await admin.goto(`${inventory.url}/hardware/create`);
    assert.equal(await admin.getByLabel("RAM").count(), 0);
    await admin.getByLabel("Model", { exact: true }).selectOption(String(modelId));
    await admin.getByLabel("RAM").waitFor();
  });

  test("a group's permission granted on its form shows its member the matching page", async () => {
    const member = await userWithToken(inventory, "member", {});
    await admin.goto(`${inventory.url}/admin/groups/create`);
    await admin.getByLabel("Name").fill(`Buyers ${HOSTILE}`);
    await admin.locator('select[name="permissions[suppliers.view]"]').selectOption({ label: "Grant" });
    await assertAccessible(admin, "group form");
    await browser.current.screenshot(admin, `${inventory.database.dialect}-group-form`);
    await submit(admin, "Save");
    assert.equal(await admin.getByRole("status").textContent(), "Group created successfully.");
    assert.equal(await admin.getByRole("heading", { level: 1 }).textContent(), `Buyers ${HOSTILE}`);
    assert.match((await admin.locator("main").textContent()) ?? "", /Suppliers: View/);
    const groupId = Number(new URL(admin.url()).pathname.split("/").pop());

    // The member is put in the group on the user's form, and then listed on the group's page.
    await admin.goto(`${inventory.url}/users/${member.id}/edit`);
    await assertAccessible(admin, "user form");
    await browser.current.screenshot(admin, `${inventory.database.dialect}-user-form`);
    await admin.getByLabel(`Buyers ${HOSTILE}`).check();
    await submit(admin, "Save");
    assert.equal(await admin.getByRole("status").textContent(), "User updated successfully.");
    await admin.goto(`${inventory.url}/admin/groups/${groupId}`);
    assert.equal(await admin.getByRole("link", { name: "member" }).count(), 1);

    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "member", "password123");
    const nav = await page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents();
    assert.ok(nav.includes("Suppliers") && !nav.includes("Manufacturers"), nav.join(", "));
    await page.close();

    // Taken away again on the group's form: the link goes.
    await admin.goto(`${inventory.url}/admin/groups/${groupId}/edit`);
    assert.equal(await admin.locator('select[name="permissions[suppliers.view]"]').inputValue(), "1");
    await admin.locator('select[name="permissions[suppliers.view]"]').selectOption({ label: "Deny" });
    await submit(admin, "Save");
    const group = await api<{ permissions: Record<string, string> }>(inventory, "GET", `/groups/${groupId}`);
    assert.equal(group.body.permissions["suppliers.view"], "0");
  });

  test("a user's own permission is set by a superuser; others may not change groups or permissions", async () => {
    const editor = await userWithToken(inventory, "editor", { "users.view": "1", "users.edit": "1" });
    const target = await userWithToken(inventory, "target", {});
    const group = await made(inventory, "/groups", { name: "Auditors", permissions: { "assets.view": "1" } });

    await admin.goto(`${inventory.url}/users/${target.id}/edit`);
    await admin.locator('select[name="permissions[companies.view]"]').selectOption({ label: "Grant" });
    await submit(admin, "Save");
    const stored = await api<{ permissions: Record<string, string> }>(
      inventory,
      "GET",
      `/users/${target.id}`,
    );
    assert.equal(stored.body.permissions["companies.view"], "1");

    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "editor", "password123");
    await page.goto(`${inventory.url}/users/${target.id}/edit`);
    assert.equal(await page.getByRole("group", { name: "Groups" }).count(), 0);
    assert.equal(await page.locator('select[name^="permissions"]').count(), 0);
    const cookie = (await sessionCookie(page)).value;
    const form = {
      _csrf: await csrfToken(page),
      first_name: "target",
      username: "target",
      activated: "1",
      groups_shown: "1",
      "groups[]": String(group),
    };
    const forged = await withCookie(inventory.url, `/users/${target.id}`, cookie, { method: "POST", form });
    assert.equal(forged.status, 403);
    const after = await api<{ groups: unknown }>(inventory, "GET", `/users/${target.id}`);
    assert.equal(after.body.groups, null);
    // Their own form, without those fields, still saves.
    await page.getByLabel("Title").fill("Clerk");
    await submit(page, "Save");
    assert.equal(await page.getByRole("status").textContent(), "User updated successfully.");
    await page.close();
    assert.ok(editor.id > 0);
  });

  test("a deleted manufacturer and a deleted user are shown, then restored", async () => {
    const manufacturer = await made(inventory, "/manufacturers", { name: "Gone Inc" });
    const user = await userWithToken(inventory, "leaver", {});
    for (const [url, id, name, message] of [
      ["/manufacturers", manufacturer, "Gone Inc", "Manufacturer restored successfully."],
      ["/users", user.id, "leaver", "User restored successfully."],
    ] as const) {
      await admin.goto(`${inventory.url}${url}/${id}/delete`);
      await submit(admin, "Delete");
      await admin.goto(`${inventory.url}${url}`);
      assert.equal(await admin.getByRole("link", { name, exact: true }).count(), 0);
      await Promise.all([
        admin.waitForNavigation(),
        admin.getByRole("link", { name: "Show Deleted" }).click(),
      ]);
      await assertAccessible(admin, `${url} deleted`);
      await Promise.all([admin.waitForNavigation(), admin.getByRole("link", { name, exact: true }).click()]);
      assert.match((await admin.locator("main").textContent()) ?? "", /has been deleted/);
      await submit(admin, "Restore");
      assert.equal(await admin.getByRole("status").textContent(), message);
      assert.equal(await admin.getByRole("button", { name: "Restore" }).count(), 0);
      await admin.goto(`${inventory.url}${url}`);
      assert.equal(await admin.getByRole("link", { name, exact: true }).count(), 1);
    }
  });

  test("restoring needs the delete permission, as the API's restore", async () => {
    const manufacturer = await made(inventory, "/manufacturers", { name: "Kept Away" });
    await api(inventory, "DELETE", `/manufacturers/${manufacturer}`);
    await userWithToken(inventory, "looker", { "manufacturers.view": "1" });
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "looker", "password123");
    await page.goto(`${inventory.url}/manufacturers/${manufacturer}`);
    assert.equal(await page.getByRole("button", { name: "Restore" }).count(), 0);
    const cookie = (await sessionCookie(page)).value;
    const forged = await withCookie(inventory.url, `/manufacturers/${manufacturer}/restore`, cookie, {
      method: "POST",
      form: { _csrf: await csrfToken(page) },
    });
    assert.equal(forged.status, 403);
    const deleted = await api<{ total: number }>(inventory, "GET", "/manufacturers?deleted=true&search=Kept");
    assert.equal(deleted.body.total, 1);
    await page.close();
  });

  test("a long drop-down's search finds a user past its first pages; without it the first pages are offered", async () => {
    const database = inventory.server.app.database;
    if (!database) throw new Error("no database");
    // 500 users fill the drop-down's first pages (ordered by last name); the one sought comes after.
    const now = storedNow(database.dialect);
    const person = (first: string, last: string, username: string) => ({
      first_name: first,
      last_name: last,
      username,
      created_at: now,
      updated_at: now,
    });
    const fillers = Array.from({ length: 505 }, (_, index) =>
      person(`Filler ${index}`, "Aaron", `filler${index}`),
    );
    for (let start = 0; start < fillers.length; start += 100)
      await database.db
        .insertInto("users")
        .values(fillers.slice(start, start + 100))
        .execute();
    await database.db
      .insertInto("users")
      .values(person("Sought", "Zygmunt", "sought"))
      .execute();

    await admin.goto(`${inventory.url}/departments/create`);
    const manager = admin.getByLabel("Manager", { exact: true });
    assert.equal(await manager.locator("option", { hasText: "Zygmunt" }).count(), 0);
    assert.equal(await manager.locator("option").count(), 501);
    await assertAccessible(admin, "department form with a long list");
    await browser.current.screenshot(admin, `${inventory.database.dialect}-searchable-select`);
    await admin.getByLabel("Name").fill("Research");
    await admin.getByLabel("Search Manager").fill("Zygm");
    await manager.locator("option", { hasText: "Zygmunt" }).waitFor({ state: "attached" });
    assert.equal(await manager.locator("option").count(), 2);
    await manager.selectOption({
      label: (await manager.locator("option", { hasText: "Zygmunt" }).textContent()) ?? "",
    });
    // Another search keeps the choice while it still matches.
    await Promise.all([
      admin.waitForResponse((response) => response.url().includes("search=Sought")),
      admin.getByLabel("Search Manager").fill("Sought"),
    ]);
    assert.match((await manager.locator("option:checked").textContent()) ?? "", /Zygmunt/);
    await submit(admin, "Save");
    assert.equal(await admin.getByRole("status").textContent(), "Department created successfully.");
    assert.match((await line(admin, "Manager")) ?? "", /Sought/);

    // The asset checkout form's drop-down of users is searched the same way.
    const status = await made(inventory, "/statuslabels", { name: "Ready", type: "deployable" });
    const asset = await made(inventory, "/hardware", {
      asset_tag: "F-1",
      model_id: modelId,
      status_id: status,
    });
    await admin.goto(`${inventory.url}/hardware/${asset}/checkout`);
    const user = admin.getByLabel("Select a User", { exact: true });
    assert.equal(await user.locator("option", { hasText: "Zygmunt" }).count(), 0);
    await admin.getByLabel("Search Select a User").fill("Zygm");
    await user.locator("option", { hasText: "Zygmunt" }).waitFor({ state: "attached" });
    await assertAccessible(admin, "asset checkout with a long list");

    // The choices route answers as the API's select lists: not to someone who picks nothing.
    const page = await browser.current.newPage();
    await userWithToken(inventory, "reader", { "companies.view": "1" });
    await signIn(page, inventory.url, "reader", "password123");
    const refused = await withCookie(
      inventory.url,
      "/choices/users?search=Zyg",
      (await sessionCookie(page)).value,
    );
    assert.equal(refused.status, 403);
    await page.close();
  });
});
