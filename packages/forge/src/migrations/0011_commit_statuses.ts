import {
  type AnyKysely,
  addIdColumn,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";

/** Commit statuses (CI results a client reports on a commit) and their numbering per commit. */
export const commitStatuses: NamedMigration = {
  name: "0011_commit_statuses",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    const id = idType(dialect);
    await addIdColumn(db.schema.createTable("commit_status"), dialect)
      .addColumn("repo_id", id, (c) => c.notNull().references("repository.id").onDelete("cascade"))
      // Numbers the statuses of one commit from 1, as Gitea's `index`: the API's `id`.
      .addColumn("index", "integer", (c) => c.notNull())
      .addColumn("sha", "text", (c) => c.notNull())
      // pending, success, error, failure, warning or skipped.
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("target_url", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("context", "text", (c) => c.notNull().defaultTo(""))
      // The statuses of one context are grouped by this SHA-1 of it, which an index can hold
      // whatever the context's length.
      .addColumn("context_hash", "text", (c) => c.notNull())
      .addColumn("creator_id", id, (c) => c.references("account.id").onDelete("set null"))
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("commit_status_repo_sha_index")
      .on("commit_status")
      .columns(["repo_id", "sha", "index"])
      .unique()
      .execute();
    await db.schema
      .createIndex("commit_status_context")
      .on("commit_status")
      .columns(["repo_id", "sha", "context_hash"])
      .execute();
    // The last index given to a commit's statuses: an upsert that returns the next one, so two
    // statuses posted at once never share a number.
    await db.schema
      .createTable("commit_status_index")
      .addColumn("repo_id", id, (c) => c.notNull().references("repository.id").onDelete("cascade"))
      .addColumn("sha", "text", (c) => c.notNull())
      .addColumn("max_index", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("commit_status_index_pk", ["repo_id", "sha"])
      .execute();
  },
};
