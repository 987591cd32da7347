import type { Insertable } from "kysely";
import type { UserTable } from "../schemas/tables.ts";
import type { Executor } from "../services/database.ts";
import type { UserRow } from "../services/permissions.ts";

// Users' own rows (Snipe-IT's users): made, found and changed by the account services.

export function insertUser(db: Executor, values: Insertable<UserTable>): Promise<UserRow> {
  return db.insertInto("users").values(values).returningAll().executeTakeFirstOrThrow();
}

/** The undeleted user with this id or this username. */
export function undeletedUser(
  db: Executor,
  key: { id: number } | { username: string },
): Promise<UserRow | undefined> {
  const found = db.selectFrom("users").selectAll().where("deleted_at", "is", null);
  return (
    "id" in key ? found.where("id", "=", key.id) : found.where("username", "=", key.username)
  ).executeTakeFirst();
}

/** Stores the new password hash, unless the stored one is no longer `previous` (changed meanwhile). */
export async function replacePasswordHash(db: Executor, id: number, previous: string, next: string) {
  await db
    .updateTable("users")
    .set({ password: next })
    .where("id", "=", id)
    .where("password", "=", previous)
    .execute();
}

/** Forgets the user's enrolled two-factor device. */
export async function forgetTwoFactor(db: Executor, id: number) {
  await db.updateTable("users").set({ two_factor_enrolled: false }).where("id", "=", id).execute();
}
