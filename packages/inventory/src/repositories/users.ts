import type { Insertable } from "kysely";
import type { UserTable } from "../schemas/tables.ts";
import type { Executor } from "../services/database.ts";
import type { UserRow } from "../services/permissions.ts";

// Users' own rows (Snipe-IT's users): made, found and changed by the account services.

export function insertUser(db: Executor, values: Insertable<UserTable>): Promise<UserRow> {
  return db.insertInto("users").values(values).returningAll().executeTakeFirstOrThrow();
}

/** The undeleted user with this username. */
export function userNamed(db: Executor, username: string): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("username", "=", username)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

/** The undeleted user with this id. */
export function undeletedUser(db: Executor, id: number): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
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
