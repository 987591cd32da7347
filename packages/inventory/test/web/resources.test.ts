import assert from "node:assert/strict";
import { before, test } from "node:test";
import { assertAccessible, horizontalOverflow, useBrowser } from "@anvil/core/testing";
import type { Page } from "playwright-core";
import { RESOURCE_PAGES } from "../../src/web/resource-pages.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { made, submit } from "../support/pages.ts";
import { csrfToken, sessionCookie, signIn, withCookie } from "../support/web.ts";

// The pages of every resource but assets (issue 20), generated from the API's definitions: list,
// detail, create, edit, delete for a few representative ones, the hand-written parts (the location
// tree, a user's holdings, seats and stock check-outs), permissions, escaping and accessibility.

const HOSTILE = `<script>"x</script>`;
/** The nav's words where they are not the list's heading (Snipe-IT's). */
const NAV_LABELS: Record<string, string> = { Users: "People", "Asset Maintenances": "Maintenances" };

async function heading(page: Page): Promise<string | null> {
  return page.getByRole("heading", { level: 1 }).textContent();
}

forEachInventory("inventory web: every other resource", (inventory) => {
  const browser = useBrowser();
  /** The id of one row of each resource, by its API path. */
  const ids: Record<string, number> = {};
  let assetId = 0;
  let admin: Page;

  before(async () => {
    ids.companies = await made(inventory, "/companies", { name: "Initech" });
    ids.locations = await made(inventory, "/locations", { name: "Head Office" });
    ids.child = await made(inventory, "/locations", { name: "Basement", parent_id: ids.locations });
    ids.departments = await made(inventory, "/departments", { name: "IT", location_id: ids.locations });
    ids.manufacturers = await made(inventory, "/manufacturers", { name: "Lenovo" });
    ids.suppliers = await made(inventory, "/suppliers", { name: HOSTILE, notes: HOSTILE });
    ids.depreciations = await made(inventory, "/depreciations", { name: "Three years", months: 36 });
    const category = (name: string, type: string) =>
      made(inventory, "/categories", { name, category_type: type });
    ids.categories = await category("Laptops", "asset");
    const licenseCategory = await category("Software", "license");
    const accessoryCategory = await category("Mice", "accessory");
    const consumableCategory = await category("Paper", "consumable");
    const componentCategory = await category("RAM", "component");
    ids.statuslabels = await made(inventory, "/statuslabels", { name: "Ready", type: "deployable" });
    ids.models = await made(inventory, "/models", {
      name: "ThinkPad",
      category_id: ids.categories,
      manufacturer_id: ids.manufacturers,
    });
    ids.groups = await made(inventory, "/groups", { name: "Helpdesk" });
    ids.users = await made(inventory, "/users", {
      first_name: "Jane",
      last_name: "Doe",
      username: "jane",
      password: "password123",
      password_confirmation: "password123",
    });
    ids.licenses = await made(inventory, "/licenses", {
      name: "Office",
      seats: 2,
      category_id: licenseCategory,
    });
    ids.accessories = await made(inventory, "/accessories", {
      name: "Mouse",
      qty: 2,
      category_id: accessoryCategory,
    });
    ids.consumables = await made(inventory, "/consumables", {
      name: "A4 paper",
      qty: 2,
      category_id: consumableCategory,
    });
    ids.components = await made(inventory, "/components", {
      name: "8 GB DIMM",
      qty: 2,
      category_id: componentCategory,
    });
    assetId = await made(inventory, "/hardware", {
      asset_tag: "LAP-1",
      name: "Jane's laptop",
      model_id: ids.models,
      status_id: ids.statuslabels,
    });
    ids.maintenances = await made(inventory, "/maintenances", {
      asset_id: assetId,
      title: "New battery",
      asset_maintenance_type: "Repair",
      start_date: "2026-01-05",
    });
    ids.kits = await made(inventory, "/kits", { name: "New starter" });
    admin = await browser.current.newPage();
    await signIn(admin, inventory.url, "admin", "adminpassword");
  });

  test("every resource's list, detail and form pages pass axe, each reached from the nav", async () => {
    for (const page of RESOURCE_PAGES) {
      const { path } = page.definition;
      await admin.goto(`${inventory.url}/`);
      await Promise.all([
        admin.waitForNavigation(),
        admin
          .getByRole("navigation", { name: "Main" })
          .getByRole("link", { name: NAV_LABELS[page.title] ?? page.title, exact: true })
          .click(),
      ]);
      assert.equal(await heading(admin), page.title, path);
      assert.equal(await admin.getByRole("link", { name: "Create New" }).count(), 1, path);
      await assertAccessible(admin, `${path} list`);
      await browser.current.screenshot(admin, `${inventory.database.dialect}-${path}`);

      await admin.goto(`${inventory.url}${page.url}/${ids[path]}`);
      assert.equal(admin.url(), `${inventory.url}${page.url}/${ids[path]}`);
      await assertAccessible(admin, `${path} detail`);
      await browser.current.screenshot(admin, `${inventory.database.dialect}-${path}-detail`);

      await admin.goto(`${inventory.url}${page.url}/create`);
      assert.equal(await heading(admin), `Create New ${page.singular}`);
      await assertAccessible(admin, `${path} form`);
    }
  });

  test("a company: a bad value is refused beside its field; created, found by search, edited, deleted", async () => {
    const page = admin;
    await page.goto(`${inventory.url}/companies`);
    await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "Create New" }).click()]);
    await page.getByLabel("Email").fill("not an e-mail");
    await submit(page, "Save");
    assert.equal(await page.locator("#field-name-note").textContent(), "The name field is required.");
    assert.equal(
      await page.locator("#field-email-note").textContent(),
      "The email field must be a valid email address.",
    );
    assert.equal(await page.getByLabel("Email").inputValue(), "not an e-mail");
    await assertAccessible(page, "company form with errors");

    await page.getByLabel("Name").fill("Globex");
    await page.getByLabel("Email").fill("info@globex.example");
    await submit(page, "Save");
    assert.equal(await page.getByRole("status").textContent(), "Company created successfully.");
    assert.equal(await heading(page), "Globex");
    const detail = page.url();

    // The search answers the table alone (htmx) and the address says what is shown.
    await page.goto(`${inventory.url}/companies`);
    await page.getByLabel("Search").fill("globex");
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url().includes("search=globex")),
      page.getByRole("button", { name: "Search" }).click(),
    ]);
    assert.ok(!(await answer.text()).includes("<html"), "htmx got the whole page");
    await page.waitForURL(/search=globex/);
    const rows = page.locator("#resource-table tbody tr");
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.first().locator("td").first().textContent(), "Globex");

    // A filter of the API's list is kept by the search.
    await page.goto(`${inventory.url}/users?company_id=${ids.companies}`);
    assert.equal(await page.getByText("No Results").count(), 1);
    await page.getByLabel("Search").fill("jane");
    await Promise.all([page.waitForURL(/search=jane/), page.getByRole("button", { name: "Search" }).click()]);
    assert.match(page.url(), new RegExp(`company_id=${ids.companies}`));
    assert.equal(await page.getByText("No Results").count(), 1);

    // Without JavaScript the same address is a whole page.
    const cookie = (await sessionCookie(page)).value;
    const plain = await withCookie(inventory.url, "/companies?search=globex", cookie);
    const html = await plain.text();
    assert.match(html, /<html/);
    assert.match(html, />Globex</);
    assert.doesNotMatch(html, />Initech</);

    await page.goto(detail);
    await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "Edit" }).click()]);
    assert.equal(await page.getByLabel("Name").inputValue(), "Globex");
    await page.getByLabel("Name").fill("Globex Corporation");
    await submit(page, "Save");
    assert.equal(await page.getByRole("status").textContent(), "Company updated successfully.");
    assert.equal(await heading(page), "Globex Corporation");

    await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "Delete" }).click()]);
    assert.match(
      (await page.locator("main form").textContent()) ?? "",
      /Are you sure you wish to delete Globex Corporation\?/,
    );
    await assertAccessible(page, "delete confirmation");
    await submit(page, "Delete");
    assert.equal(new URL(page.url()).pathname, "/companies");
    assert.equal(await page.getByRole("status").textContent(), "Company was deleted successfully.");
    assert.equal((await api<{ total: number }>(inventory, "GET", "/companies?search=Globex")).body.total, 0);
  });

  test("a user made on the page, with a password and its confirmation, can sign in", async () => {
    const page = admin;
    await page.goto(`${inventory.url}/users/create`);
    assert.equal(await page.getByLabel("This user can login").isChecked(), true);
    await page.getByLabel("First Name").fill("Sam");
    await page.getByLabel("Username").fill("sam");
    await page.getByLabel("Password", { exact: true }).fill("password123");
    await page.getByLabel("Confirm Password").fill("password124");
    await page.getByLabel("Manager").selectOption({ label: "Doe, Jane (jane)" });
    await submit(page, "Save");
    assert.equal(
      await page.locator("#field-password-note").textContent(),
      "The password field confirmation does not match.",
    );
    assert.equal(await page.getByLabel("Manager").inputValue(), String(ids.users));
    await page.getByLabel("Password", { exact: true }).fill("password123");
    await page.getByLabel("Confirm Password").fill("password123");
    await submit(page, "Save");
    assert.equal(await page.getByRole("status").textContent(), "User created successfully.");
    assert.equal(
      await page
        .getByRole("row", { name: /Manager/ })
        .getByRole("link")
        .textContent(),
      "Jane Doe",
    );

    const other = await browser.current.newPage();
    await signIn(other, inventory.url, "sam", "password123");
    assert.equal(new URL(other.url()).pathname, "/");
  });

  test("an asset maintenance's form shows what is stored, and saves it again", async () => {
    const page = admin;
    await page.goto(`${inventory.url}/maintenances/${ids.maintenances}/edit`);
    assert.equal(await page.getByLabel("Asset", { exact: true }).inputValue(), String(assetId));
    assert.equal(await page.getByLabel("Asset Maintenance Type").inputValue(), "Repair");
    assert.equal(await page.getByLabel("Start Date").inputValue(), "2026-01-05");
    await page.getByLabel("Title").fill("New battery and keyboard");
    await submit(page, "Save");
    assert.equal(await page.getByRole("status").textContent(), "Asset Maintenance edited successfully.");
    assert.equal(await heading(page), "New battery and keyboard");
    const stored = await api<{ asset_maintenance_type: string; start_date: { date: string } }>(
      inventory,
      "GET",
      `/maintenances/${ids.maintenances}`,
    );
    assert.equal(stored.body.asset_maintenance_type, "Repair");
    assert.equal(stored.body.start_date.date, "2026-01-05");
  });

  test("the list sorts by a header and pages, in place", async () => {
    for (const name of ["Alpha", "Bravo"]) await made(inventory, "/manufacturers", { name });
    const page = admin;
    await page.goto(`${inventory.url}/manufacturers`);
    await Promise.all([
      page.waitForURL(/sort=name&order=asc/),
      page.getByRole("link", { name: "Name", exact: true }).click(),
    ]);
    const names = await page.locator("#resource-table tbody tr td:first-child").allTextContents();
    assert.deepEqual(names, [...names].sort());
    assert.equal(await page.locator("th[aria-sort]").getAttribute("aria-sort"), "ascending");
    await Promise.all([
      page.waitForURL(/order=desc/),
      page.getByRole("link", { name: "Name", exact: true }).click(),
    ]);
    const reversed = await page.locator("#resource-table tbody tr td:first-child").allTextContents();
    assert.deepEqual(reversed, [...names].reverse());

    // Two a page: Next and Previous keep the order, in place.
    await page.goto(`${inventory.url}/manufacturers?sort=name&order=asc&limit=2`);
    assert.equal(await page.getByText(`Showing 1 to 2 of ${names.length} rows`).count(), 1);
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url().includes("offset=2")),
      page.getByRole("link", { name: "Next" }).click(),
    ]);
    assert.ok(!(await answer.text()).includes("<html"), "htmx got the whole page");
    await page.waitForURL(/offset=2/);
    assert.deepEqual(
      await page.locator("#resource-table tbody tr td:first-child").allTextContents(),
      names.slice(2, 4),
    );
    assert.equal(await page.getByRole("link", { name: "Previous" }).count(), 1);
  });

  test("a delete the API refuses shows its reason, and nothing is deleted", async () => {
    const page = admin;
    await page.goto(`${inventory.url}/categories/${ids.categories}/delete`);
    await submit(page, "Delete");
    assert.equal(new URL(page.url()).pathname, `/categories/${ids.categories}`);
    assert.match(
      (await page.getByRole("alert").textContent()) ?? "",
      /currently associated with at least one model/,
    );

    await page.goto(`${inventory.url}/locations/${ids.locations}/delete`);
    await submit(page, "Delete");
    assert.match((await page.getByRole("alert").textContent()) ?? "", /not currently deletable/);
    assert.equal((await api(inventory, "GET", `/locations/${ids.locations}`)).status, 200);

    await page.goto(`${inventory.url}/users/1/delete`);
    await submit(page, "Delete");
    assert.equal(
      await page.getByRole("alert").textContent(),
      "The user cannot be deleted. You cannot delete yourself.",
    );
  });

  test("locations: the list shows the tree, a location its children", async () => {
    const page = admin;
    await page.goto(`${inventory.url}/locations`);
    const tree = page.getByRole("region", { name: "Location Tree" });
    assert.equal(await tree.locator("li li a").textContent(), "Basement");
    assert.equal(await tree.locator("li:has(li) > a").textContent(), "Head Office");
    await page.goto(`${inventory.url}/locations/${ids.locations}`);
    assert.equal(await page.locator("main ul a").textContent(), "Basement");

    // On a phone the wide table scrolls by itself; the page does not.
    const phone = await browser.current.newPage({ width: 360 });
    await signIn(phone, inventory.url, "admin", "adminpassword");
    for (const path of [
      "/locations",
      "/locations/create",
      `/locations/${ids.locations}`,
      `/licenses/${ids.licenses}`,
    ]) {
      await phone.goto(`${inventory.url}${path}`);
      assert.equal(await horizontalOverflow(phone), 0, path);
    }
    await phone.goto(`${inventory.url}/locations`);
    await browser.current.screenshot(phone, `${inventory.database.dialect}-locations-360`);
  });

  test("text fields show what was typed, escaped", async () => {
    const page = admin;
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${inventory.url}/suppliers`);
    assert.equal(await page.locator("#resource-table tbody tr td a").first().textContent(), HOSTILE);
    await page.goto(`${inventory.url}/suppliers/${ids.suppliers}`);
    assert.equal(await heading(page), HOSTILE);
    await page.goto(`${inventory.url}/suppliers/${ids.suppliers}/edit`);
    assert.equal(await page.getByLabel("Name", { exact: true }).inputValue(), HOSTILE);
    assert.equal(await page.getByLabel("Notes").inputValue(), HOSTILE);
    assert.equal(await page.locator("main script").count(), 0);
    assert.deepEqual(dialogs, []);
  });

  test("an accessory and a consumable are checked out to a user, and the user's page shows them", async () => {
    const page = admin;
    await page.goto(`${inventory.url}/accessories/${ids.accessories}`);
    await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "Checkout" }).click()]);
    await assertAccessible(page, "accessory checkout");
    await submit(page, "Checkout");
    assert.equal(
      await page.locator("#field-assigned_user-note").textContent(),
      "The assigned user field is required when none of assigned location / assigned asset are present.",
    );
    await page.getByLabel("Checkout to").selectOption({ label: "Doe, Jane (jane)" });
    await page.getByLabel("Notes").fill("for the desk");
    await submit(page, "Checkout");
    assert.equal(await page.getByRole("status").textContent(), "Accessory checked out successfully.");
    const held = page.getByRole("row", { name: /Jane Doe/ });
    assert.match((await held.textContent()) ?? "", /for the desk/);

    await page.goto(`${inventory.url}/consumables/${ids.consumables}`);
    await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "Checkout" }).click()]);
    await page.getByLabel("Checkout to").selectOption({ label: "Doe, Jane (jane)" });
    await submit(page, "Checkout");
    assert.equal(await page.getByRole("status").textContent(), "Consumable checked out successfully.");
    assert.equal(await page.getByRole("row", { name: /Jane Doe/ }).count(), 1);

    await page.goto(`${inventory.url}/users/${ids.users}`);
    assert.equal(await heading(page), "Jane Doe");
    assert.equal(await page.locator("h2:has-text('Accessories') + ul a").textContent(), "Mouse");
    assert.equal(await page.locator("h2:has-text('Consumables') + ul a").textContent(), "A4 paper");
    await assertAccessible(page, "user with holdings");
    await browser.current.screenshot(page, `${inventory.database.dialect}-user-holdings`);

    // The accessory comes back.
    await page.goto(`${inventory.url}/accessories/${ids.accessories}`);
    await submit(page, "Checkin from Jane Doe");
    assert.equal(await page.getByRole("status").textContent(), "Accessory checked in successfully.");
    assert.equal(await page.getByRole("row", { name: /Jane Doe/ }).count(), 0);
  });

  test("a license seat is checked out to a user and checked in", async () => {
    const page = admin;
    await page.goto(`${inventory.url}/licenses/${ids.licenses}`);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole("link", { name: "Checkout seat 1" }).click(),
    ]);
    await assertAccessible(page, "license seat checkout");
    await submit(page, "Checkout");
    assert.equal(
      await page.locator("#field-assigned_to-note").textContent(),
      "The assigned to field is required when asset id is not present.",
    );
    await page.getByLabel("Select a User").selectOption({ label: "Doe, Jane (jane)" });
    await submit(page, "Checkout");
    assert.equal(await page.getByRole("status").textContent(), "License checked out successfully.");
    assert.match((await page.getByRole("row", { name: /Seat 1/ }).textContent()) ?? "", /Jane Doe/);
    await browser.current.screenshot(page, `${inventory.database.dialect}-license-seats`);

    await page.goto(`${inventory.url}/users/${ids.users}`);
    assert.equal(await page.locator("h2:has-text('Licenses') + ul a").textContent(), "Office");

    // A date the license stores is the edit form's value.
    await api(inventory, "PATCH", `/licenses/${ids.licenses}`, { body: { purchase_date: "2024-02-29" } });
    await page.goto(`${inventory.url}/licenses/${ids.licenses}/edit`);
    assert.equal(await page.getByLabel("Purchase Date").inputValue(), "2024-02-29");

    await page.goto(`${inventory.url}/licenses/${ids.licenses}`);
    await submit(page, "Checkin seat 1");
    assert.equal(await page.getByRole("status").textContent(), "License checked in successfully.");
    const seats = (
      await api<{ rows: { assigned_user: unknown }[] }>(inventory, "GET", `/licenses/${ids.licenses}/seats`)
    ).body.rows;
    assert.ok(seats.every((seat) => seat.assigned_user === null));
  });

  test("a component is checked out to an asset and checked in", async () => {
    const page = admin;
    await page.goto(`${inventory.url}/components/${ids.components}`);
    await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "Checkout" }).click()]);
    await page.getByLabel("Select Asset").selectOption({ value: String(assetId) });
    await page.getByLabel("Quantity").fill("5");
    await submit(page, "Checkout");
    assert.match(
      (await page.getByRole("alert").textContent()) ?? "",
      /Not enough components remaining: 2 remaining, 5 requested/,
    );
    await page.getByLabel("Quantity").fill("2");
    await submit(page, "Checkout");
    assert.equal(await page.getByRole("status").textContent(), "Component checked out successfully.");
    assert.match((await page.getByRole("row", { name: /Jane's laptop/ }).textContent()) ?? "", /2/);
    await assertAccessible(page, "component with assets");

    await page.getByLabel("Quantity to check in").fill("1");
    await submit(page, "Checkin from Jane's laptop");
    assert.equal(await page.getByRole("status").textContent(), "Component checked in successfully.");
    const held = await api<{ rows: { qty: number }[] }>(
      inventory,
      "GET",
      `/components/${ids.components}/assets`,
    );
    assert.deepEqual(
      held.body.rows.map((row) => row.qty),
      [1],
    );
  });

  test("custom fields: a field and a fieldset are made, the field joins the set and cannot be deleted then", async () => {
    const page = admin;
    await page.goto(`${inventory.url}/`);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Custom Fields" }).click(),
    ]);
    assert.equal(await heading(page), "Custom Fields");
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole("link", { name: "Create New Custom Field" }).click(),
    ]);
    await assertAccessible(page, "custom field form");
    await page.getByLabel("Custom Format").fill("regex:/[/");
    await submit(page, "Save");
    assert.equal(await page.locator("#field-name-note").textContent(), "The name field is required.");
    assert.equal(
      await page.locator("#field-custom_format-note").textContent(),
      "The selected format is invalid.",
    );
    await page.getByLabel("Name", { exact: true }).fill(`MAC ${HOSTILE}`);
    await page.getByLabel("Custom Format").fill("");
    await page.getByLabel("Format", { exact: true }).selectOption("MAC");
    await submit(page, "Save");
    assert.equal(await page.getByRole("status").textContent(), "Field created successfully.");
    assert.equal(await page.getByRole("cell", { name: `MAC ${HOSTILE}`, exact: true }).count(), 1);
    await assertAccessible(page, "custom fields");
    await browser.current.screenshot(page, `${inventory.database.dialect}-fields`);

    await Promise.all([
      page.waitForNavigation(),
      page.getByRole("link", { name: "Create New Fieldset" }).click(),
    ]);
    await page.getByLabel("Name").fill("Laptops");
    await submit(page, "Save");
    assert.equal(await page.getByRole("status").textContent(), "Fieldset created successfully.");
    assert.equal(await heading(page), "Laptops");
    await page.getByLabel("Field", { exact: true }).selectOption({ label: `MAC ${HOSTILE}` });
    await page.getByLabel("Required").check();
    await submit(page, "Save");
    assert.match((await page.getByRole("row", { name: /MAC/ }).textContent()) ?? "", /Yes/);
    await assertAccessible(page, "fieldset");
    await browser.current.screenshot(page, `${inventory.database.dialect}-fieldset`);

    await page.goto(`${inventory.url}/fields`);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole("link", { name: `Delete MAC ${HOSTILE}` }).click(),
    ]);
    await submit(page, "Delete");
    assert.equal(await page.getByRole("alert").textContent(), "Field is in use.");

    await page.getByRole("link", { name: "Laptops", exact: true }).click();
    await page.waitForURL(/fieldsets\/\d+$/);
    await submit(page, `Remove MAC ${HOSTILE}`);
    assert.equal(await page.getByRole("row", { name: /MAC/ }).count(), 0);
    await page.goto(`${inventory.url}/fields`);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole("link", { name: `Delete MAC ${HOSTILE}` }).click(),
    ]);
    await submit(page, "Delete");
    assert.equal(await page.getByRole("status").textContent(), "The field was deleted successfully.");
  });

  test("an admin may do all but the superuser's: no groups", async () => {
    await userWithToken(inventory, "deputy", { admin: "1" });
    const page = await browser.current.newPage();
    await signIn(page, inventory.url, "deputy", "password123");
    await page.goto(`${inventory.url}/companies/${ids.companies}`);
    assert.equal(await page.getByRole("link", { name: "Edit" }).count(), 1);
    assert.equal(await page.getByRole("link", { name: "Delete" }).count(), 1);
    const nav = await page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents();
    assert.ok(nav.includes("Companies") && !nav.includes("Groups"), nav.join(", "));
    const cookie = (await sessionCookie(page)).value;
    assert.equal((await withCookie(inventory.url, "/admin/groups", cookie)).status, 403);
    const forged = await withCookie(inventory.url, "/admin/groups", cookie, {
      method: "POST",
      form: { _csrf: await csrfToken(page), name: "Forged" },
    });
    assert.equal(forged.status, 403);
    assert.equal((await api<{ total: number }>(inventory, "GET", "/groups?search=Forged")).body.total, 0);
  });

  test("a read-only user sees no buttons, and a forged form is refused", async () => {
    await userWithToken(inventory, "viewer", { "companies.view": "1", "licenses.view": "1" });
    const page = await browser.current.newPage({ width: 360 });
    await signIn(page, inventory.url, "viewer", "password123");
    await page.goto(`${inventory.url}/companies`);
    assert.equal(await heading(page), "Companies");
    assert.equal(await page.getByRole("link", { name: "Create New" }).count(), 0);
    assert.equal(await page.getByRole("columnheader", { name: "Actions" }).count(), 0);
    assert.equal(await horizontalOverflow(page), 0);
    await page.goto(`${inventory.url}/companies/${ids.companies}`);
    assert.equal(await page.getByRole("link", { name: "Edit" }).count(), 0);
    assert.equal(await page.getByRole("link", { name: "Delete" }).count(), 0);
    await page.goto(`${inventory.url}/licenses/${ids.licenses}`);
    assert.equal(await page.getByRole("link", { name: /Checkout/ }).count(), 0);
    const nav = await page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents();
    assert.deepEqual(nav, ["Dashboard", "Licenses", "Companies"]);

    const token = await csrfToken(page);
    const cookie = (await sessionCookie(page)).value;
    const forged = await withCookie(inventory.url, "/companies", cookie, {
      method: "POST",
      form: { _csrf: token, name: "Forged" },
    });
    assert.equal(forged.status, 403);
    const deleted = await withCookie(inventory.url, `/companies/${ids.companies}/delete`, cookie, {
      method: "POST",
      form: { _csrf: token },
    });
    assert.equal(deleted.status, 403);
    const seat = await withCookie(inventory.url, `/licenses/${ids.licenses}/checkout/1`, cookie, {
      method: "POST",
      form: { _csrf: token, assigned_to: String(ids.users) },
    });
    assert.equal(seat.status, 403);
    assert.equal((await withCookie(inventory.url, "/companies/create", cookie)).status, 403);
    assert.equal((await withCookie(inventory.url, "/users", cookie)).status, 403);
    assert.equal((await api<{ total: number }>(inventory, "GET", "/companies?search=Forged")).body.total, 0);
    assert.equal((await api(inventory, "GET", `/companies/${ids.companies}`)).status, 200);
  });
});
