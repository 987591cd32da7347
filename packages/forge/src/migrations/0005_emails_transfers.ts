import {
  type AnyKysely,
  addIdColumn,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";

export const emailsTransfers: NamedMigration = {
  name: "0005_emails_transfers",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    // A user's addresses besides the account's own (the primary one, kept on the account row).
    await addIdColumn(db.schema.createTable("email_address"), dialect)
      .addColumn("account_id", idType(dialect), (c) =>
        c.notNull().references("account.id").onDelete("cascade"),
      )
      .addColumn("email", "text", (c) => c.notNull())
      .addColumn("lower_email", "text", (c) => c.notNull().unique())
      .addColumn("is_activated", "boolean", (c) => c.notNull().defaultTo(true))
      .addColumn("created_at", time, (c) => c.notNull())
      .execute();
    // A transfer waiting for its recipient; a repository has at most one (the unique claim).
    await addIdColumn(db.schema.createTable("repo_transfer"), dialect)
      .addColumn("repo_id", idType(dialect), (c) =>
        c.notNull().unique().references("repository.id").onDelete("cascade"),
      )
      .addColumn("doer_id", idType(dialect), (c) => c.notNull().references("account.id").onDelete("cascade"))
      .addColumn("recipient_id", idType(dialect), (c) =>
        c.notNull().references("account.id").onDelete("cascade"),
      )
      // The recipient organization's teams to give the repository, comma-separated ids.
      .addColumn("team_ids", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("created_at", time, (c) => c.notNull())
      .execute();
  },
};
