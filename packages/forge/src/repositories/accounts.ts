import { containsText, countRows, type DialectName, forUpdate, prepared } from "@anvil/core";
import type { Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { AccountTable, ForgeTables } from "../schemas/tables.ts";

export type AccountRow = Selectable<AccountTable>;
export type NewAccount = Insertable<AccountTable>;
export type AccountChanges = Updateable<AccountTable>;

// Both run on nearly every request: prepared once (see core's prepared.ts).
const accountByName = prepared((db: Kysely<ForgeTables>, lowerName: string) =>
  db.selectFrom("account").selectAll().where("lower_name", "=", lowerName),
);
const accountById = prepared((db: Kysely<ForgeTables>, id: number) =>
  db.selectFrom("account").selectAll().where("id", "=", id),
);

export async function findAccountByName(
  db: Kysely<ForgeTables>,
  name: string,
): Promise<AccountRow | undefined> {
  return (await accountByName(db, name.toLowerCase()))[0];
}

/** The account as it is now, locked until the transaction ends (see core's claims). */
export function lockAccount(
  db: Kysely<ForgeTables>,
  id: number,
  dialect: DialectName,
): Promise<AccountRow | undefined> {
  return db
    .selectFrom("account")
    .selectAll()
    .where("id", "=", id)
    .$call(forUpdate(dialect))
    .executeTakeFirst();
}

export async function findAccountById(db: Kysely<ForgeTables>, id: number): Promise<AccountRow | undefined> {
  return (await accountById(db, id))[0];
}

/** The accounts with these ids, by id, in one query. */
export async function findAccountsByIds(
  db: Kysely<ForgeTables>,
  ids: number[],
): Promise<Map<number, AccountRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("account")
    .selectAll()
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** Users with these e-mail addresses, by lower-cased address, in one query. */
export async function findUsersByEmails(
  db: Kysely<ForgeTables>,
  emails: string[],
): Promise<Map<string, AccountRow>> {
  const lower = [...new Set(emails.map((email) => email.toLowerCase()))];
  if (lower.length === 0) return new Map();
  const rows = await db
    .selectFrom("account")
    .selectAll()
    .where("type", "=", 0)
    .where("lower_email", "in", lower)
    .execute();
  return new Map(rows.map((row) => [row.lower_email, row]));
}

/** A user (not an organization) by login name or e-mail address, as basic auth accepts either. */
export function findUserByLogin(db: Kysely<ForgeTables>, login: string): Promise<AccountRow | undefined> {
  const lower = login.toLowerCase();
  return db
    .selectFrom("account")
    .selectAll()
    .where("type", "=", 0)
    .where((eb) => eb.or([eb("lower_name", "=", lower), eb("lower_email", "=", lower)]))
    .executeTakeFirst();
}

export async function insertAccount(db: Kysely<ForgeTables>, account: NewAccount): Promise<AccountRow> {
  return db.insertInto("account").values(account).returningAll().executeTakeFirstOrThrow();
}

export async function updateAccount(
  db: Kysely<ForgeTables>,
  id: number,
  changes: AccountChanges,
): Promise<AccountRow | undefined> {
  return db.updateTable("account").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
}

/** Stores a new hash of the same password, unless the password was changed meanwhile. */
export async function replacePasswordHash(
  db: Kysely<ForgeTables>,
  id: number,
  previous: string,
  next: string,
): Promise<void> {
  await db
    .updateTable("account")
    .set({ password_hash: next })
    .where("id", "=", id)
    .where("password_hash", "=", previous)
    .execute();
}

export async function deleteAccount(db: Kysely<ForgeTables>, id: number): Promise<void> {
  await db.deleteFrom("account").where("id", "=", id).execute();
}

export interface AccountQuery {
  type: number;
  /** Case-insensitive part of the name, full name or e-mail. */
  keyword?: string;
  /** Only these visibilities; all when absent. */
  visibilities?: string[];
  id?: number;
  offset: number;
  limit: number;
}

/** A page of accounts in id order, and how many match in all. */
export async function listAccounts(
  db: Kysely<ForgeTables>,
  dialect: DialectName,
  query: AccountQuery,
): Promise<{ rows: AccountRow[]; total: number }> {
  let selection = db.selectFrom("account").selectAll().where("type", "=", query.type);
  if (query.id !== undefined) selection = selection.where("id", "=", query.id);
  if (query.visibilities) selection = selection.where("visibility", "in", query.visibilities);
  if (query.keyword) {
    const keyword = query.keyword;
    selection = selection.where((eb) =>
      eb.or([
        containsText(dialect, eb.ref("lower_name"), keyword),
        containsText(dialect, eb.ref("full_name"), keyword),
      ]),
    );
  }
  const [rows, total] = await Promise.all([
    selection.orderBy("id").limit(query.limit).offset(query.offset).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}
