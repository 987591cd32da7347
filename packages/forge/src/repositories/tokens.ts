import { countRows, prepared, sideColumn } from "@anvil/core";
import type { Insertable, Kysely, Selectable } from "kysely";
import type { AccessTokenTable, ForgeTables } from "../schemas/tables.ts";

export type AccessTokenRow = Selectable<AccessTokenTable>;

export async function insertToken(
  db: Kysely<ForgeTables>,
  token: Insertable<AccessTokenTable>,
): Promise<AccessTokenRow> {
  return db.insertInto("access_token").values(token).returningAll().executeTakeFirstOrThrow();
}

const tokenByHash = prepared((db: Kysely<ForgeTables>, hash: string) =>
  db.selectFrom("access_token").selectAll().where("token_hash", "=", hash),
);

export async function findTokenByHash(
  db: Kysely<ForgeTables>,
  hash: string,
): Promise<AccessTokenRow | undefined> {
  return (await tokenByHash(db, hash))[0];
}

export async function listTokens(
  db: Kysely<ForgeTables>,
  accountId: number,
  window: { offset: number; limit: number },
): Promise<{ rows: AccessTokenRow[]; total: number }> {
  const mine = db.selectFrom("access_token").selectAll().where("account_id", "=", accountId);
  const [rows, total] = await Promise.all([
    mine.orderBy("id").limit(window.limit).offset(window.offset).execute(),
    countRows(db, mine),
  ]);
  return { rows, total };
}

/** Deletes one of the account's tokens by id or by name; false when there was none. */
export async function deleteToken(
  db: Kysely<ForgeTables>,
  accountId: number,
  which: { id: number } | { name: string },
): Promise<boolean> {
  let deletion = db.deleteFrom("access_token").where("account_id", "=", accountId);
  deletion =
    "id" in which
      ? deletion.where("id", "=", which.id)
      : deletion.where("lower_name", "=", which.name.toLowerCase());
  const result = await deletion.executeTakeFirst();
  return result.numDeletedRows > 0n;
}

// A token's last use is written once a minute while it is used, and read from kept rows only by
// findToken, which keeps the time of its own touch; the token list reads it afresh. The write
// need not end every kept answer of the forge (repositories, issue pages) once a minute per token.
sideColumn("access_token", "last_used_at");

export async function touchToken(db: Kysely<ForgeTables>, id: number, when: string | Date): Promise<void> {
  await db.updateTable("access_token").set({ last_used_at: when }).where("id", "=", id).execute();
}
