import { type Migration, Migrator } from "kysely/migration";
import type { AnyKysely } from "./database.ts";

export interface NamedMigration extends Migration {
  /** `NNNN_name`; applied in list order, each once. */
  readonly name: string;
}

export interface MigrationReport {
  applied: string[];
}

/**
 * Applies a package's static list of migrations. Each package keeps its own history table
 * (`<owner>_migrations`), so services stay independent while sharing one database.
 */
export async function migrate(
  db: AnyKysely,
  owner: string,
  migrations: readonly NamedMigration[],
): Promise<MigrationReport> {
  if (!/^[a-z][a-z0-9_]*$/.test(owner)) throw new Error(`invalid migration owner "${owner}"`);
  const record: Record<string, Migration> = {};
  for (const migration of migrations) {
    if (record[migration.name] !== undefined)
      throw new Error(`duplicate migration "${migration.name}" in ${owner}`);
    record[migration.name] = migration;
  }
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => record },
    migrationTableName: `${owner}_migrations`,
    migrationLockTableName: `${owner}_migrations_lock`,
    // Names carry a zero-padded number, so alphabetical order is the list order.
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === "Error");
    const where = failed ? ` (${owner} migration ${failed.migrationName})` : ` (${owner})`;
    throw new Error(`migration failed${where}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return { applied: (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName) };
}
