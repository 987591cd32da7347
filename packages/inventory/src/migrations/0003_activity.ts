import { type AnyKysely, addIdColumn, type NamedMigration } from "@anvil/core";
import { tableKit } from "./columns.ts";

// The activity log every write appends to, and the per-user request counters of the API's rate
// limit (in the database, so processes sharing one PostgreSQL share the limit).
export const activity: NamedMigration = {
  name: "0003_activity",
  async up(db: AnyKysely) {
    const kit = tableKit(db);
    await addIdColumn(db.schema.createTable("action_logs"), kit.dialect)
      .addColumn("created_by", kit.id, (c) => c.references("users.id"))
      .addColumn("action_type", "text", (c) => c.notNull())
      .addColumn("item_type", "text")
      .addColumn("item_id", kit.id)
      .addColumn("target_type", "text")
      .addColumn("target_id", kit.id)
      .addColumn("note", "text")
      .addColumn("log_meta", "text")
      .addColumn("location_id", kit.id)
      .addColumn("remote_ip", "text")
      .addColumn("user_agent", "text")
      .addColumn("action_source", "text")
      .addColumn("action_date", kit.time, (c) => c.notNull())
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("updated_at", kit.time, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("action_logs_item")
      .on("action_logs")
      .columns(["item_type", "item_id"])
      .execute();
    await db.schema
      .createIndex("action_logs_target")
      .on("action_logs")
      .columns(["target_type", "target_id"])
      .execute();

    await db.schema
      .createTable("api_throttle")
      .addColumn("user_id", kit.id, (c) => c.notNull())
      .addColumn("window_start", "bigint", (c) => c.notNull())
      .addColumn("hits", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("api_throttle_pk", ["user_id", "window_start"])
      .execute();
  },
};
