// The few places where SQLite and PostgreSQL differ, so services write one set of queries.
import {
  type CreateTableBuilder,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  SqliteAdapter,
  sql,
} from "kysely";
import type { AnyKysely, DialectName } from "./database.ts";

/** Which database a Kysely instance talks to; migrations use it to pick column types. */
export function dialectOf(db: Kysely<unknown> | AnyKysely): DialectName {
  return db.getExecutor().adapter instanceof SqliteAdapter ? "sqlite" : "postgres";
}

/** Column type of ids and of the columns that reference them. */
export function idType(dialect: DialectName): "integer" | "bigint" {
  return dialect === "sqlite" ? "integer" : "bigint";
}

/** Adds an auto-incrementing integer primary key (the originals expose numeric ids). */
export function addIdColumn<T extends string, C extends string>(
  table: CreateTableBuilder<T, C>,
  dialect: DialectName,
  column = "id",
): CreateTableBuilder<T, C> {
  // SQLite makes an `integer primary key` the rowid, which is what autoincrements.
  return dialect === "sqlite"
    ? table.addColumn(column, idType(dialect), (c) => c.primaryKey().autoIncrement())
    : table.addColumn(column, idType(dialect), (c) => c.primaryKey().generatedByDefaultAsIdentity());
}

/** Column type for UTC timestamps: ISO-8601 text on SQLite (sorts correctly), timestamptz on PostgreSQL. */
export function timestampType(dialect: DialectName): "text" | "timestamptz" {
  return dialect === "sqlite" ? "text" : "timestamptz";
}

/**
 * Column type for calendar dates (a birthday, a purchase date): `date` on PostgreSQL, text on
 * SQLite. Both store and return `YYYY-MM-DD` strings whatever the process's time zone.
 */
export function dateType(dialect: DialectName): "text" | "date" {
  return dialect === "sqlite" ? "text" : "date";
}

/** A Date as the timestamp column stores it. */
export function toStoredTime(date: Date, dialect: DialectName): string | Date {
  return dialect === "sqlite" ? date.toISOString() : date;
}

/** A stored timestamp as a Date, whichever database it came from. */
export function readTime(value: string | Date): Date {
  return value instanceof Date ? value : new Date(value);
}

/**
 * How many rows a query matches before its order, limit and offset: the total a paginated list
 * reports. Counting the query as a subquery keeps grouped and distinct queries right, where
 * swapping their select list for count(*) would count inside each group instead.
 */
export async function countRows<DB, TB extends keyof DB, O>(
  db: Kysely<DB>,
  query: SelectQueryBuilder<DB, TB, O>,
): Promise<number> {
  const row = await countQuery(db, query).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The query countRows runs. */
export function countQuery<DB, TB extends keyof DB, O>(db: Kysely<DB>, query: SelectQueryBuilder<DB, TB, O>) {
  return (db as AnyKysely)
    .selectFrom(query.clearOrderBy().clearLimit().clearOffset().as("counted"))
    .select((eb) => eb.fn.countAll<number>().as("count"));
}

/**
 * A column declared "boolean" (on both databases) as a boolean: PostgreSQL returns true/false,
 * SQLite the 1/0 it stores. Booleans bind as parameters on both.
 */
export function readBool(value: boolean | number): boolean {
  return typeof value === "boolean" ? value : value !== 0;
}

function errorCode(error: unknown): unknown {
  return typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
}

/** Whether a statement failed on a unique or primary-key constraint (the API's "already exists"). */
export function isUniqueViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/** Whether a statement failed on a foreign key: a referenced row is missing, or still referenced. */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === "23503" || code === "SQLITE_CONSTRAINT_FOREIGNKEY";
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
export async function pingDatabase(database: { db: AnyKysely }): Promise<boolean> {
  try {
    await sql`select 1`.execute(database.db);
    return true;
  } catch {
    return false;
  }
}
