import assert from "node:assert/strict";
import { test } from "node:test";
import { assertAccessible, useBrowser } from "@anvil/core/testing";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { sessionCookie, signIn, withCookie } from "../support/web.ts";

// A user's own account pages (password, API keys, logging out everywhere) and the superusers'
// settings pages, in a real chromium.

forEachInventory("inventory web: account and settings", (inventory) => {
  const browser = useBrowser();

  test("changing one's password needs the current one; the new one signs in, the old one not", async () => {
    await userWithToken(inventory, "carol", { "self.api": "1" });
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "carol", "password123");
    const elsewhere = await browser.current.newPage();
    await signIn(elsewhere, inventory.url, "carol", "password123");
    await page.goto(`${inventory.url}/account/password`);
    await assertAccessible(page, "change password");
    await browser.current.screenshot(page, `${inventory.database.dialect}-account-password`);

    const submit = async (current: string, password: string, confirmation: string) => {
      await page.getByLabel("Current Password").fill(current);
      await page.getByLabel("New Password", { exact: true }).fill(password);
      await page.getByLabel("Confirm New Password").fill(confirmation);
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Save" }).click()]);
    };
    await submit("not-my-password", "newpassword1", "newpassword1");
    assert.match(String(await page.locator("#field-current_password-note").textContent()), /incorrect/);
    await submit("password123", "newpassword1", "different123");
    assert.match(
      String(await page.locator("#field-password-note").textContent()),
      /confirmation does not match/,
    );
    await assertAccessible(page, "change password with errors");

    await submit("password123", "newpassword1", "newpassword1");
    assert.equal(new URL(page.url()).pathname, "/account/password");
    assert.equal(await page.getByRole("status").textContent(), "Your password has been updated.");
    // This browser stays signed in; the other one was signed out.
    await page.goto(`${inventory.url}/`);
    assert.equal(new URL(page.url()).pathname, "/");
    await elsewhere.goto(`${inventory.url}/`);
    assert.equal(new URL(elsewhere.url()).pathname, "/login");

    const fresh = await browser.current.newPage();
    await signIn(fresh, inventory.url, "carol", "password123");
    assert.equal(await fresh.getByRole("alert").textContent(), "The username or password is incorrect.");
    await signIn(fresh, inventory.url, "carol", "newpassword1");
    assert.equal(new URL(fresh.url()).pathname, "/");
  });

  test("Log out everywhere ends every session of the user", async () => {
    await userWithToken(inventory, "dave", { "self.api": "1" });
    const first = await browser.current.newPage();
    await signIn(first, inventory.url, "dave", "password123");
    const second = await browser.current.newPage();
    await signIn(second, inventory.url, "dave", "password123");
    const secondCookie = (await sessionCookie(second)).value;
    await first.goto(`${inventory.url}/account/password`);
    await Promise.all([
      first.waitForNavigation(),
      first.getByRole("button", { name: "Log out everywhere" }).click(),
    ]);
    assert.equal(new URL(first.url()).pathname, "/login");
    assert.equal(await first.getByRole("status").textContent(), "You have been logged out everywhere.");
    assert.equal((await withCookie(inventory.url, "/api/v1/hardware", secondCookie)).status, 401);
  });

  test("an API key made on the page is shown once, works on the API, and is gone once revoked", async () => {
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "admin", "adminpassword");
    await page.goto(`${inventory.url}/account/api`);
    await assertAccessible(page, "API keys");

    // The browser itself refuses to send an empty required field; posted anyway, the service does.
    const session = (await sessionCookie(page)).value;
    const token = String(await page.locator('input[name="_csrf"]').first().getAttribute("value"));
    const empty = await withCookie(inventory.url, "/account/api", session, {
      method: "POST",
      form: { _csrf: token, name: "" },
    });
    assert.equal(empty.status, 422);
    assert.match(await empty.text(), /The name field is required\./);

    await page.getByLabel("Name").fill("reporting <b>");
    await page.getByLabel("Read-only").check();
    await page.getByLabel("Scopes (optional)").fill("assets.view, licenses.*");
    await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Create" }).click()]);
    const secret = await page.getByLabel("API key").inputValue();
    assert.match(secret, /^[0-9a-f]{64}$/);
    await assertAccessible(page, "API key created");
    await browser.current.screenshot(page, `${inventory.database.dialect}-account-api`);
    const row = page.getByRole("row", { name: /reporting <b>/ });
    assert.match(String(await row.textContent()), /Read-only.*assets\.view, licenses\.\*/s);

    // The key reads within its scopes, and may not write.
    assert.equal((await api(inventory, "GET", "/hardware", { token: secret })).status, 200);
    assert.equal((await api(inventory, "GET", "/users", { token: secret })).status, 403);
    const write = await api<{ messages: string }>(inventory, "POST", "/hardware", {
      token: secret,
      body: {},
    });
    assert.equal(write.status, 403);
    assert.equal(write.body.messages, "This token is read-only.");

    // Reloading the page does not show the secret again.
    await page.goto(`${inventory.url}/account/api`);
    assert.equal(await page.getByLabel("API key").count(), 0);

    await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name: "Revoke reporting <b>" }).click(),
    ]);
    assert.equal(await page.getByRole("status").textContent(), "The API key has been revoked.");
    assert.equal(await page.getByRole("row", { name: /reporting/ }).count(), 0);
    assert.equal((await api(inventory, "GET", "/hardware", { token: secret })).status, 401);
  });

  test("superusers reach Login Attempts from Settings; others see neither", async () => {
    await userWithToken(inventory, "erin", { "self.api": "1" });
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "erin", "wrong-password");
    await signIn(page, inventory.url, "erin", "password123");
    assert.equal(await page.getByRole("link", { name: "Settings" }).count(), 0);
    await page.goto(`${inventory.url}/admin/login-attempts`);
    assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Error 403");
    await assertAccessible(page, "403 page");

    const admin = await browser.current.newPage();
    await signIn(admin, inventory.url, "admin", "adminpassword");
    await admin.getByRole("link", { name: "Settings" }).click();
    await admin.waitForURL(`${inventory.url}/admin`);
    await assertAccessible(admin, "settings");
    await browser.current.screenshot(admin, `${inventory.database.dialect}-settings`);
    await Promise.all([
      admin.waitForNavigation(),
      admin.getByRole("link", { name: "Login Attempts" }).click(),
    ]);
    assert.equal(await admin.getByRole("heading", { level: 1 }).textContent(), "Login Attempts");
    const successful = admin.locator("tbody tr").filter({ hasText: "erin" }).locator("td:nth-child(4)");
    assert.deepEqual((await successful.allTextContents()).sort(), ["No", "Yes"]);
    await assertAccessible(admin, "login attempts");
    await browser.current.screenshot(admin, `${inventory.database.dialect}-login-attempts`);
  });
});
