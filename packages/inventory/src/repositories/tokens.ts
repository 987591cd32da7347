import { dialectOf, prepared, sideColumn } from "@anvil/core";
import { type Insertable, type Kysely, type Selectable, sql } from "kysely";
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

/** The undeleted user with this id and their groups' permissions (a signed-in session's account). */
export async function findAccount(
  db: Kysely<InventoryTables>,
  userId: number,
): Promise<{ user: UserRow; groups: readonly { permissions: string }[] } | undefined> {
  const [user] = await liveUser(db, userId);
  return user ? { user, groups: await groupPermissionsOf(db, user.id) } : undefined;
}

/** What a request's token stands for: the token, its user and their groups' permissions. */
export interface TokenOwner {
  token: TokenRow;
  user: UserRow;
  groups: readonly { permissions: string }[];
}

/** The columns of a token row, read beside its user's under these names. */
const TOKEN_COLUMNS = [
  "id",
  "user_id",
  "name",
  "token_hash",
  "read_only",
  "scopes",
  "created_at",
  "expires_at",
  "last_used_at",
] as const;

/**
 * The token with this hash, its user when not deleted, and their groups' permissions; all frozen.
 * On SQLite three prepared reads, kept until a write. On PostgreSQL, where nothing is kept, one
 * statement: three were three round trips before every API request's own reads.
 */
export async function findTokenOwner(
  db: Kysely<InventoryTables>,
  hash: string,
): Promise<TokenOwner | undefined> {
  if (dialectOf(db) === "postgres") return tokenOwnerAtOnce(db, hash);
  const [token] = await tokenByHash(db, hash);
  if (!token) return undefined;
  const [user] = await liveUser(db, token.user_id);
  return user ? { token, user, groups: await groupPermissionsOf(db, user.id) } : undefined;
}

async function tokenOwnerAtOnce(db: Kysely<InventoryTables>, hash: string): Promise<TokenOwner | undefined> {
  const [row] = (await db
    .selectFrom("personal_access_tokens as token")
    .innerJoin("users as user", "user.id", "token.user_id")
    .selectAll("user")
    .select(TOKEN_COLUMNS.map((column) => sql.ref(`token.${column}`).as(`token__${column}`)))
    .select(
      sql<
        string[]
      >`(select coalesce(json_agg(permission_groups.permissions), '[]') from users_groups join permission_groups on permission_groups.id = users_groups.group_id where users_groups.user_id = "user"."id")`.as(
        "token__groups",
      ),
    )
    .where("token.token_hash", "=", hash)
    .where("user.deleted_at", "is", null)
    .execute()) as Record<string, unknown>[];
  if (!row) return undefined;
  const user: Record<string, unknown> = {};
  const token: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) if (!column.startsWith("token__")) user[column] = value;
  for (const column of TOKEN_COLUMNS) token[column] = row[`token__${column}`];
  const groups = (row.token__groups as string[]).map((permissions) => Object.freeze({ permissions }));
  return {
    token: Object.freeze(token) as unknown as TokenRow,
    user: Object.freeze(user) as unknown as UserRow,
    groups: Object.freeze(groups),
  };
}

// A token's last use is written once a minute while it is used, and read from kept rows only by
// authenticate, which keeps the time of its own touch: the write need not end every kept answer.
sideColumn("personal_access_tokens", "last_used_at");

export async function touchToken(db: Executor, id: number, when: string | Date): Promise<void> {
  await db.updateTable("personal_access_tokens").set({ last_used_at: when }).where("id", "=", id).execute();
}
