import {
  type AnyKysely,
  addIdColumn,
  createOutboxTable,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";

/**
 * Webhooks of a repository (repo_id), of a user or an organization (owner_id), or of the site
 * (neither: a system hook, which hears every repository, or a default one, copied to new
 * repositories); and core's outbox, which holds their deliveries.
 */
export const webhooks: NamedMigration = {
  name: "0010_webhooks",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    const id = idType(dialect);
    await addIdColumn(db.schema.createTable("webhook"), dialect)
      .addColumn("repo_id", id, (c) => c.references("repository.id").onDelete("cascade"))
      .addColumn("owner_id", id, (c) => c.references("account.id").onDelete("cascade"))
      .addColumn("is_system", "boolean", (c) => c.notNull().defaultTo(false))
      // gitea, gogs, slack, discord… (Gitea's HookType): decides the payload's shape.
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("url", "text", (c) => c.notNull())
      // json or form.
      .addColumn("content_type", "text", (c) => c.notNull())
      .addColumn("http_method", "text", (c) => c.notNull())
      // Keys the signatures; sent nowhere, returned by no answer.
      .addColumn("secret", "text", (c) => c.notNull().defaultTo(""))
      // The type's own settings (slack's channel, username, icon_url, color), as JSON.
      .addColumn("meta", "text", (c) => c.notNull().defaultTo("{}"))
      // The subscribed event names (Gitea's HookEvents that are true), as a JSON array.
      .addColumn("events", "text", (c) => c.notNull())
      .addColumn("branch_filter", "text", (c) => c.notNull().defaultTo(""))
      // Sent as the Authorization header of every delivery; returned by no answer.
      .addColumn("authorization_header", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("active", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .execute();
    await db.schema.createIndex("webhook_repo").on("webhook").column("repo_id").execute();
    await db.schema.createIndex("webhook_owner").on("webhook").column("owner_id").execute();
    await createOutboxTable(db);
  },
};
