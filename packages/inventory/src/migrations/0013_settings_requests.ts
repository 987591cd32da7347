import { type AnyKysely, addIdColumn, type NamedMigration, toStoredTime } from "@anvil/core";
import { type SqlBool, sql } from "kysely";
import { tableKit } from "./columns.ts";

// Snipe-IT's settings row (only the settings something here reads: labels, currency, the webhook
// notifications), its login_attempts log of web sign-ins, and the checkout_requests users make of
// requestable assets.
export const settingsRequests: NamedMigration = {
  name: "0013_settings_requests",
  async up(db: AnyKysely) {
    const kit = tableKit(db);
    await addIdColumn(db.schema.createTable("settings"), kit.dialect)
      .addColumn("site_name", "text", (c) => c.notNull().defaultTo("Snipe-IT Asset Management"))
      .addColumn("default_currency", "text", (c) => c.notNull().defaultTo("USD"))
      .addColumn("label2_template", "text", (c) => c.notNull().defaultTo("Sheets/Avery/L7162"))
      .addColumn("label2_title", "text")
      .addColumn("label2_1d_type", "text", (c) => c.notNull().defaultTo("default"))
      .addColumn("label2_2d_type", "text", (c) => c.notNull().defaultTo("default"))
      .addColumn("qr_code", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("barcode_type", "text", (c) => c.notNull().defaultTo("QRCODE"))
      .addColumn("alt_barcode_enabled", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("alt_barcode", "text", (c) => c.notNull().defaultTo("C128"))
      .addColumn("webhook_selected", "text", (c) => c.notNull().defaultTo("slack"))
      .addColumn("webhook_endpoint", "text")
      .addColumn("webhook_channel", "text")
      .addColumn("webhook_botname", "text")
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("updated_at", kit.time, (c) => c.notNull())
      .execute();
    const now = toStoredTime(new Date(), kit.dialect);
    await db.insertInto("settings").values({ created_at: now, updated_at: now }).execute();

    await addIdColumn(db.schema.createTable("login_attempts"), kit.dialect)
      .addColumn("username", "text", (c) => c.notNull())
      .addColumn("remote_ip", "text")
      .addColumn("user_agent", "text")
      .addColumn("successful", "integer", (c) => c.notNull())
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("updated_at", kit.time, (c) => c.notNull())
      .execute();

    await addIdColumn(db.schema.createTable("checkout_requests"), kit.dialect)
      .addColumn("user_id", kit.id, (c) => c.notNull().references("users.id"))
      .addColumn("requestable_type", "text", (c) => c.notNull())
      .addColumn("requestable_id", kit.id, (c) => c.notNull())
      .addColumn("quantity", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("canceled_at", kit.time)
      .addColumn("fulfilled_at", kit.time)
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("updated_at", kit.time, (c) => c.notNull())
      .execute();
    // One open request per user and item: two requests racing leave one row.
    await db.schema
      .createIndex("checkout_requests_open")
      .on("checkout_requests")
      .columns(["user_id", "requestable_type", "requestable_id"])
      .unique()
      .where(sql<SqlBool>`canceled_at is null and fulfilled_at is null`)
      .execute();
  },
};
