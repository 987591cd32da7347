import assert from "node:assert/strict";
import { test } from "node:test";
import { assertAccessible, horizontalOverflow, useBrowser } from "@anvil/core/testing";
import { type AssetFixture, assetFixture, createAsset } from "../support/assets.ts";
import { forEachInventory } from "../support/inventory.ts";
import { consoleErrorsOf, signIn } from "../support/web.ts";

// Every main page of the web interface, as a superuser on a phone: what the issue asks of each page
// beyond its own tests. At most 3 requests after its HTML, none failing; no console error (a
// script or style the page's policy blocks); no horizontal scroll at 360 px; no serious or critical
// accessibility violation; a screenshot at desktop width.

const MAX_REQUESTS_AFTER_HTML = 3;

forEachInventory("inventory web: every main page", (inventory) => {
  const browser = useBrowser();
  let f: AssetFixture;
  let asset: number;

  test("fixture", async () => {
    f = await assetFixture(inventory, "tour");
    asset = await createAsset(inventory, f, "TOUR-1", { name: "Tour laptop", serial: "SN-4411" });
    // A few more, as the README's screenshot of the list shows them.
    await createAsset(inventory, f, "TOUR-2", { name: "Reception desk PC", assigned_user: f.userId });
    await createAsset(inventory, f, "TOUR-3", { name: "Spare monitor", status_id: f.pending });
    await createAsset(inventory, f, "TOUR-4", { name: "Broken dock", status_id: f.undeployable });
  });

  test("each page: few requests, no console error, no sideways scroll at 360 px, accessible", async () => {
    const pages = [
      "/",
      "/hardware",
      "/hardware/create",
      `/hardware/${asset}`,
      `/hardware/${asset}/checkout`,
      "/licenses",
      "/accessories",
      "/consumables",
      "/components",
      "/users",
      `/users/${f.userId}`,
      "/models",
      "/categories",
      "/manufacturers",
      "/suppliers",
      "/locations",
      "/companies",
      "/departments",
      "/statuslabels",
      "/depreciations",
      "/admin/groups",
      "/fields",
      "/maintenances",
      "/kits",
      "/import",
      "/reports/activity",
      "/account/password",
      "/account/api",
      "/admin",
      "/admin/login-attempts",
    ];
    const phone = await browser.current.newPage({ width: 360, height: 740 });
    const desktop = await browser.current.newPage();
    await signIn(phone, inventory.url, "admin", "adminpassword");
    await signIn(desktop, inventory.url, "admin", "adminpassword");
    const errors = consoleErrorsOf(phone);
    for (const path of pages) {
      const requests: string[] = [];
      const failed: string[] = [];
      const onRequest = (request: { url(): string; isNavigationRequest(): boolean }) => {
        if (!request.isNavigationRequest()) requests.push(request.url());
      };
      const onFailed = (request: { url(): string }) => failed.push(request.url());
      phone.on("request", onRequest);
      phone.on("requestfailed", onFailed);
      const answer = await phone.goto(`${inventory.url}${path}`, { waitUntil: "networkidle" });
      phone.off("request", onRequest);
      phone.off("requestfailed", onFailed);
      assert.equal(answer?.status(), 200, path);
      assert.ok(
        requests.length <= MAX_REQUESTS_AFTER_HTML,
        `${path} made ${requests.length} requests after its HTML: ${requests.join(", ")}`,
      );
      assert.deepEqual(failed, [], `${path}: failed requests`);
      assert.deepEqual(errors.splice(0), [], `${path}: console errors`);
      assert.equal(await horizontalOverflow(phone), 0, `${path} scrolls sideways at 360 px`);
      await assertAccessible(phone, path);
      await desktop.goto(`${inventory.url}${path}`, { waitUntil: "networkidle" });
      await browser.current.screenshot(desktop, `tour${path === "/" ? "-dashboard" : path}`);
    }
  });
});
