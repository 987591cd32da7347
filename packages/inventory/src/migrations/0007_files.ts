import { type AnyKysely, addIdColumn, type NamedMigration } from "@anvil/core";
import { tableKit } from "./columns.ts";

// What users upload besides images: CSV files waiting to be imported (spec §21), and files attached
// to assets and models, which Snipe-IT records as "uploaded" entries of the activity log, the
// entry's filename naming the stored file. Both keep only server-generated names; the client's
// own file name is shown, never used as a path.
export const files: NamedMigration = {
  name: "0007_files",
  async up(db: AnyKysely) {
    const kit = tableKit(db);
    await addIdColumn(db.schema.createTable("imports"), kit.dialect)
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("file_path", "text", (c) => c.notNull().unique())
      .addColumn("filesize", "bigint", (c) => c.notNull())
      .addColumn("import_type", "text")
      .addColumn("header_row", "text", (c) => c.notNull())
      .addColumn("first_row", "text", (c) => c.notNull())
      .addColumn("field_map", "text")
      .addColumn("created_by", kit.id, (c) => c.references("users.id"))
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("updated_at", kit.time, (c) => c.notNull())
      .execute();
    await db.schema.alterTable("action_logs").addColumn("filename", "text").execute();
  },
};
