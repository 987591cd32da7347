import {
  type AnyKysely,
  addEncryptionKey,
  addIdColumn,
  createEncryptionKeyTable,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";

/**
 * Authentication sources (Gitea's login_source): directories whose users sign in with the
 * directory's password. An account's source_id names its source (0: a local password). SSH keys
 * copied from a directory say which source they came from, so a sync replaces only those.
 */
export const authSources: NamedMigration = {
  name: "0016_auth_sources",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    await addIdColumn(db.schema.createTable("auth_source"), dialect)
      // Gitea's numbers: 2 LDAP (via bind DN), 5 LDAP (simple auth).
      .addColumn("type", "integer", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull().unique())
      .addColumn("is_active", "boolean", (c) => c.notNull().defaultTo(true))
      .addColumn("is_sync_enabled", "boolean", (c) => c.notNull().defaultTo(false))
      // The type's settings as JSON; the bind password in it encrypted with the key below.
      .addColumn("config", "text", (c) => c.notNull())
      // When a process last claimed the periodic sync, so one process runs it per period.
      .addColumn("synced_at", time)
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .execute();
    await db.schema
      .alterTable("public_key")
      .addColumn("source_id", idType(dialect), (c) => c.references("auth_source.id").onDelete("set null"))
      .execute();
    await createEncryptionKeyTable(db);
    await addEncryptionKey(db, "auth_sources");
  },
};
