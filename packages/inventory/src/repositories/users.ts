import type { DialectName } from "@anvil/core";
import { type Insertable, sql } from "kysely";
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

/** The undeleted users with this e-mail address (case-insensitive); at most two are read. */
export function undeletedUsersByEmail(db: Executor, email: string): Promise<UserRow[]> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("deleted_at", "is", null)
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", email.toLowerCase()))
    .limit(2)
    .execute();
}

/** Whether any user row exists, deleted or not: the first-run setup is over once one does. */
export async function anyUser(db: Executor): Promise<boolean> {
  const row = await db.selectFrom("users").select("id").limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Holds other writers of users off until the transaction ends, on PostgreSQL (SQLite's
 * transactions hold the write lock already): two first-run setups cannot both find no user.
 */
export async function lockUsers(trx: Executor, dialect: DialectName): Promise<void> {
  if (dialect === "postgres") await sql`lock table users in share row exclusive mode`.execute(trx);
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
