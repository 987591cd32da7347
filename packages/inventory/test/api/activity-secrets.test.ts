import assert from "node:assert/strict";
import { test } from "node:test";
import type { AnyKysely } from "@anvil/core";
import { activitySecrets } from "../../src/migrations/0011_activity_secrets.ts";
import { storedNow } from "../../src/services/database.ts";
import type { Envelope, List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { category } from "../support/items.ts";

// The activity log, which `reports.view` reads, records an allow-list of changed fields: never a
// password (nor its hash), never a license's product key.

type Entry = { action_type: string; log_meta: Record<string, { old: unknown; new: unknown }> | null };

forEachInventory("inventory API: the activity log keeps no secrets", (inventory) => {
  let reporter = "";
  const report = async (type: string, id: number) => {
    const answer = await api<List<Entry>>(
      inventory,
      "GET",
      `/reports/activity?item_type=${type}&item_id=${id}&sort=id&order=desc`,
      { token: reporter },
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.rows;
  };

  test("a user's new password is not logged; their other changes are", async () => {
    reporter = (await userWithToken(inventory, "auditor", { "reports.view": "1" })).token;
    const user = await userWithToken(inventory, "changing", {});
    const changed = await api(inventory, "PATCH", `/users/${user.id}`, {
      body: {
        password: "a-new-password",
        password_confirmation: "a-new-password",
        jobtitle: "Engineer",
        permissions: { "assets.view": "1" },
      },
    });
    assert.equal((changed.body as Envelope).status, "success");
    const [update] = await report("user", user.id);
    assert.equal(update.action_type, "update");
    assert.deepEqual(Object.keys(update.log_meta ?? {}), ["jobtitle"]);
    const stored = await inventory.server.app.database?.db
      .selectFrom("users")
      .select("password")
      .where("id", "=", user.id)
      .executeTakeFirstOrThrow();
    const text = JSON.stringify(await report("user", user.id));
    assert.ok(stored?.password && !text.includes(stored.password), "the hash is nowhere in the report");
  });

  test("a license's product key is not logged", async () => {
    const categoryId = await category(inventory, "license", "Keys");
    const made = await api<Envelope<{ id: number }>>(inventory, "POST", "/licenses", {
      body: { name: "Suite", seats: 1, category_id: categoryId, serial: "FIRST-KEY-1234" },
    });
    const id = made.body.payload.id;
    await api(inventory, "PATCH", `/licenses/${id}`, {
      body: { serial: "SECOND-KEY-5678", notes: "renewed" },
    });
    const [update] = await report("license", id);
    assert.deepEqual(Object.keys(update.log_meta ?? {}), ["notes"]);
    const text = JSON.stringify(await report("license", id));
    assert.ok(!text.includes("FIRST-KEY") && !text.includes("SECOND-KEY"), text);
  });

  test("the migration takes secrets logged before out of the log", async () => {
    const database = inventory.server.app.database;
    if (!database) throw new Error("no database");
    const db = database.db as AnyKysely;
    const now = storedNow(database.dialect);
    const legacy = (itemType: string, meta: unknown) => ({
      action_type: "update",
      item_type: itemType,
      item_id: 1,
      log_meta: JSON.stringify(meta),
      action_source: "api",
      action_date: now,
      created_at: now,
      updated_at: now,
    });
    await db
      .insertInto("action_logs")
      .values([
        legacy("user", {
          password: { old: "scrypt$old", new: "scrypt$new" },
          city: { old: null, new: "Oslo" },
        }),
        legacy("license", { serial: { old: "OLD-KEY", new: "NEW-KEY" } }),
      ])
      .execute();
    await activitySecrets.up(db);
    await activitySecrets.up(db);
    const rows = await db
      .selectFrom("action_logs")
      .select(["item_type", "log_meta"])
      .where("item_id", "=", 1)
      .where("action_type", "=", "update")
      .where("item_type", "in", ["user", "license"])
      .execute();
    const metas = rows.map((row) => row.log_meta as string | null);
    assert.ok(metas.includes(JSON.stringify({ city: { old: null, new: "Oslo" } })), JSON.stringify(metas));
    assert.ok(metas.includes(null), JSON.stringify(metas));
    for (const meta of metas) assert.ok(!/password|serial|KEY|scrypt/.test(meta ?? ""), meta ?? "");
  });
});
