import { type AnyKysely, addIdColumn, type NamedMigration } from "@anvil/core";
import { tableKit } from "./columns.ts";

// Imports of many rows (spec §21): how far processing has got, readable while it runs, and the
// rows that failed and why. Errors are a table of their own, written a batch at a time and bounded
// per import, rather than a JSON column rewritten after every batch.
export const importProgress: NamedMigration = {
  name: "0017_import_progress",
  async up(db: AnyKysely) {
    const kit = tableKit(db);
    // One column a statement: SQLite's ALTER TABLE adds one at a time.
    const add = (column: string, type: "text" | "integer" | typeof kit.time) =>
      db.schema.alterTable("imports").addColumn(column, type).execute();
    await add("import_status", "text");
    await add("rows_total", "integer");
    await add("started_at", kit.time);
    await add("finished_at", kit.time);
    for (const counter of ["rows_processed", "rows_created", "rows_updated", "rows_unchanged", "rows_failed"])
      await db.schema
        .alterTable("imports")
        .addColumn(counter, "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    await addIdColumn(db.schema.createTable("import_errors"), kit.dialect)
      .addColumn("import_id", kit.id, (c) => c.notNull().references("imports.id").onDelete("cascade"))
      .addColumn("row_number", "integer", (c) => c.notNull())
      .addColumn("name", "text")
      .addColumn("messages", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("import_errors_import_id_row_number")
      .on("import_errors")
      .columns(["import_id", "row_number"])
      .execute();
  },
};
