import { type AnyKysely, addIdColumn, dialectOf, idType, type NamedMigration } from "@anvil/core";
import { type SqlBool, sql } from "kysely";

// Organizations are account rows of type 1 (0001); these tables hold who belongs to them and how.

export const organizations: NamedMigration = {
  name: "0002_organizations",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const id = idType(dialect);
    await addIdColumn(db.schema.createTable("org_user"), dialect)
      .addColumn("org_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("account_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("is_public", "boolean", (c) => c.notNull().defaultTo(false))
      .addUniqueConstraint("org_user_org_account", ["org_id", "account_id"])
      .execute();
    await db.schema.createIndex("org_user_account").on("org_user").column("account_id").execute();

    await addIdColumn(db.schema.createTable("team"), dialect)
      .addColumn("org_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("lower_name", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("authorize", "text", (c) => c.notNull())
      .addColumn("includes_all_repositories", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("can_create_org_repo", "boolean", (c) => c.notNull().defaultTo(false))
      .addUniqueConstraint("team_org_name", ["org_id", "lower_name"])
      .execute();
    // Ownership of an organization is membership of this one team, so there is exactly one.
    await db.schema
      .createIndex("team_org_owners")
      .on("team")
      .column("org_id")
      .unique()
      .where(sql<SqlBool>`authorize = 'owner'`)
      .execute();

    await addIdColumn(db.schema.createTable("team_unit"), dialect)
      .addColumn("team_id", id, (c) => c.notNull().references("team.id").onDelete("cascade"))
      .addColumn("unit", "text", (c) => c.notNull())
      .addColumn("access_mode", "text", (c) => c.notNull())
      .addUniqueConstraint("team_unit_team_unit", ["team_id", "unit"])
      .execute();

    await addIdColumn(db.schema.createTable("team_user"), dialect)
      .addColumn("team_id", id, (c) => c.notNull().references("team.id").onDelete("cascade"))
      .addColumn("account_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addUniqueConstraint("team_user_team_account", ["team_id", "account_id"])
      .execute();
    await db.schema.createIndex("team_user_account").on("team_user").column("account_id").execute();
  },
};
