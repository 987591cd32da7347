import type { AnyKysely, DialectName } from "@anvil/core";
import type { Insertable } from "kysely";
import type { ActionLogTable } from "../schemas/tables.ts";
import type { Executor } from "../services/database.ts";
import type { ListParams } from "../services/listing.ts";
import { type AnySelect, insertChunks, listRecords, type Row } from "./records.ts";

// The activity log (Snipe-IT's action_logs); services/activity.ts says what an entry holds. A file
// attached to a record is an "uploaded" entry naming it, whose id is the file's.

/** A thing an entry may be about: a short model name (`asset`, `user`…) and an id. */
export interface LoggedThing {
  type: string;
  id: number;
}

/** Narrows a log query to the entries whose item or target is the thing. */
export function aboutThing(select: AnySelect, thing: LoggedThing): AnySelect {
  return select.where((eb) =>
    eb.or([
      eb.and([eb("item_type", "=", thing.type), eb("item_id", "=", thing.id)]),
      eb.and([eb("target_type", "=", thing.type), eb("target_id", "=", thing.id)]),
    ]),
  );
}

/** Narrows a log query to the entries whose item is of this type (`asset`, `license`…). */
export function ofItemType(select: AnySelect, type: string): AnySelect {
  return select.where("action_logs.item_type", "=", type);
}

/**
 * Narrows a log query to the entries made on or after the day `from` and before the day `until`
 * (both `YYYY-MM-DD`, UTC, each optional): a day as text compares below every time of that day in
 * SQLite's stored text, and PostgreSQL reads it as that day's midnight.
 */
export function madeBetween(select: AnySelect, from?: string, until?: string): AnySelect {
  return select
    .$if(from !== undefined, (q) => q.where("action_logs.created_at", ">=", from))
    .$if(until !== undefined, (q) => q.where("action_logs.created_at", "<", until));
}

export interface LogListQuery {
  /** Columns the search terms are looked for in. */
  searchColumns: readonly string[];
  /** Exact-match filters: column -> value. */
  filters: Record<string, unknown>;
  /** Further conditions (the things the entries are about, the caller's company). */
  refine: (select: AnySelect) => AnySelect;
}

/** One page of log entries and their total; entries stay when the things they name are deleted. */
export function listLogEntries(
  db: AnyKysely,
  dialect: DialectName,
  query: LogListQuery,
  params: ListParams,
): Promise<{ total: number; rows: Row[] }> {
  return listRecords(
    db,
    dialect,
    { table: "action_logs", softDeletes: false, trashed: "with", ...query },
    params,
  );
}

/** The names of the users who made entries (their `created_by`), deleted users too. */
export function entryAuthors(db: Executor, ids: readonly number[]) {
  // 0 names no user and keeps the list from being empty.
  return db
    .selectFrom("users")
    .select(["id", "first_name", "last_name"])
    .where("id", "in", [0, ...ids])
    .execute();
}

export async function insertLogEntry(db: Executor, entry: Insertable<ActionLogTable>): Promise<void> {
  await db.insertInto("action_logs").values(entry).execute();
}

/** The "uploaded" entries naming a file, of the item, oldest first. */
export async function uploadedFiles(db: Executor, item: LoggedThing): Promise<Row[]> {
  return (await db
    .selectFrom("action_logs")
    .selectAll()
    .where("action_type", "=", "uploaded")
    .where("item_type", "=", item.type)
    .where("item_id", "=", item.id)
    .where("filename", "is not", null)
    .orderBy("id")
    .execute()) as Row[];
}

/** The item's "uploaded" entry with this id. */
export async function uploadedFile(
  db: Executor,
  item: LoggedThing,
  entryId: number,
): Promise<Row | undefined> {
  return (await db
    .selectFrom("action_logs")
    .selectAll()
    .where("id", "=", entryId)
    .where("action_type", "=", "uploaded")
    .where("item_type", "=", item.type)
    .where("item_id", "=", item.id)
    .executeTakeFirst()) as Row | undefined;
}

/** The item's entries naming one of these files, oldest first. */
export async function entriesNaming(
  db: Executor,
  item: LoggedThing,
  filenames: readonly string[],
): Promise<Row[]> {
  return (await db
    .selectFrom("action_logs")
    .selectAll()
    .where("item_type", "=", item.type)
    .where("item_id", "=", item.id)
    .where("filename", "in", filenames)
    .orderBy("id")
    .execute()) as Row[];
}

/** Deletes the entry; whether it was there (of two deleting it, one was). */
export async function deleteEntry(db: Executor, id: number): Promise<boolean> {
  const removed = await db.deleteFrom("action_logs").where("id", "=", id).executeTakeFirst();
  return Number(removed.numDeletedRows) > 0;
}

/** Entries inserted with one statement a chunk (all name the same columns), in the order given. */
export async function insertLogEntries(
  db: Executor,
  entries: readonly Insertable<ActionLogTable>[],
): Promise<void> {
  for (const chunk of insertChunks(entries, Object.keys(entries[0] ?? {}).length))
    await db.insertInto("action_logs").values(chunk).execute();
}
