import { type AnyKysely, addIdColumn, dateType, type NamedMigration } from "@anvil/core";
import { addRecordColumns, tableKit, uniqueUndeleted } from "./columns.ts";

// Assets (Snipe-IT's hardware, spec §7). An asset is held by at most one user, location or other
// asset at a time: assigned_to with assigned_type ("user" | "location" | "asset"), no foreign key
// because the target table depends on the type. location_id is where the asset is now (it follows
// its holder); rtd_location_id is where it returns to when checked in.
export const assets: NamedMigration = {
  name: "0004_assets",
  async up(db: AnyKysely) {
    const kit = tableKit(db);
    const date = dateType(kit.dialect);
    await addRecordColumns(
      addIdColumn(db.schema.createTable("assets"), kit.dialect)
        .addColumn("name", "text")
        .addColumn("asset_tag", "text", (c) => c.notNull())
        .addColumn("serial", "text")
        .addColumn("model_id", kit.id, (c) => c.notNull().references("models.id"))
        .addColumn("status_id", kit.id, (c) => c.notNull().references("status_labels.id"))
        .addColumn("company_id", kit.id, (c) => c.references("companies.id"))
        .addColumn("location_id", kit.id, (c) => c.references("locations.id"))
        .addColumn("rtd_location_id", kit.id, (c) => c.references("locations.id"))
        .addColumn("supplier_id", kit.id, (c) => c.references("suppliers.id"))
        .addColumn("purchase_date", date)
        .addColumn("purchase_cost", "numeric")
        .addColumn("order_number", "text")
        .addColumn("notes", "text")
        .addColumn("image", "text")
        .addColumn("warranty_months", "integer")
        .addColumn("asset_eol_date", date)
        .addColumn("eol_explicit", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("expected_checkin", date)
        .addColumn("next_audit_date", date)
        .addColumn("last_audit_date", kit.time)
        .addColumn("last_checkout", kit.time)
        .addColumn("last_checkin", kit.time)
        .addColumn("requestable", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("byod", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("assigned_to", kit.id)
        .addColumn("assigned_type", "text")
        .addColumn("checkout_counter", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("checkin_counter", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("requests_counter", "integer", (c) => c.notNull().defaultTo(0)),
      kit,
    ).execute();
    await uniqueUndeleted(db, "assets", ["asset_tag"]);
    for (const columns of [
      ["model_id"],
      ["status_id"],
      ["location_id"],
      ["serial"],
      ["assigned_type", "assigned_to"],
    ])
      await db.schema
        .createIndex(`assets_${columns.join("_")}`)
        .on("assets")
        .columns(columns)
        .execute();
  },
};
