// The few places where SQLite and PostgreSQL differ, so services write one set of queries.
import {
  type CreateTableBuilder,
  type Expression,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from "kysely";
import type { DialectName } from "./database.ts";

/** Adds an auto-incrementing integer primary key (the originals expose numeric ids). */
export function addIdColumn<T extends string, C extends string>(
  table: CreateTableBuilder<T, C>,
  dialect: DialectName,
  column = "id",
): CreateTableBuilder<T, C> {
  return dialect === "sqlite"
    ? table.addColumn(column, "integer", (c) => c.primaryKey().autoIncrement())
    : table.addColumn(column, "bigint", (c) => c.primaryKey().generatedByDefaultAsIdentity());
}

/** Column type for UTC timestamps: ISO-8601 text on SQLite (sorts correctly), timestamptz on PostgreSQL. */
export function timestampType(dialect: DialectName): "text" | "timestamptz" {
  return dialect === "sqlite" ? "text" : "timestamptz";
}

/** A Date as the timestamp column stores it. */
export function toStoredTime(date: Date, dialect: DialectName): string | Date {
  return dialect === "sqlite" ? date.toISOString() : date;
}

/** A stored timestamp as a Date, whichever database it came from. */
export function readTime(value: string | Date): Date {
  return value instanceof Date ? value : new Date(value);
}

/** `count(*)` of a query as a number on both databases. */
export async function countRows<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
): Promise<number> {
  const row: { count?: unknown } | undefined = await query
    .clearSelect()
    .clearOrderBy()
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Escapes LIKE wildcards so user text matches literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Case-insensitive "contains" search: ILIKE on PostgreSQL, LIKE (ASCII case-insensitive) on SQLite. */
export function containsText(
  dialect: DialectName,
  column: Expression<unknown>,
  text: string,
): RawBuilder<SqlBool> {
  const pattern = `%${escapeLike(text)}%`;
  return dialect === "sqlite"
    ? sql<SqlBool>`${column} like ${pattern} escape '\\'`
    : sql<SqlBool>`${column} ilike ${pattern} escape '\\'`;
}

/** True when the database answers a trivial query (health checks). */
export async function pingDatabase(database: { db: import("kysely").Kysely<unknown> }): Promise<boolean> {
  try {
    await sql`select 1`.execute(database.db);
    return true;
  } catch {
    return false;
  }
}
