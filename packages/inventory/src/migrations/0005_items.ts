import { type AnyKysely, addIdColumn, dateType, type NamedMigration } from "@anvil/core";
import type { CreateTableBuilder } from "kysely";
import { addRecordColumns, type TableKit, tableKit } from "./columns.ts";

// Stock items (spec §15–§18): accessories, consumables and components are counted stock whose
// check-outs are rows of their own tables, so what remains is the quantity less those rows;
// licenses hold one seat row per seat. Asset references (components_assets.asset_id,
// license_seats.asset_id, accessories_checkout.assigned_to when assigned_type is "asset") carry no
// foreign key: the services check them against `assets`, as they do polymorphic targets.
export const items: NamedMigration = {
  name: "0005_items",
  async up(db: AnyKysely) {
    const kit = tableKit(db);
    const date = dateType(kit.dialect);
    const stock = <T extends string>(name: T) =>
      addIdColumn(db.schema.createTable(name), kit.dialect)
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("category_id", kit.id, (c) => c.references("categories.id"))
        .addColumn("company_id", kit.id, (c) => c.references("companies.id"))
        .addColumn("location_id", kit.id, (c) => c.references("locations.id"))
        .addColumn("manufacturer_id", kit.id, (c) => c.references("manufacturers.id"))
        .addColumn("supplier_id", kit.id, (c) => c.references("suppliers.id"))
        .addColumn("qty", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("min_amt", "integer")
        .addColumn("model_number", "text")
        .addColumn("order_number", "text")
        .addColumn("purchase_cost", "numeric")
        .addColumn("purchase_date", date)
        .addColumn("notes", "text")
        .addColumn("image", "text");

    await addRecordColumns(
      stock("accessories").addColumn("requestable", "boolean", (c) => c.notNull().defaultTo(false)),
      kit,
    ).execute();
    await checkoutColumns(db.schema.createTable("accessories_checkout"), kit, "accessory_id", "accessories")
      .addColumn("assigned_to", kit.id, (c) => c.notNull())
      .addColumn("assigned_type", "text", (c) => c.notNull())
      .addColumn("note", "text")
      .execute();

    await addRecordColumns(
      stock("consumables")
        .addColumn("item_no", "text")
        .addColumn("requestable", "boolean", (c) => c.notNull().defaultTo(false)),
      kit,
    ).execute();
    await checkoutColumns(db.schema.createTable("consumables_users"), kit, "consumable_id", "consumables")
      .addColumn("assigned_to", kit.id, (c) => c.notNull().references("users.id"))
      .addColumn("note", "text")
      .execute();

    await addRecordColumns(stock("components").addColumn("serial", "text"), kit).execute();
    await checkoutColumns(db.schema.createTable("components_assets"), kit, "component_id", "components")
      .addColumn("asset_id", kit.id, (c) => c.notNull())
      .addColumn("assigned_qty", "integer", (c) => c.notNull())
      .addColumn("note", "text")
      .execute();

    await addRecordColumns(
      addIdColumn(db.schema.createTable("licenses"), kit.dialect)
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("serial", "text")
        .addColumn("seats", "integer", (c) => c.notNull())
        .addColumn("category_id", kit.id, (c) => c.references("categories.id"))
        .addColumn("company_id", kit.id, (c) => c.references("companies.id"))
        .addColumn("manufacturer_id", kit.id, (c) => c.references("manufacturers.id"))
        .addColumn("supplier_id", kit.id, (c) => c.references("suppliers.id"))
        .addColumn("depreciation_id", kit.id, (c) => c.references("depreciations.id"))
        .addColumn("license_name", "text")
        .addColumn("license_email", "text")
        .addColumn("purchase_cost", "numeric")
        .addColumn("purchase_date", date)
        .addColumn("expiration_date", date)
        .addColumn("termination_date", date)
        .addColumn("order_number", "text")
        .addColumn("purchase_order", "text")
        .addColumn("reassignable", "boolean", (c) => c.notNull().defaultTo(true))
        .addColumn("maintained", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("min_amt", "integer")
        .addColumn("notes", "text"),
      kit,
    ).execute();
    await checkoutColumns(db.schema.createTable("license_seats"), kit, "license_id", "licenses")
      .addColumn("assigned_to", kit.id, (c) => c.references("users.id"))
      .addColumn("asset_id", kit.id)
      .addColumn("notes", "text")
      .execute();

    for (const [table, columns] of [
      ["accessories_checkout", ["accessory_id"]],
      ["accessories_checkout", ["assigned_type", "assigned_to"]],
      ["consumables_users", ["consumable_id"]],
      ["consumables_users", ["assigned_to"]],
      ["components_assets", ["component_id"]],
      ["components_assets", ["asset_id"]],
      ["license_seats", ["license_id"]],
      ["license_seats", ["assigned_to"]],
      ["license_seats", ["asset_id"]],
    ] as const)
      await db.schema
        .createIndex(`${table}_${columns.join("_")}`)
        .on(table)
        .columns([...columns])
        .execute();
  },
};

/** id, the item the row belongs to, who wrote it and when: every check-out table's columns. */
function checkoutColumns<T extends string>(
  table: CreateTableBuilder<T, never>,
  kit: TableKit,
  itemColumn: string,
  itemTable: string,
) {
  return addIdColumn(table, kit.dialect)
    .addColumn(itemColumn, kit.id, (c) => c.notNull().references(`${itemTable}.id`))
    .addColumn("created_by", kit.id, (c) => c.references("users.id"))
    .addColumn("created_at", kit.time, (c) => c.notNull())
    .addColumn("updated_at", kit.time, (c) => c.notNull());
}
