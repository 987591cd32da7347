import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_SESSION_LIMITS } from "@anvil/core";
import {
  assertAccessible,
  horizontalOverflow,
  serviceConfig,
  startApp,
  useBrowser,
} from "@anvil/core/testing";
import { createApp } from "../../src/index.ts";
import { api, forEachInventory, type InventoryState } from "../support/inventory.ts";
import { csrfToken, sessionCookie, signIn, withCookie } from "../support/web.ts";

// The first run, signing in and out, and what a session may do, in a real chromium.

const HOSTILE_NAME = `<script>alert("x")</script> "Quoted"`;

function databaseOf(inventory: InventoryState) {
  const database = inventory.server.app.database;
  if (!database) throw new Error("no database");
  return database;
}

forEachInventory(
  "inventory web: first run and sign-in",
  (inventory) => {
    const browser = useBrowser();

    test("the first visit leads to the setup form, which makes the superuser and signs them in", async () => {
      const page = await browser.current.newPage();
      const dialogs: string[] = [];
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      // A missing file, or a script or style the Content-Security-Policy blocks, shows here.
      const consoleErrors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text());
      });
      await page.goto(`${inventory.url}/`);
      assert.equal(new URL(page.url()).pathname, "/setup");
      await assertAccessible(page, "setup");
      await browser.current.screenshot(page, `${inventory.database.dialect}-setup`);

      await page.getByLabel("First Name").fill(HOSTILE_NAME);
      await page.getByLabel("Username").fill("admin");
      await page.getByLabel("Email").fill("admin@example.com");
      await page.getByLabel("Password", { exact: true }).fill("short");
      await page.getByLabel("Confirm Password").fill("short");
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Save" }).click()]);
      // Refused with the field's message; nothing made.
      assert.match(String(await page.locator(".field.has-error").textContent()), /at least 8 characters/);
      assert.equal(await page.getByLabel("Username").inputValue(), "admin");
      // The browser reports the refusal's 422 as an error; nothing else may have gone wrong.
      assert.deepEqual(
        consoleErrors.map((text) => text.replace(/\d{3} \(Unprocessable Entity\)/, "422")),
        ["Failed to load resource: the server responded with a status of 422"],
      );
      consoleErrors.length = 0;

      await page.getByLabel("Password", { exact: true }).fill("adminpassword");
      await page.getByLabel("Confirm Password").fill("adminpassword");
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Save" }).click()]);
      assert.equal(new URL(page.url()).pathname, "/");
      assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Dashboard");
      assert.equal(await page.getByRole("status").textContent(), "Your account has been created.");
      // The name is shown as typed, as text: no script ran, no markup made of it.
      assert.equal(await page.locator(".signed-in strong").textContent(), `${HOSTILE_NAME}`);
      const html = await page.content();
      assert.ok(!html.includes(`<script>alert`), "the name's markup reached the page");
      assert.deepEqual(dialogs, []);
      assert.deepEqual(consoleErrors, []);
      await assertAccessible(page, "dashboard");
      await browser.current.screenshot(page, `${inventory.database.dialect}-dashboard`);

      const users = await databaseOf(inventory)
        .db.selectFrom("users")
        .select(["username", "permissions"])
        .execute();
      assert.deepEqual(users, [{ username: "admin", permissions: '{"superuser":"1"}' }]);
    });

    test("once a user exists, /setup is refused, by link and by form", async () => {
      const page = await browser.current.newPage();
      await page.goto(`${inventory.url}/setup`);
      assert.equal(new URL(page.url()).pathname, "/login");
      assert.match(String(await page.getByRole("status").textContent()), /created already/);
      await assertAccessible(page, "login");
      await browser.current.screenshot(page, `${inventory.database.dialect}-login`);

      // The form posted anyway (an old tab): its token is right, the setup is over.
      const cookies = await page.context().cookies();
      const cookie = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
      const answer = await fetch(`${inventory.url}/setup`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          _csrf: await csrfToken(page),
          first_name: "Mallory",
          username: "mallory",
          email: "mallory@example.com",
          password: "password123",
          password_confirmation: "password123",
        }).toString(),
        redirect: "manual",
      });
      assert.equal(answer.status, 409);
      assert.match(await answer.text(), /created already/);
      const users = await databaseOf(inventory).db.selectFrom("users").select("username").execute();
      assert.deepEqual(users, [{ username: "admin" }]);
    });

    test("the login form signs in by username and by e-mail; a wrong password says so", async () => {
      const page = await browser.current.newPage();
      await signIn(page, inventory.url, "admin", "wrong-password");
      assert.equal(new URL(page.url()).pathname, "/login");
      assert.equal(await page.getByRole("alert").textContent(), "The username or password is incorrect.");
      assert.equal(await page.getByLabel("Username or e-mail").inputValue(), "admin");
      await assertAccessible(page, "login with an error");
      await browser.current.screenshot(page, `${inventory.database.dialect}-login-error`);

      await signIn(page, inventory.url, "admin", "adminpassword");
      assert.equal(new URL(page.url()).pathname, "/");
      assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Dashboard");

      const other = await browser.current.newPage();
      await signIn(other, inventory.url, "ADMIN@example.com", "adminpassword");
      assert.equal(new URL(other.url()).pathname, "/");
      // Signed in, the login form leads home.
      await other.goto(`${inventory.url}/login`);
      assert.equal(new URL(other.url()).pathname, "/");
    });

    test("the session cookie is HttpOnly and SameSite=Lax; Remember me makes it persistent", async () => {
      const page = await browser.current.newPage();
      await signIn(page, inventory.url, "admin", "adminpassword");
      const plain = await sessionCookie(page);
      assert.equal(plain.httpOnly, true);
      assert.equal(plain.sameSite, "Lax");
      assert.equal(plain.secure, false, "not Secure over plain HTTP");
      assert.equal(plain.expires, -1, "a browser-session cookie");

      const remembered = await browser.current.newPage();
      await signIn(remembered, inventory.url, "admin", "adminpassword", { remember: true });
      const cookie = await sessionCookie(remembered);
      const lifetime = cookie.expires - Date.now() / 1000;
      assert.ok(
        Math.abs(lifetime - DEFAULT_SESSION_LIMITS.absoluteSeconds) < 120,
        `expires in ${lifetime} s`,
      );
    });

    test("logging out ends the session: the old cookie is refused by pages and the API", async () => {
      const page = await browser.current.newPage();
      await signIn(page, inventory.url, "admin", "adminpassword");
      const old = (await sessionCookie(page)).value;
      assert.equal((await withCookie(inventory.url, "/api/v1/hardware", old)).status, 200);
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Logout" }).click()]);
      assert.equal(new URL(page.url()).pathname, "/login");
      assert.equal(await page.getByRole("status").textContent(), "You have successfully logged out.");

      const home = await withCookie(inventory.url, "/", old);
      assert.equal(home.status, 303);
      assert.equal(home.headers.get("location"), "/login");
      const read = await withCookie(inventory.url, "/api/v1/hardware", old);
      assert.equal(read.status, 401);
      assert.deepEqual(await read.json(), { error: "Unauthorized or unauthenticated." });
    });

    test("an expired session is refused, whether past its end or idle too long", async () => {
      const db = databaseOf(inventory).db;
      for (const column of ["expires_at", "last_seen_at"] as const) {
        const page = await browser.current.newPage();
        await signIn(page, inventory.url, "admin", "adminpassword");
        const session = (await sessionCookie(page)).value;
        assert.equal((await withCookie(inventory.url, "/", session)).status, 200);
        const past =
          column === "expires_at"
            ? Date.now() - 1000
            : Date.now() - DEFAULT_SESSION_LIMITS.idleSeconds * 1000 - 1000;
        // Every session row: the one just made is the newest, and older ones are ended anyway.
        await db
          .updateTable("web_sessions" as never)
          .set({ [column]: past } as never)
          .execute();
        const home = await withCookie(inventory.url, "/", session);
        assert.equal(home.status, 303, column);
        assert.equal(home.headers.get("location"), "/login");
        await page.goto(`${inventory.url}/account/password`);
        assert.equal(new URL(page.url()).pathname, "/login");
      }
    });

    test("a form posted without its CSRF token, or with another session's, is refused", async () => {
      const page = await browser.current.newPage();
      await signIn(page, inventory.url, "admin", "adminpassword");
      const session = (await sessionCookie(page)).value;
      const other = await browser.current.newPage();
      await signIn(other, inventory.url, "admin", "adminpassword");
      await other.goto(`${inventory.url}/account/password`);
      const othersToken = await csrfToken(other);
      const form = {
        current_password: "adminpassword",
        password: "hijacked1",
        password_confirmation: "hijacked1",
      };
      for (const extra of [{}, { _csrf: othersToken }] as Record<string, string>[]) {
        const answer = await withCookie(inventory.url, "/account/password", session, {
          method: "POST",
          form: { ...form, ...extra },
        });
        assert.equal(answer.status, 403);
        assert.match(await answer.text(), /The form has expired/);
      }
      // The password is the same as before.
      const again = await browser.current.newPage();
      await signIn(again, inventory.url, "admin", "adminpassword");
      assert.equal(new URL(again.url()).pathname, "/");
    });

    test("a browser asking for an unknown address gets a page; API clients still get the API's answer", async () => {
      const page = await browser.current.newPage();
      await signIn(page, inventory.url, "admin", "adminpassword");
      const answer = await page.goto(`${inventory.url}/no-such-page`);
      assert.equal(answer?.status(), 404);
      assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Error 404");
      assert.ok(await page.getByRole("button", { name: "Logout" }).isVisible(), "in the signed-in layout");
      assert.match(answer?.headers()["content-security-policy"] ?? "", /default-src 'self'/);
      await assertAccessible(page);

      const json = await fetch(`${inventory.url}/no-such-page`, { headers: { accept: "application/json" } });
      assert.equal(json.status, 404);
      assert.equal(((await json.json()) as { status: string }).status, "error");
      const api = await fetch(`${inventory.url}/api/v1/no-such-route`, { headers: { accept: "text/html" } });
      assert.equal(api.status, 404);
      assert.equal(((await api.json()) as { status: string }).status, "error", "the API answers as the API");
    });

    test("the session cookie reads the API; a write needs the session's CSRF token too", async () => {
      const page = await browser.current.newPage();
      await signIn(page, inventory.url, "admin", "adminpassword");
      const session = (await sessionCookie(page)).value;
      const token = await csrfToken(page);

      const read = await withCookie(inventory.url, "/api/v1/hardware", session);
      assert.equal(read.status, 200);
      assert.deepEqual(await read.json(), { total: 0, rows: [] });
      assert.equal(
        (await withCookie(inventory.url, "/api/v1/hardware", session, { method: "HEAD" })).status,
        200,
      );

      const company = { name: "Acme" };
      const refused = await withCookie(inventory.url, "/api/v1/companies", session, {
        method: "POST",
        json: company,
      });
      assert.equal(refused.status, 403);
      assert.deepEqual(await refused.json(), {
        status: "error",
        messages: "Invalid csrf token",
        payload: null,
      });
      const wrong = await withCookie(inventory.url, "/api/v1/companies", session, {
        method: "POST",
        json: company,
        headers: { "x-csrf-token": `${token}x` },
      });
      assert.equal(wrong.status, 403);
      const anonymous = await fetch(`${inventory.url}/api/v1/hardware`);
      assert.equal(anonymous.status, 401);

      const allowed = await withCookie(inventory.url, "/api/v1/companies", session, {
        method: "POST",
        json: company,
        headers: { "x-csrf-token": token },
      });
      assert.equal(allowed.status, 200);
      const body = (await allowed.json()) as { status: string; payload: { name: string } };
      assert.equal(body.status, "success");
      assert.equal(body.payload.name, "Acme");
    });

    test("another process on the same database honours the session; its cookie is Secure behind TLS", async () => {
      const second = await startApp(({ dataDir }) =>
        createApp(serviceConfig(dataDir, inventory.database.url, { trustProxy: true }), {
          apiThrottlePerMinute: 0,
        }),
      );
      try {
        const page = await browser.current.newPage();
        await signIn(page, inventory.url, "admin", "adminpassword");
        const session = (await sessionCookie(page)).value;
        assert.equal((await withCookie(second.url, "/api/v1/hardware", session)).status, 200);
        await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Logout" }).click()]);
        assert.equal((await withCookie(second.url, "/api/v1/hardware", session)).status, 401);

        // Behind a TLS proxy (X-Forwarded-Proto from a trusted proxy), every cookie is Secure.
        const tls = { "x-forwarded-proto": "https" };
        const form = await fetch(`${second.url}/login`, { headers: tls });
        const csrfCookie = form.headers.getSetCookie().find((c) => c.startsWith("inventory_csrf="));
        assert.ok(csrfCookie);
        assert.match(csrfCookie, /; Secure/);
        const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
        const signedIn = await fetch(`${second.url}/login`, {
          method: "POST",
          headers: {
            ...tls,
            cookie: csrfCookie.split(";")[0],
            "content-type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({
            _csrf: token ?? "",
            username: "admin",
            password: "adminpassword",
          }).toString(),
          redirect: "manual",
        });
        assert.equal(signedIn.status, 303);
        const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith("inventory_session="));
        assert.ok(cookie);
        assert.match(cookie, /; HttpOnly/);
        assert.match(cookie, /; Secure/);
        assert.match(cookie, /; SameSite=Lax/);
        assert.doesNotMatch(cookie, /Max-Age/);
      } finally {
        await second.close();
      }
    });

    test("the pages' JavaScript is served from here, cached for good, under 60 KB compressed", async () => {
      const page = await (await fetch(`${inventory.url}/login`)).text();
      const scripts = [...page.matchAll(/<script src="([^"]+)"/g)].map((match) => match[1]);
      assert.ok(scripts.length > 0);
      let compressed = 0;
      for (const src of scripts) {
        assert.match(src, /^\/assets\/[^/]+\?v=[0-9a-f]{12}$/, "served by the inventory itself");
        const answer = await fetch(`${inventory.url}${src}`, { headers: { "accept-encoding": "gzip" } });
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get("content-encoding"), "gzip");
        assert.equal(answer.headers.get("cache-control"), "public, max-age=31536000, immutable");
        compressed += Number(answer.headers.get("content-length"));
        await answer.arrayBuffer();
      }
      assert.ok(compressed > 0 && compressed < 60 * 1024, `${compressed} bytes`);
      assert.equal((await fetch(`${inventory.url}/assets/..%2Fpackage.json`)).status, 404);
    });

    test("the login page and the layout fit a 360 px wide screen without horizontal scrolling", async () => {
      const page = await browser.current.newPage({ width: 360, height: 740 });
      await page.goto(`${inventory.url}/login`);
      assert.equal(await horizontalOverflow(page), 0, "login page");
      await browser.current.screenshot(page, `${inventory.database.dialect}-login-360`);
      await signIn(page, inventory.url, "admin", "adminpassword");
      for (const path of ["/", "/account/password", "/account/api", "/admin", "/admin/login-attempts"]) {
        await page.goto(`${inventory.url}${path}`);
        assert.equal(await horizontalOverflow(page), 0, path);
      }
      await page.goto(`${inventory.url}/`);
      await browser.current.screenshot(page, `${inventory.database.dialect}-dashboard-360`);
    });
  },
  { apiThrottlePerMinute: 0 },
  { admin: false },
);

forEachInventory(
  "inventory web: failed sign-ins are throttled",
  (inventory) => {
    const browser = useBrowser();

    test("after the account's failures, even the right password waits, with a clear message", async () => {
      const page = await browser.current.newPage();
      for (let attempt = 0; attempt < 3; attempt++) {
        await signIn(page, inventory.url, "admin", `guess-${attempt}`);
        assert.equal(await page.getByRole("alert").textContent(), "The username or password is incorrect.");
      }
      await signIn(page, inventory.url, "admin", "adminpassword");
      assert.equal(new URL(page.url()).pathname, "/login");
      assert.match(
        String(await page.getByRole("alert").textContent()),
        /^Too many failed login attempts\. Please try again in \d+ minutes?\.$/,
      );
      await browser.current.screenshot(page, `${inventory.database.dialect}-login-throttled`);
      // The log superusers read has the three checked attempts; the refused one was never checked.
      const logged = await api<{ total: number }>(inventory, "GET", "/settings/login-attempts");
      assert.equal(logged.body.total, 3);
    });
  },
  {
    apiThrottlePerMinute: 0,
    loginLimits: { accountFailures: 3, addressFailures: 100, windowSeconds: 900, trustSeconds: 86_400 },
  },
);
