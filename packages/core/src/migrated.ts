import { connectDatabase, type Database } from "./db/database.ts";
import { migrate, type NamedMigration } from "./db/migrator.ts";

/**
 * Opens a service's database for a command that runs beside (or without) the server, migrated to
 * the current schema; closed again when migrating fails.
 */
export async function openMigratedDatabase<Tables>(
  url: string,
  owner: string,
  migrations: readonly NamedMigration[],
): Promise<Database<Tables>> {
  const database = await connectDatabase<Tables>(url);
  try {
    await migrate(database.db, owner, migrations);
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}
