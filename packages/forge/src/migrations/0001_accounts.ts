import {
  type AnyKysely,
  addIdColumn,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";
import { type SqlBool, sql } from "kysely";

export const accounts: NamedMigration = {
  name: "0001_accounts",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    await addIdColumn(db.schema.createTable("account"), dialect)
      .addColumn("type", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("lower_name", "text", (c) => c.notNull().unique())
      .addColumn("full_name", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("email", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("lower_email", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("password_hash", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("login_name", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("source_id", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("is_admin", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("is_active", "boolean", (c) => c.notNull().defaultTo(true))
      .addColumn("prohibit_login", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("restricted", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("must_change_password", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("visibility", "text", (c) => c.notNull().defaultTo("public"))
      .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("website", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("location", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("max_repo_creation", "integer", (c) => c.notNull().defaultTo(-1))
      .addColumn("allow_create_organization", "boolean", (c) => c.notNull().defaultTo(true))
      .addColumn("repo_admin_change_team_access", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .addColumn("last_login_at", time)
      .execute();
    // Users' e-mail addresses are unique; organizations may leave theirs empty.
    await db.schema
      .createIndex("account_user_email")
      .on("account")
      .column("lower_email")
      .unique()
      .where(sql<SqlBool>`type = 0 and lower_email <> ''`)
      .execute();

    await addIdColumn(db.schema.createTable("access_token"), dialect)
      .addColumn("account_id", idType(dialect), (c) =>
        c.notNull().references("account.id").onDelete("cascade"),
      )
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("lower_name", "text", (c) => c.notNull())
      .addColumn("token_hash", "text", (c) => c.notNull().unique())
      .addColumn("token_last_eight", "text", (c) => c.notNull())
      .addColumn("scopes", "text", (c) => c.notNull())
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .addColumn("last_used_at", time)
      .addUniqueConstraint("access_token_account_name", ["account_id", "lower_name"])
      .execute();
  },
};
