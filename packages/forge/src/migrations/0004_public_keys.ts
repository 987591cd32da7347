import {
  type AnyKysely,
  addIdColumn,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";

export const publicKeys: NamedMigration = {
  name: "0004_public_keys",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    await addIdColumn(db.schema.createTable("public_key"), dialect)
      .addColumn("account_id", idType(dialect), (c) =>
        c.notNull().references("account.id").onDelete("cascade"),
      )
      .addColumn("title", "text", (c) => c.notNull())
      // `<type> <base64>`: one key belongs to one account, as SSH logins find the account by it.
      .addColumn("content", "text", (c) => c.notNull().unique())
      .addColumn("fingerprint", "text", (c) => c.notNull())
      .addColumn("key_type", "text", (c) => c.notNull())
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("last_used_at", time)
      .addUniqueConstraint("public_key_account_title", ["account_id", "title"])
      .execute();
  },
};
