import type { Selectable, Updateable } from "kysely";
import type { SettingsTable } from "../schemas/tables.ts";
import type { Executor } from "../services/database.ts";

export type SettingsRow = Selectable<SettingsTable>;

/** The one settings row (the migration makes it). */
export function readSettings(db: Executor): Promise<SettingsRow> {
  return db.selectFrom("settings").selectAll().orderBy("id").limit(1).executeTakeFirstOrThrow();
}

export async function writeSettings(db: Executor, id: number, changes: Updateable<SettingsTable>) {
  return db
    .updateTable("settings")
    .set(changes)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
