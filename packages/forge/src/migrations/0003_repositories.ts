import {
  type AnyKysely,
  addIdColumn,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";

export const repositories: NamedMigration = {
  name: "0003_repositories",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    await addIdColumn(db.schema.createTable("repository"), dialect)
      .addColumn("owner_id", idType(dialect), (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("lower_name", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("website", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("default_branch", "text", (c) => c.notNull())
      // Kept by the forge (auto-init, pushes through its transports) so lists need not ask git.
      .addColumn("is_empty", "boolean", (c) => c.notNull().defaultTo(true))
      .addColumn("is_private", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("is_archived", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("is_template", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      // A name is claimed by this constraint, never by a look-up first.
      .addUniqueConstraint("repository_owner_name", ["owner_id", "lower_name"])
      .execute();
    await db.schema
      .createTable("collaboration")
      .addColumn("repo_id", idType(dialect), (c) =>
        c.notNull().references("repository.id").onDelete("cascade"),
      )
      .addColumn("account_id", idType(dialect), (c) =>
        c.notNull().references("account.id").onDelete("cascade"),
      )
      .addColumn("mode", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("collaboration_pk", ["repo_id", "account_id"])
      .execute();
    // Search and lists filter on visibility and order by name (measured: 700 -> 180 µs a page).
    await db.schema
      .createIndex("repository_visibility_name")
      .on("repository")
      .columns(["is_private", "lower_name"])
      .execute();
    // An owner's list filters on owner and visibility; without this index SQLite, lacking
    // statistics, walks the visibility index instead (measured: 1.2 ms -> 30 µs a page).
    await db.schema
      .createIndex("repository_owner_visibility_name")
      .on("repository")
      .columns(["owner_id", "is_private", "lower_name"])
      .execute();
    // The repositories a team reaches besides those of a team that includes them all.
    await db.schema
      .createTable("team_repo")
      .addColumn("team_id", idType(dialect), (c) => c.notNull().references("team.id").onDelete("cascade"))
      .addColumn("repo_id", idType(dialect), (c) =>
        c.notNull().references("repository.id").onDelete("cascade"),
      )
      .addPrimaryKeyConstraint("team_repo_pk", ["team_id", "repo_id"])
      .execute();
    await db.schema
      .createTable("repo_topic")
      .addColumn("repo_id", idType(dialect), (c) =>
        c.notNull().references("repository.id").onDelete("cascade"),
      )
      .addColumn("name", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("repo_topic_pk", ["repo_id", "name"])
      .execute();
  },
};
