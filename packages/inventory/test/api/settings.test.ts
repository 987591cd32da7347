import assert from "node:assert/strict";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { checkSignIn } from "../../src/services/users.ts";
import type { Envelope, List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

type Settings = Record<string, unknown> & { id: number };

const LIMITS = { accountFailures: 50, addressFailures: 50, windowSeconds: 900, trustSeconds: 0 };

forEachInventory("inventory API: settings, login attempts, backups", (inventory) => {
  const database = () => {
    const opened = inventory.server.app.database;
    if (!opened) throw new Error("no database");
    return opened;
  };
  let adminOnly = "";

  test("fixture: an admin who is not a superuser", async () => {
    adminOnly = (await userWithToken(inventory, "settingsadmin", { admin: "1" })).token;
  });

  test("GET /settings and /settings/{id} answer the one row with its defaults", async () => {
    const row = (await api<Settings>(inventory, "GET", "/settings")).body;
    assert.equal(row.site_name, "Snipe-IT Asset Management");
    assert.equal(row.default_currency, "USD");
    assert.equal(row.label2_template, "Sheets/Avery/L7162");
    assert.equal(row.qr_code, 1);
    assert.equal(row.barcode_type, "QRCODE");
    assert.equal(row.webhook_selected, "slack");
    assert.equal(row.webhook_endpoint, null);
    assert.match(String(row.updated_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const byId = await api<Settings>(inventory, "GET", `/settings/${row.id}`);
    assert.deepEqual(byId.body, row);
    const other = await api<Envelope>(inventory, "GET", `/settings/${row.id + 1}`);
    assert.deepEqual(other.body, { status: "error", messages: "Setting not found", payload: null });
  });

  test("only superusers: an admin gets 403 on every settings route, before the body is read", async () => {
    for (const [method, path] of [
      ["GET", "/settings"],
      ["PATCH", "/settings"],
      ["PUT", "/settings/1"],
      ["GET", "/settings/login-attempts"],
      ["GET", "/settings/backups"],
    ]) {
      const answer = await api(inventory, method, path, {
        token: adminOnly,
        rawBody: method === "GET" ? undefined : "{",
      });
      assert.equal(answer.status, 403, `${method} ${path}`);
      assert.deepEqual(answer.body, { message: "This action is unauthorized." });
    }
  });

  test("PATCH changes what it names, logs it, and keeps the rest", async () => {
    const answer = await api<Envelope<Settings>>(inventory, "PATCH", "/settings", {
      body: {
        site_name: "Acme IT",
        default_currency: "EUR",
        qr_code: false,
        webhook_selected: "msteams",
        webhook_endpoint: "https://example.com/hook",
        barcode_type: "datamatrix",
      },
    });
    assert.equal(answer.body.status, "success");
    assert.equal(answer.body.messages, "Settings updated successfully.");
    assert.equal(answer.body.payload.site_name, "Acme IT");
    assert.equal(answer.body.payload.qr_code, 0);
    const row = (await api<Settings>(inventory, "GET", "/settings")).body;
    assert.equal(row.default_currency, "EUR");
    assert.equal(row.webhook_selected, "msteams");
    assert.equal(row.webhook_endpoint, "https://example.com/hook");
    assert.equal(row.label2_template, "Sheets/Avery/L7162");
    assert.equal(row.barcode_type, "DATAMATRIX", "a choice is kept in its canonical spelling");
    const entry = await database()
      .db.selectFrom("action_logs")
      .selectAll()
      .where("item_type", "=", "setting")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    assert.equal(entry.action_type, "update");
    assert.deepEqual(JSON.parse(String(entry.log_meta)).site_name, {
      old: "Snipe-IT Asset Management",
      new: "Acme IT",
    });
  });

  test("bad values are refused field by field and change nothing", async () => {
    const answer = await api<Envelope>(inventory, "PATCH", "/settings", {
      body: {
        site_name: "Changed",
        label2_template: "Sheets/Nobody/X",
        webhook_selected: "carrier-pigeon",
        webhook_endpoint: "not a url",
        barcode_type: "QR",
        site_name_extra: "ignored",
        default_currency: "",
      },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, "error");
    assert.deepEqual(Object.keys(answer.body.messages as object).sort(), [
      "barcode_type",
      "default_currency",
      "label2_template",
      "webhook_endpoint",
      "webhook_selected",
    ]);
    assert.equal((await api<Settings>(inventory, "GET", "/settings")).body.site_name, "Acme IT");
  });

  test("login-attempts lists web sign-ins, newest first, in Snipe-IT's shape", async () => {
    const made = await api<Envelope<{ id: number }>>(inventory, "POST", "/users", {
      body: {
        first_name: "Lara",
        username: "lara",
        password: "password123",
        password_confirmation: "password123",
      },
    });
    assert.equal(made.body.status, "success");
    const signIn = (password: string, address: string) =>
      checkSignIn(database(), LIMITS, { username: "lara", password, address, userAgent: "Browser/<1>" });
    assert.equal(await signIn("wrong-one", "192.0.2.1"), undefined);
    assert.equal((await signIn("password123", "192.0.2.2"))?.username, "lara");
    const page = await api<List>(inventory, "GET", "/settings/login-attempts");
    assert.equal(page.body.total, 2);
    const [newest, oldest] = page.body.rows;
    assert.deepEqual(Object.keys(newest).sort(), [
      "created_at",
      "id",
      "remote_ip",
      "successful",
      "user_agent",
      "username",
    ]);
    assert.equal(newest.successful, true);
    assert.equal(newest.remote_ip, "192.0.2.2");
    assert.equal(newest.user_agent, "Browser/&lt;1&gt;");
    assert.equal(oldest.successful, false);
    assert.equal(oldest.username, "lara");
    const sorted = await api<List>(
      inventory,
      "GET",
      "/settings/login-attempts?sort=remote_ip&order=asc&limit=1",
    );
    assert.equal(sorted.body.total, 2);
    assert.deepEqual(
      sorted.body.rows.map((row) => row.remote_ip),
      ["192.0.2.1"],
    );
  });

  test("backups lists the files of the backups folder, newest first, without dot files", async () => {
    const empty = await api<List>(inventory, "GET", "/settings/backups");
    assert.deepEqual(empty.body, { total: 0, rows: [] });
    const folder = join(inventory.server.dataDir, "inventory", "backups");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "older.sqlite"), Buffer.alloc(2048));
    await writeFile(join(folder, "newer.sqlite"), Buffer.alloc(1536 * 1024));
    await writeFile(join(folder, ".gitignore"), "*");
    await utimes(
      join(folder, "older.sqlite"),
      new Date("2025-01-01T10:00:00Z"),
      new Date("2025-01-01T10:00:00Z"),
    );
    await utimes(
      join(folder, "newer.sqlite"),
      new Date("2025-02-01T15:30:00Z"),
      new Date("2025-02-01T15:30:00Z"),
    );
    const listed = await api<List>(inventory, "GET", "/settings/backups");
    assert.deepEqual(listed.body, {
      total: 2,
      rows: [
        {
          filename: "newer.sqlite",
          filesize: "1.5 MB",
          modified_value: Date.parse("2025-02-01T15:30:00Z") / 1000,
          modified_display: "2025-02-01 03:30 PM",
        },
        {
          filename: "older.sqlite",
          filesize: "2 KB",
          modified_value: Date.parse("2025-01-01T10:00:00Z") / 1000,
          modified_display: "2025-01-01 10:00 AM",
        },
      ],
    });
  });
});
