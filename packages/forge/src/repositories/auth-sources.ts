import { countRows } from "@anvil/core";
import type { Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { AuthSourceTable, ForgeTables } from "../schemas/tables.ts";

export type AuthSourceRow = Selectable<AuthSourceTable>;

export function insertAuthSource(
  db: Kysely<ForgeTables>,
  row: Insertable<AuthSourceTable>,
): Promise<AuthSourceRow> {
  return db.insertInto("auth_source").values(row).returningAll().executeTakeFirstOrThrow();
}

export function findAuthSource(db: Kysely<ForgeTables>, id: number): Promise<AuthSourceRow | undefined> {
  return db.selectFrom("auth_source").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findAuthSourceByName(
  db: Kysely<ForgeTables>,
  name: string,
): Promise<AuthSourceRow | undefined> {
  return db.selectFrom("auth_source").selectAll().where("name", "=", name).executeTakeFirst();
}

export async function listAuthSources(
  db: Kysely<ForgeTables>,
  window: { offset: number; limit: number },
): Promise<{ rows: AuthSourceRow[]; total: number }> {
  const all = db.selectFrom("auth_source").selectAll();
  const [rows, total] = await Promise.all([
    all.orderBy("id").limit(window.limit).offset(window.offset).execute(),
    countRows(db, all),
  ]);
  return { rows, total };
}

/** Active sources, in the order a first sign-in tries them. */
export function activeAuthSources(db: Kysely<ForgeTables>): Promise<AuthSourceRow[]> {
  return db.selectFrom("auth_source").selectAll().where("is_active", "=", true).orderBy("id").execute();
}

export function updateAuthSource(
  db: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<AuthSourceTable>,
): Promise<AuthSourceRow | undefined> {
  return db.updateTable("auth_source").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
}

/**
 * Deletes the source unless an account still belongs to it, in one statement, so a user created
 * under it meanwhile is never left without its source. `deleted` false: no such source.
 */
export async function deleteUnusedAuthSource(
  db: Kysely<ForgeTables>,
  id: number,
): Promise<{ deleted: boolean; inUse: boolean }> {
  const result = await db
    .deleteFrom("auth_source")
    .where("id", "=", id)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("account").select("account.id").where("account.source_id", "=", id))),
    )
    .executeTakeFirst();
  if (Number(result.numDeletedRows) > 0) return { deleted: true, inUse: false };
  return { deleted: false, inUse: (await findAuthSource(db, id)) !== undefined };
}

/**
 * Claims the periodic sync of a source for this process: true when nobody ran it since `before`.
 * One conditional update, so of several processes only one wins each period.
 */
export async function claimAuthSourceSync(
  db: Kysely<ForgeTables>,
  id: number,
  now: string | Date,
  before: string | Date,
): Promise<boolean> {
  const result = await db
    .updateTable("auth_source")
    .set({ synced_at: now })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("synced_at", "is", null), eb("synced_at", "<", before)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Sets when the source was last synced: now for a sync run by hand, so the periodic one waits a
 * whole period after it, or back to what it was when a claimed sync failed.
 */
export async function noteAuthSourceSync(
  db: Kysely<ForgeTables>,
  id: number,
  when: string | Date | null,
): Promise<void> {
  await db.updateTable("auth_source").set({ synced_at: when }).where("id", "=", id).execute();
}

/** Accounts of a source, for a sync to compare with the directory. */
export function accountsOfSource(db: Kysely<ForgeTables>, sourceId: number) {
  return db
    .selectFrom("account")
    .select(["id", "name", "lower_name", "login_name", "is_active"])
    .where("source_id", "=", sourceId)
    .execute();
}
