import { type AnyKysely, addIdColumn, dateType, type NamedMigration } from "@anvil/core";
import { addRecordColumns, tableKit } from "./columns.ts";

// Asset maintenances (Snipe-IT's asset_maintenances) and predefined kits (its kits, with one pivot
// table per kind of item a kit holds). A kit's pivot rows go with the kit; an item appears at most
// once in a kit, which the unique index decides.
export const maintenancesKits: NamedMigration = {
  name: "0012_maintenances_kits",
  async up(db: AnyKysely) {
    const kit = tableKit(db);
    const date = dateType(kit.dialect);
    await addRecordColumns(
      addIdColumn(db.schema.createTable("asset_maintenances"), kit.dialect)
        .addColumn("asset_id", kit.id, (c) => c.notNull().references("assets.id"))
        .addColumn("supplier_id", kit.id, (c) => c.references("suppliers.id"))
        .addColumn("asset_maintenance_type", "text", (c) => c.notNull())
        .addColumn("title", "text", (c) => c.notNull())
        .addColumn("is_warranty", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("start_date", date, (c) => c.notNull())
        .addColumn("completion_date", date)
        .addColumn("asset_maintenance_time", "integer")
        .addColumn("notes", "text")
        .addColumn("cost", "numeric"),
      kit,
    ).execute();
    for (const column of ["asset_id", "supplier_id"])
      await db.schema
        .createIndex(`asset_maintenances_${column}`)
        .on("asset_maintenances")
        .column(column)
        .execute();

    await addIdColumn(db.schema.createTable("kits"), kit.dialect)
      .addColumn("name", "text", (c) => c.notNull().unique())
      .addColumn("created_by", kit.id, (c) => c.references("users.id"))
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("updated_at", kit.time, (c) => c.notNull())
      .execute();
    for (const [pivot, column, items] of [
      ["kits_models", "model_id", "models"],
      ["kits_licenses", "license_id", "licenses"],
      ["kits_accessories", "accessory_id", "accessories"],
      ["kits_consumables", "consumable_id", "consumables"],
    ] as const) {
      await addIdColumn(db.schema.createTable(pivot), kit.dialect)
        .addColumn("kit_id", kit.id, (c) => c.notNull().references("kits.id").onDelete("cascade"))
        .addColumn(column, kit.id, (c) => c.notNull().references(`${items}.id`))
        .addColumn("quantity", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("created_at", kit.time, (c) => c.notNull())
        .addColumn("updated_at", kit.time, (c) => c.notNull())
        .addUniqueConstraint(`${pivot}_kit_item`, ["kit_id", column])
        .execute();
    }
  },
};
