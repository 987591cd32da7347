import {
  type AnyKysely,
  addIdColumn,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";

/** Issues (and the numbers pull requests share with them), labels, milestones, comments, reactions. */
export const issues: NamedMigration = {
  name: "0008_issues",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    const id = idType(dialect);
    // Counters kept in the transaction that changes an issue, so no list has to count.
    // `last_issue_index` allocates issue and pull numbers: an UPDATE … RETURNING of the row.
    for (const column of [
      "last_issue_index",
      "num_issues",
      "num_closed_issues",
      "num_pulls",
      "num_closed_pulls",
      // Moves on every change of the repository's issues: what page boundaries of its lists are kept under.
      "issue_version",
    ])
      await db.schema
        .alterTable("repository")
        .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
        .execute();

    // A label of a repository (repo_id) or of an organization (org_id), usable on its repositories.
    await addIdColumn(db.schema.createTable("label"), dialect)
      .addColumn("repo_id", id, (c) => c.references("repository.id").onDelete("cascade"))
      .addColumn("org_id", id, (c) => c.references("account.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("exclusive", "boolean", (c) => c.notNull().defaultTo(false))
      // Six lowercase hex digits, without '#'.
      .addColumn("color", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("archived_at", time)
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .execute();
    await db.schema.createIndex("label_repo").on("label").column("repo_id").execute();
    await db.schema.createIndex("label_org").on("label").column("org_id").execute();

    await addIdColumn(db.schema.createTable("milestone"), dialect)
      .addColumn("repo_id", id, (c) => c.notNull().references("repository.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("is_closed", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("num_issues", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("num_closed_issues", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("due_on", time)
      .addColumn("closed_at", time)
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .execute();
    await db.schema.createIndex("milestone_repo_name").on("milestone").columns(["repo_id", "name"]).execute();

    // An issue or a pull request: both draw their number from the repository's one counter.
    await addIdColumn(db.schema.createTable("issue"), dialect)
      .addColumn("repo_id", id, (c) => c.notNull().references("repository.id").onDelete("cascade"))
      .addColumn("number", "integer", (c) => c.notNull())
      .addColumn("poster_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("ref", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("is_pull", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("is_closed", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("is_locked", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("milestone_id", id, (c) => c.references("milestone.id").onDelete("set null"))
      // 0 when not pinned; otherwise the position among the repository's pinned issues.
      .addColumn("pin_order", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("num_comments", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("deadline", time)
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .addColumn("closed_at", time)
      // The number is claimed by this constraint as well as by the counter.
      .addUniqueConstraint("issue_repo_number", ["repo_id", "number"])
      .execute();
    // Lists filter on repository, state and kind, newest first (Gitea's default order).
    await db.schema
      .createIndex("issue_repo_state_created")
      .on("issue")
      .columns(["repo_id", "is_closed", "is_pull", "created_at"])
      .execute();
    // The API's default list (one state, both kinds) and state=all, newest first: their pages are
    // read from these indexes alone, however deep.
    await db.schema
      .createIndex("issue_repo_closed_created")
      .on("issue")
      .columns(["repo_id", "is_closed", "created_at", "id"])
      .execute();
    await db.schema
      .createIndex("issue_repo_created")
      .on("issue")
      .columns(["repo_id", "created_at", "id"])
      .execute();
    await db.schema.createIndex("issue_poster").on("issue").column("poster_id").execute();
    await db.schema.createIndex("issue_milestone").on("issue").column("milestone_id").execute();

    await db.schema
      .createTable("issue_label")
      .addColumn("issue_id", id, (c) => c.notNull().references("issue.id").onDelete("cascade"))
      .addColumn("label_id", id, (c) => c.notNull().references("label.id").onDelete("cascade"))
      .addPrimaryKeyConstraint("issue_label_pk", ["issue_id", "label_id"])
      .execute();
    await db.schema
      .createIndex("issue_label_label")
      .on("issue_label")
      .columns(["label_id", "issue_id"])
      .execute();

    await db.schema
      .createTable("issue_assignee")
      .addColumn("issue_id", id, (c) => c.notNull().references("issue.id").onDelete("cascade"))
      .addColumn("account_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addPrimaryKeyConstraint("issue_assignee_pk", ["issue_id", "account_id"])
      .execute();
    await db.schema
      .createIndex("issue_assignee_account")
      .on("issue_assignee")
      .columns(["account_id", "issue_id"])
      .execute();

    // Who follows an issue (or chose not to): Gitea's issue_watch.
    await db.schema
      .createTable("issue_watch")
      .addColumn("issue_id", id, (c) => c.notNull().references("issue.id").onDelete("cascade"))
      .addColumn("account_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("is_watching", "boolean", (c) => c.notNull())
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .addPrimaryKeyConstraint("issue_watch_pk", ["issue_id", "account_id"])
      .execute();

    // A comment, or a timeline event (type > 0, Gitea's CommentType numbers) on an issue.
    await addIdColumn(db.schema.createTable("comment"), dialect)
      .addColumn("issue_id", id, (c) => c.notNull().references("issue.id").onDelete("cascade"))
      .addColumn("repo_id", id, (c) => c.notNull().references("repository.id").onDelete("cascade"))
      .addColumn("poster_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("type", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("body", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("label_id", id, (c) => c.references("label.id").onDelete("cascade"))
      .addColumn("milestone_id", id)
      .addColumn("old_milestone_id", id)
      .addColumn("assignee_id", id, (c) => c.references("account.id").onDelete("cascade"))
      .addColumn("removed_assignee", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("old_title", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("new_title", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .execute();
    await db.schema.createIndex("comment_issue").on("comment").columns(["issue_id", "created_at"]).execute();
    await db.schema.createIndex("comment_repo").on("comment").columns(["repo_id", "created_at"]).execute();

    // A reaction on an issue (comment_id 0) or on one of its comments.
    await addIdColumn(db.schema.createTable("reaction"), dialect)
      .addColumn("issue_id", id, (c) => c.notNull().references("issue.id").onDelete("cascade"))
      .addColumn("comment_id", id, (c) => c.notNull().defaultTo(0))
      .addColumn("account_id", id, (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("content", "text", (c) => c.notNull())
      .addColumn("created_at", time, (c) => c.notNull())
      .addUniqueConstraint("reaction_once", ["issue_id", "comment_id", "account_id", "content"])
      .execute();
  },
};
