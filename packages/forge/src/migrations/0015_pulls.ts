import {
  type AnyKysely,
  addIdColumn,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";

/**
 * Pull requests (the pull side of an `issue` row whose is_pull is set), their reviews (review
 * requests among them, as Gitea keeps them) and the code comments of reviews.
 */
export const pulls: NamedMigration = {
  name: "0015_pulls",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    const id = idType(dialect);
    await addIdColumn(db.schema.createTable("pull_request"), dialect)
      .addColumn("issue_id", id, (c) => c.notNull().unique().references("issue.id").onDelete("cascade"))
      .addColumn("base_repo_id", id, (c) => c.notNull().references("repository.id").onDelete("cascade"))
      // Null once the head repository (a fork) is deleted; the pull keeps refs/pull/N/head.
      .addColumn("head_repo_id", id, (c) => c.references("repository.id").onDelete("set null"))
      .addColumn("head_branch", "text", (c) => c.notNull())
      .addColumn("base_branch", "text", (c) => c.notNull())
      .addColumn("merge_base", "text", (c) => c.notNull().defaultTo(""))
      // The head commit as refs/pull/N/head of the base repository holds it.
      .addColumn("head_commit_id", "text", (c) => c.notNull().defaultTo(""))
      // checking, mergeable, conflict, empty, error or manually_merged (Gitea's PullRequestStatus).
      .addColumn("status", "text", (c) => c.notNull().defaultTo("checking"))
      .addColumn("conflicted_files", "text", (c) => c.notNull().defaultTo("[]"))
      // Moves each time the pull is marked for a check: a check writes its result only if it
      // still holds the version it started from, so a result older than a push is never kept.
      .addColumn("check_version", "integer", (c) => c.notNull().defaultTo(0))
      // Who last pushed to a branch of the pull: the sender of its `synchronized` webhook.
      .addColumn("pusher_id", id, (c) => c.references("account.id").onDelete("set null"))
      .addColumn("has_merged", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("merged_by_id", id, (c) => c.references("account.id").onDelete("set null"))
      .addColumn("merged_at", time)
      .addColumn("merge_commit_sha", "text")
      .addColumn("allow_maintainer_edit", "boolean", (c) => c.notNull().defaultTo(false))
      .execute();
    await db.schema
      .createIndex("pull_request_base")
      .on("pull_request")
      .columns(["base_repo_id", "base_branch"])
      .execute();
    await db.schema
      .createIndex("pull_request_head")
      .on("pull_request")
      .columns(["head_repo_id", "head_branch"])
      .execute();
    await db.schema.createIndex("pull_request_status").on("pull_request").column("status").execute();

    // Gitea's ReviewType numbers: 0 pending, 1 approve, 2 comment, 3 reject, 4 request.
    await addIdColumn(db.schema.createTable("review"), dialect)
      .addColumn("issue_id", id, (c) => c.notNull().references("issue.id").onDelete("cascade"))
      .addColumn("reviewer_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("type", "integer", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("commit_id", "text", (c) => c.notNull().defaultTo(""))
      // Given by someone whose approval counts (a writer, or one the protection allows).
      .addColumn("official", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("stale", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("dismissed", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .execute();
    await db.schema.createIndex("review_issue").on("review").columns(["issue_id", "reviewer_id"]).execute();

    await addIdColumn(db.schema.createTable("review_comment"), dialect)
      .addColumn("review_id", id, (c) => c.notNull().references("review.id").onDelete("cascade"))
      .addColumn("issue_id", id, (c) => c.notNull().references("issue.id").onDelete("cascade"))
      .addColumn("poster_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("path", "text", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull())
      // Gitea's line: positive on the new side, negative on the old one.
      .addColumn("line", "integer", (c) => c.notNull())
      .addColumn("commit_id", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .execute();
    await db.schema.createIndex("review_comment_review").on("review_comment").column("review_id").execute();
  },
};
