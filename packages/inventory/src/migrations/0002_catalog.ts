import { type AnyKysely, addIdColumn, type NamedMigration, toStoredTime } from "@anvil/core";
import { type SqlBool, sql } from "kysely";
import { addRecordColumns, tableKit, uniqueUndeleted } from "./columns.ts";

// What assets are made of: makers, sellers, categories, status labels, depreciation classes and
// models. Custom fieldsets get only their table here, so models can point at them; the custom
// fields wave fills it in.
export const catalog: NamedMigration = {
  name: "0002_catalog",
  async up(db: AnyKysely) {
    const kit = tableKit(db);

    let manufacturers = addIdColumn(db.schema.createTable("manufacturers"), kit.dialect).addColumn(
      "name",
      "text",
      (c) => c.notNull(),
    );
    for (const column of [
      "url",
      "support_url",
      "warranty_lookup_url",
      "support_phone",
      "support_email",
      "notes",
      "image",
    ])
      manufacturers = manufacturers.addColumn(column, "text");
    await addRecordColumns(manufacturers, kit).execute();
    await uniqueUndeleted(db, "manufacturers", ["name"]);

    let suppliers = addIdColumn(db.schema.createTable("suppliers"), kit.dialect).addColumn(
      "name",
      "text",
      (c) => c.notNull(),
    );
    for (const column of [
      "address",
      "address2",
      "city",
      "state",
      "country",
      "zip",
      "phone",
      "fax",
      "email",
      "contact",
      "url",
      "notes",
      "image",
    ])
      suppliers = suppliers.addColumn(column, "text");
    await addRecordColumns(suppliers, kit).execute();
    await uniqueUndeleted(db, "suppliers", ["name"]);

    await addRecordColumns(
      addIdColumn(db.schema.createTable("categories"), kit.dialect)
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("category_type", "text", (c) => c.notNull())
        .addColumn("eula_text", "text")
        .addColumn("use_default_eula", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("require_acceptance", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("checkin_email", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("notes", "text")
        .addColumn("image", "text"),
      kit,
    ).execute();
    await uniqueUndeleted(db, "categories", ["name"], ["category_type"]);

    await addRecordColumns(
      addIdColumn(db.schema.createTable("status_labels"), kit.dialect)
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("deployable", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("pending", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("archived", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("color", "text")
        .addColumn("show_in_nav", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("default_label", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("notes", "text"),
      kit,
    ).execute();
    await uniqueUndeleted(db, "status_labels", ["name"]);
    const now = toStoredTime(new Date(), kit.dialect);
    await db
      .insertInto("status_labels")
      .values(
        [
          { name: "Pending", deployable: false, pending: true, archived: false },
          { name: "Ready to Deploy", deployable: true, pending: false, archived: false },
          { name: "Archived", deployable: false, pending: false, archived: true },
        ].map((label) => ({ ...label, created_at: now, updated_at: now })),
      )
      .execute();

    await addRecordColumns(
      addIdColumn(db.schema.createTable("depreciations"), kit.dialect)
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("months", "integer", (c) => c.notNull())
        .addColumn("depreciation_min", "numeric")
        .addColumn("depreciation_type", "text", (c) => c.notNull().defaultTo("amount")),
      kit,
    ).execute();
    await uniqueUndeleted(db, "depreciations", ["name"]);

    await addIdColumn(db.schema.createTable("custom_fieldsets"), kit.dialect)
      .addColumn("name", "text", (c) => c.notNull().unique())
      .addColumn("created_by", kit.id, (c) => c.references("users.id"))
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("updated_at", kit.time, (c) => c.notNull())
      .execute();

    await addRecordColumns(
      addIdColumn(db.schema.createTable("models"), kit.dialect)
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("model_number", "text")
        .addColumn("manufacturer_id", kit.id, (c) => c.references("manufacturers.id"))
        .addColumn("category_id", kit.id, (c) => c.notNull().references("categories.id"))
        .addColumn("depreciation_id", kit.id, (c) => c.references("depreciations.id"))
        .addColumn("fieldset_id", kit.id, (c) => c.references("custom_fieldsets.id"))
        .addColumn("eol", "integer")
        .addColumn("min_amt", "integer")
        .addColumn("requestable", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("notes", "text")
        .addColumn("image", "text"),
      kit,
    ).execute();
    // A model's name is unique together with its model number; no number counts as one value.
    await db.schema
      .createIndex("models_name_model_number_undeleted")
      .on("models")
      .columns(["name"])
      .expression(sql`coalesce(model_number, '')`)
      .unique()
      .where(sql<SqlBool>`deleted_at is null`)
      .execute();
  },
};
