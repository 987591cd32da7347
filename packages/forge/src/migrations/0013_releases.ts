import {
  type AnyKysely,
  addIdColumn,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";

/** Releases of a repository's tags, and the files attached to them. */
export const releases: NamedMigration = {
  name: "0013_releases",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    const id = idType(dialect);
    // Published releases, as release_counter shows them; kept in the transaction of each change.
    await db.schema
      .alterTable("repository")
      .addColumn("num_releases", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await addIdColumn(db.schema.createTable("release"), dialect)
      .addColumn("repo_id", id, (c) => c.notNull().references("repository.id").onDelete("cascade"))
      // A release outlives its publisher's account, shown then as Gitea's ghost user.
      .addColumn("publisher_id", id, (c) => c.references("account.id").onDelete("set null"))
      .addColumn("tag_name", "text", (c) => c.notNull())
      .addColumn("lower_tag_name", "text", (c) => c.notNull())
      // target_commitish as given (a branch, tag or commit id).
      .addColumn("target", "text", (c) => c.notNull())
      .addColumn("title", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("note", "text", (c) => c.notNull().defaultTo(""))
      // The commit the tag pointed at when the release was published ("" for a draft without a tag).
      .addColumn("sha1", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("is_draft", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("is_prerelease", "boolean", (c) => c.notNull().defaultTo(false))
      // Publication time: a draft's is set again when it is published, as in Gitea.
      .addColumn("created_at", time, (c) => c.notNull())
      // One release per tag, claimed by this constraint; git tag names are case-sensitive.
      .addUniqueConstraint("release_repo_tag", ["repo_id", "tag_name"])
      .execute();
    await db.schema
      .createIndex("release_repo_created")
      .on("release")
      .columns(["repo_id", "created_at"])
      .execute();
    await addIdColumn(db.schema.createTable("attachment"), dialect)
      // The file's name on disk; the client's name is only shown.
      .addColumn("uuid", "text", (c) => c.notNull().unique())
      .addColumn("repo_id", id, (c) => c.notNull().references("repository.id").onDelete("cascade"))
      .addColumn("release_id", id, (c) => c.references("release.id").onDelete("cascade"))
      .addColumn("uploader_id", id, (c) => c.references("account.id").onDelete("set null"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("size", id, (c) => c.notNull())
      .addColumn("download_count", id, (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", time, (c) => c.notNull())
      .execute();
    await db.schema.createIndex("attachment_release").on("attachment").column("release_id").execute();
    await db.schema.createIndex("attachment_repo").on("attachment").column("repo_id").execute();
  },
};
