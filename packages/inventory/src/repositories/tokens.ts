import { prepared, sideColumn } from "@anvil/core";
import type { Insertable, Kysely, Selectable } from "kysely";
import type { InventoryTables, PersonalAccessTokenTable } from "../schemas/tables.ts";
import type { Executor } from "../services/database.ts";
import type { UserRow } from "../services/permissions.ts";

export type TokenRow = Selectable<PersonalAccessTokenTable>;

export function insertToken(db: Executor, token: Insertable<PersonalAccessTokenTable>): Promise<TokenRow> {
  return db.insertInto("personal_access_tokens").values(token).returningAll().executeTakeFirstOrThrow();
}

export function listTokens(db: Executor, userId: number): Promise<TokenRow[]> {
  return db
    .selectFrom("personal_access_tokens")
    .selectAll()
    .where("user_id", "=", userId)
    .orderBy("id")
    .execute();
}

export async function deleteToken(db: Executor, userId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom("personal_access_tokens")
    .where("user_id", "=", userId)
    .where("id", "=", id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

// Every API request reads these three: prepared, they are built once, and on SQLite repeated reads
// cost a lookup until something is written (core's prepared()).
const tokenByHash = prepared((db: Kysely<InventoryTables>, hash: string) =>
  db.selectFrom("personal_access_tokens").selectAll().where("token_hash", "=", hash),
);
const liveUser = prepared((db: Kysely<InventoryTables>, id: number) =>
  db.selectFrom("users").selectAll().where("id", "=", id).where("deleted_at", "is", null),
);
export const groupPermissionsOf = prepared((db: Kysely<InventoryTables>, userId: number) =>
  db
    .selectFrom("users_groups")
    .innerJoin("permission_groups", "permission_groups.id", "users_groups.group_id")
    .select("permission_groups.permissions")
    .where("users_groups.user_id", "=", userId),
);

/** The token with this hash and its user, when the user is not deleted. Both rows are frozen. */
export async function findTokenOwner(
  db: Kysely<InventoryTables>,
  hash: string,
): Promise<{ token: TokenRow; user: UserRow } | undefined> {
  const [token] = await tokenByHash(db, hash);
  if (!token) return undefined;
  const [user] = await liveUser(db, token.user_id);
  return user ? { token, user } : undefined;
}

// A token's last use is written once a minute while it is used, and read from kept rows only by
// authenticate, which keeps the time of its own touch: the write need not end every kept answer.
sideColumn("personal_access_tokens", "last_used_at");

export async function touchToken(db: Executor, id: number, when: string | Date): Promise<void> {
  await db.updateTable("personal_access_tokens").set({ last_used_at: when }).where("id", "=", id).execute();
}
