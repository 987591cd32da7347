import { countRows } from "@anvil/core";
import type { Insertable, Kysely, Selectable } from "kysely";
import type { ForgeTables, PublicKeyTable } from "../schemas/tables.ts";

export type PublicKeyRow = Selectable<PublicKeyTable>;

export function insertKey(db: Kysely<ForgeTables>, key: Insertable<PublicKeyTable>): Promise<PublicKeyRow> {
  return db.insertInto("public_key").values(key).returningAll().executeTakeFirstOrThrow();
}

export function findKey(
  db: Kysely<ForgeTables>,
  accountId: number,
  id: number,
): Promise<PublicKeyRow | undefined> {
  return db
    .selectFrom("public_key")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export function findKeyByContent(
  db: Kysely<ForgeTables>,
  content: string,
): Promise<PublicKeyRow | undefined> {
  return db.selectFrom("public_key").selectAll().where("content", "=", content).executeTakeFirst();
}

export async function listKeys(
  db: Kysely<ForgeTables>,
  accountId: number,
  window: { offset: number; limit: number },
): Promise<{ rows: PublicKeyRow[]; total: number }> {
  const selection = db.selectFrom("public_key").selectAll().where("account_id", "=", accountId);
  const [rows, total] = await Promise.all([
    selection.orderBy("id").limit(window.limit).offset(window.offset).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

export async function deleteKey(db: Kysely<ForgeTables>, accountId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom("public_key")
    .where("account_id", "=", accountId)
    .where("id", "=", id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function touchKey(db: Kysely<ForgeTables>, id: number, when: string | Date): Promise<void> {
  await db.updateTable("public_key").set({ last_used_at: when }).where("id", "=", id).execute();
}

/** The keys of an account that a sync copied from an authentication source. */
export function listSourceKeys(
  db: Kysely<ForgeTables>,
  accountId: number,
  sourceId: number,
): Promise<PublicKeyRow[]> {
  return db
    .selectFrom("public_key")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("source_id", "=", sourceId)
    .execute();
}

export async function deleteKeysByIds(db: Kysely<ForgeTables>, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await db.deleteFrom("public_key").where("id", "in", ids).execute();
}
