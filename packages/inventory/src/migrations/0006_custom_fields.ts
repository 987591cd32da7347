import {
  type AnyKysely,
  addEncryptionKey,
  addIdColumn,
  createEncryptionKeyTable,
  type NamedMigration,
} from "@anvil/core";
import { tableKit } from "./columns.ts";

// Custom fields and fieldsets (spec §20). Snipe-IT adds one assets column per field and renames or
// drops it with the field; DDL at run time is fragile on two databases and with several processes
// serving one, so an asset's values live in their own table instead, one row per asset and field,
// and a field's `_snipeit_<slug>_<id>` name is only what the API calls it (db_column).
export const customFields: NamedMigration = {
  name: "0006_custom_fields",
  async up(db: AnyKysely) {
    const kit = tableKit(db);

    let fields = addIdColumn(db.schema.createTable("custom_fields"), kit.dialect)
      .addColumn("name", "text", (c) => c.notNull().unique())
      .addColumn("db_column", "text", (c) => c.unique())
      // Laravel's rule for the format ("numeric", "regex:/…/"); empty for ANY.
      .addColumn("format", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("element", "text", (c) => c.notNull())
      .addColumn("field_values", "text")
      .addColumn("field_encrypted", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("help_text", "text");
    for (const flag of [
      "show_in_email",
      "is_unique",
      "display_in_user_view",
      "auto_add_to_fieldsets",
      "show_in_listview",
      "display_checkout",
      "display_checkin",
      "display_audit",
      "show_in_requestable_list",
    ])
      fields = fields.addColumn(flag, "boolean", (c) => c.notNull().defaultTo(false));
    await fields
      .addColumn("created_by", kit.id, (c) => c.references("users.id"))
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("updated_at", kit.time, (c) => c.notNull())
      .execute();

    // Which fields a fieldset has, in which order, and whether assets must give a value.
    await db.schema
      .createTable("custom_field_custom_fieldset")
      .addColumn("custom_field_id", kit.id, (c) => c.notNull().references("custom_fields.id"))
      .addColumn("custom_fieldset_id", kit.id, (c) => c.notNull().references("custom_fieldsets.id"))
      .addColumn("order", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("required", "boolean", (c) => c.notNull().defaultTo(false))
      .addPrimaryKeyConstraint("custom_field_custom_fieldset_pkey", ["custom_fieldset_id", "custom_field_id"])
      .execute();
    await db.schema
      .createIndex("custom_field_custom_fieldset_field")
      .on("custom_field_custom_fieldset")
      .column("custom_field_id")
      .execute();

    // A model's default value for a field, given to the assets created with that model.
    await db.schema
      .createTable("models_custom_fields")
      .addColumn("asset_model_id", kit.id, (c) => c.notNull().references("models.id"))
      .addColumn("custom_field_id", kit.id, (c) => c.notNull().references("custom_fields.id"))
      .addColumn("default_value", "text")
      .addPrimaryKeyConstraint("models_custom_fields_pkey", ["asset_model_id", "custom_field_id"])
      .execute();

    // An asset's value of a field; absent when it has none. Encrypted fields hold ciphertext.
    await db.schema
      .createTable("asset_custom_values")
      .addColumn("asset_id", kit.id, (c) => c.notNull().references("assets.id"))
      .addColumn("custom_field_id", kit.id, (c) => c.notNull().references("custom_fields.id"))
      .addColumn("value", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("asset_custom_values_pkey", ["asset_id", "custom_field_id"])
      .execute();
    await db.schema
      .createIndex("asset_custom_values_field")
      .on("asset_custom_values")
      .column("custom_field_id")
      .execute();

    // The key of encrypted field values, made once per installation. It lives in the database so
    // that every process serving it reads the same one.
    await createEncryptionKeyTable(db);
    await addEncryptionKey(db, "custom_fields");
  },
};
