import { type AnyKysely, dialectOf, idType, type NamedMigration } from "@anvil/core";

/** Forks: which repository a repository was forked from, and how many forks a repository has. */
export const forks: NamedMigration = {
  name: "0014_forks",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    await db.schema
      .alterTable("repository")
      .addColumn("is_fork", "boolean", (c) => c.notNull().defaultTo(false))
      .execute();
    // A fork outlives its parent: the link is cleared (is_fork stays), so `parent` becomes null.
    await db.schema
      .alterTable("repository")
      .addColumn("fork_id", idType(dialect), (c) => c.references("repository.id").onDelete("set null"))
      .execute();
    await db.schema
      .alterTable("repository")
      .addColumn("num_forks", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    // One fork of a repository per owner, claimed by this constraint (NULLs, no parent, never clash).
    await db.schema
      .createIndex("repository_owner_fork")
      .unique()
      .on("repository")
      .columns(["owner_id", "fork_id"])
      .execute();
    await db.schema.createIndex("repository_fork").on("repository").column("fork_id").execute();
  },
};
