import { type AnyKysely, addIdColumn, dateType, type NamedMigration } from "@anvil/core";
import { addRecordColumns, tableKit, uniqueUndeleted } from "./columns.ts";

// Users, their groups and tokens, and the places they belong to. Users point at companies,
// departments and locations, which point back at users (managers), so those user columns carry
// no foreign key; the services check them and refuse deletes that would leave them dangling.
export const people: NamedMigration = {
  name: "0001_people",
  async up(db: AnyKysely) {
    const kit = tableKit(db);
    const date = dateType(kit.dialect);
    const optionalText = ["email", "employee_num", "jobtitle", "phone", "website", "address", "city"];
    let users = addIdColumn(db.schema.createTable("users"), kit.dialect)
      .addColumn("first_name", "text", (c) => c.notNull())
      .addColumn("last_name", "text")
      .addColumn("username", "text", (c) => c.notNull())
      .addColumn("password", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("permissions", "text", (c) => c.notNull().defaultTo("{}"));
    for (const column of [...optionalText, "state", "country", "zip", "locale", "notes", "avatar"])
      users = users.addColumn(column, "text");
    for (const flag of ["vip", "remote", "ldap_import", "two_factor_enrolled", "two_factor_optin"])
      users = users.addColumn(flag, "boolean", (c) => c.notNull().defaultTo(false));
    await addRecordColumns(
      users
        .addColumn("activated", "boolean", (c) => c.notNull().defaultTo(true))
        .addColumn("autoassign_licenses", "boolean", (c) => c.notNull().defaultTo(true))
        .addColumn("start_date", date)
        .addColumn("end_date", date)
        .addColumn("last_login", kit.time)
        .addColumn("company_id", kit.id)
        .addColumn("department_id", kit.id)
        .addColumn("location_id", kit.id)
        .addColumn("manager_id", kit.id),
      kit,
    ).execute();
    await uniqueUndeleted(db, "users", ["username"]);

    await addIdColumn(db.schema.createTable("permission_groups"), kit.dialect)
      .addColumn("name", "text", (c) => c.notNull().unique())
      .addColumn("permissions", "text", (c) => c.notNull().defaultTo("{}"))
      .addColumn("notes", "text")
      .addColumn("created_by", kit.id, (c) => c.references("users.id"))
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("updated_at", kit.time, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("users_groups")
      .addColumn("user_id", kit.id, (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("group_id", kit.id, (c) =>
        c.notNull().references("permission_groups.id").onDelete("cascade"),
      )
      .addPrimaryKeyConstraint("users_groups_pk", ["user_id", "group_id"])
      .execute();

    await addIdColumn(db.schema.createTable("personal_access_tokens"), kit.dialect)
      .addColumn("user_id", kit.id, (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("token_hash", "text", (c) => c.notNull().unique())
      .addColumn("read_only", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("expires_at", kit.time, (c) => c.notNull())
      .addColumn("last_used_at", kit.time)
      .execute();

    await addRecordColumns(
      addIdColumn(db.schema.createTable("companies"), kit.dialect)
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("phone", "text")
        .addColumn("fax", "text")
        .addColumn("email", "text")
        .addColumn("notes", "text")
        .addColumn("image", "text"),
      kit,
    ).execute();
    await uniqueUndeleted(db, "companies", ["name"]);

    let locations = addIdColumn(db.schema.createTable("locations"), kit.dialect)
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("parent_id", kit.id, (c) => c.references("locations.id"))
      .addColumn("manager_id", kit.id, (c) => c.references("users.id"))
      .addColumn("company_id", kit.id, (c) => c.references("companies.id"));
    for (const column of ["address", "address2", "city", "state", "country", "zip", "phone", "fax"])
      locations = locations.addColumn(column, "text");
    for (const column of ["currency", "ldap_ou", "notes", "image"])
      locations = locations.addColumn(column, "text");
    await addRecordColumns(locations, kit).execute();
    await uniqueUndeleted(db, "locations", ["name"]);

    await addRecordColumns(
      addIdColumn(db.schema.createTable("departments"), kit.dialect)
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("company_id", kit.id, (c) => c.references("companies.id"))
        .addColumn("location_id", kit.id, (c) => c.references("locations.id"))
        .addColumn("manager_id", kit.id, (c) => c.references("users.id"))
        .addColumn("phone", "text")
        .addColumn("fax", "text")
        .addColumn("notes", "text")
        .addColumn("image", "text"),
      kit,
    ).execute();
    // Unique per company; a department without a company is in the "no company" scope.
    await uniqueUndeleted(db, "departments", ["name"], ["company_id"]);
  },
};
