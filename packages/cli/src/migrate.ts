import { connectDatabase, migrate } from "@anvil/core";
import { migrations as forgeMigrations } from "@anvil/forge/migrations";
import { migrations as inventoryMigrations } from "@anvil/inventory/migrations";

/** Applies one service's pending migrations; returns the names applied. */
export async function migrateService(service: "forge" | "inventory", url: string): Promise<string[]> {
  const database = await connectDatabase(url);
  try {
    const report = await migrate(
      database.db,
      service,
      service === "forge" ? forgeMigrations : inventoryMigrations,
    );
    return report.applied;
  } finally {
    await database.close();
  }
}
