import { type AnyKysely, containsText, countRows, type DialectName, keptCount, keptRows } from "@anvil/core";
import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import { type ListParams, sortModifiers } from "../services/listing.ts";

// The queries every table-driven resource shares. Rows are plain records: each resource's
// definition says which columns mean what.

export type Row = Record<string, unknown> & { id: number };
// biome-ignore lint/suspicious/noExplicitAny: the table is chosen at run time by the definition.
export type AnySelect = SelectQueryBuilder<any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: as above.
export type AnyExpressionBuilder = ExpressionBuilder<any, any>;

export type Trashed = "without" | "with" | "only";

export interface ListQuery {
  table: string;
  softDeletes: boolean;
  trashed: Trashed;
  /** Columns the search terms are looked for in (case-insensitive substring). */
  searchColumns: readonly string[];
  /** Further places a term may match, beside the columns (the names of related rows). */
  searchElsewhere?: (term: string) => Expression<SqlBool>[];
  /** Exact-match filters: column -> value. */
  filters: Record<string, unknown>;
  /** A filter had a value no row can have: the list is empty, its total 0. */
  matchesNothing?: boolean;
  /** What a sort key orders by; a plain column when absent. */
  sortExpression?: (sort: string) => Expression<unknown> | undefined;
  /**
   * The page in the list's order (its sort, then the id) read another way than by ordering the
   * filtered rows, when the resource has one for this sort; as ordering them when undefined.
   */
  sortedPage?: (query: AnySelect, page: SortedPage) => AnySelect | undefined;
  /** Further conditions only one resource has. */
  refine?: (query: AnySelect) => AnySelect;
}

/** Which page of a list sortedPage reads, and in which order (the id's too). */
export interface SortedPage {
  sort: string;
  order: "asc" | "desc";
  limit: number;
  offset: number;
}

function scoped(db: AnyKysely, table: string, softDeletes: boolean, trashed: Trashed): AnySelect {
  let query: AnySelect = db.selectFrom(table).selectAll(table);
  if (softDeletes && trashed === "without") query = query.where(`${table}.deleted_at`, "is", null);
  if (softDeletes && trashed === "only") query = query.where(`${table}.deleted_at`, "is not", null);
  return query;
}

/**
 * One page of rows and the total before paging; an offset past the end gives no rows. A keyset
 * page (`after`) is the rows after that id in id order, and `next` the id to ask after for the
 * following page, when there is one.
 */
export async function listRecords(
  db: AnyKysely,
  dialect: DialectName,
  spec: ListQuery,
  params: ListParams,
): Promise<{ total: number; rows: Row[]; next?: number }> {
  let query = scoped(db, spec.table, spec.softDeletes, spec.trashed);
  if (spec.matchesNothing) query = query.where(sql<boolean>`1 = 0`);
  for (const [column, value] of Object.entries(spec.filters))
    query = query.where(`${spec.table}.${column}`, "=", value);
  if (params.search.length > 0 && (spec.searchColumns.length > 0 || spec.searchElsewhere)) {
    query = query.where((eb) =>
      eb.or(
        params.search.flatMap((term) => [
          ...spec.searchColumns.map((column) =>
            // Searchable numbers (a depreciation's months) are matched as text, as MySQL does.
            containsText(dialect, sql`cast(${sql.ref(`${spec.table}.${column}`)} as text)`, term),
          ),
          ...(spec.searchElsewhere?.(term) ?? []),
        ]),
      ),
    );
  }
  if (spec.refine) query = spec.refine(query);
  // Kept until a write (core's keptRows): a list asked again over unchanged rows is neither
  // counted nor read again, and counting is most of a page's cost (every matching row is read).
  const total = await keptCount(db, query);
  if (params.after !== undefined) return keysetPage(db, query, spec.table, params.after, params.limit, total);
  const offset = Math.min(params.offset, total);
  // The database steps over the rows before a page one by one, so a page past the middle is read
  // from the other end, in the opposite order (the sort ends with the id, so it is exactly the
  // reverse): offset 90,000 of 97,000 steps over 6,950 rows instead of 90,000.
  const skippedFromEnd = Math.max(0, total - offset - params.limit);
  const fromEnd = skippedFromEnd < offset;
  const order = fromEnd ? (params.order === "asc" ? "desc" : "asc") : params.order;
  const page: SortedPage = {
    sort: params.sort,
    order,
    limit: fromEnd ? Math.min(params.limit, total - offset) : params.limit,
    offset: fromEnd ? skippedFromEnd : offset,
  };
  const orderBy = spec.sortExpression?.(params.sort) ?? sql.ref(`${spec.table}.${params.sort}`);
  const rows = (await keptRows(
    db,
    spec.sortedPage?.(query, page) ??
      query
        .orderBy(orderBy, sortModifiers(dialect, order, params.sort))
        .orderBy(`${spec.table}.id`, order)
        .limit(page.limit)
        .offset(page.offset),
  )) as Row[];
  return { total, rows: fromEnd ? [...rows].reverse() : rows };
}

async function keysetPage(
  db: AnyKysely,
  query: AnySelect,
  table: string,
  after: number,
  limit: number,
  total: number,
): Promise<{ total: number; rows: Row[]; next?: number }> {
  // One row more than the page says whether another follows, so the last page links to none.
  const rows = (await keptRows(
    db,
    query
      .where(`${table}.id`, ">", after)
      .orderBy(`${table}.id`, "asc")
      .limit(limit + 1),
  )) as Row[];
  if (rows.length <= limit) return { total, rows };
  const page = rows.slice(0, limit);
  return { total, rows: page, next: Number(page[page.length - 1].id) };
}

/** The page of `select`'s rows in `order`, and their total; an offset past the end gives none. */
export async function pageInOrder(
  db: AnyKysely,
  select: AnySelect,
  order: string,
  { limit, offset }: { limit: number; offset: number },
): Promise<{ total: number; rows: Row[] }> {
  const total = await countRows(db, select);
  const rows = (await select.orderBy(order).limit(limit).offset(Math.min(offset, total)).execute()) as Row[];
  return { total, rows };
}

export async function findRecord(
  db: AnyKysely,
  table: string,
  id: number,
  options: { softDeletes: boolean; trashed: Trashed },
): Promise<Row | undefined> {
  return (await scoped(db, table, options.softDeletes, options.trashed)
    .where(`${table}.id`, "=", id)
    .executeTakeFirst()) as Row | undefined;
}

export async function insertRecord(
  db: AnyKysely,
  table: string,
  values: Record<string, unknown>,
): Promise<Row> {
  return (await db.insertInto(table).values(values).returningAll().executeTakeFirstOrThrow()) as Row;
}

/**
 * Rows inserted with one statement a chunk, all naming the same columns (a column one row leaves
 * out would be written as DEFAULT, which SQLite does not take in VALUES); answered in id order,
 * which is the order given (RETURNING itself promises no order).
 */
export async function insertRecords(
  db: AnyKysely,
  table: string,
  rows: readonly Record<string, unknown>[],
): Promise<Row[]> {
  const inserted: Row[] = [];
  for (const chunk of insertChunks(rows, Object.keys(rows[0] ?? {}).length))
    inserted.push(...((await db.insertInto(table).values(chunk).returningAll().execute()) as Row[]));
  return inserted.sort((a, b) => Number(a.id) - Number(b.id));
}

/** Rows cut into the chunks one multi-row INSERT each takes: below SQLite's 32,766 bound parameters. */
export function insertChunks<T>(rows: readonly T[], columns: number): T[][] {
  const size = Math.max(1, Math.floor(32_000 / Math.max(1, columns)));
  const chunks: T[][] = [];
  for (let start = 0; start < rows.length; start += size) chunks.push(rows.slice(start, start + size));
  return chunks;
}

export async function updateRecord(
  db: AnyKysely,
  table: string,
  id: number,
  changes: Record<string, unknown>,
): Promise<Row> {
  return (await db
    .updateTable(table)
    .set(changes)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow()) as Row;
}

export async function deleteRecord(db: AnyKysely, table: string, id: number): Promise<void> {
  await db.deleteFrom(table).where("id", "=", id).execute();
}

/** `{id -> name}` of the rows of `table` with these ids, deleted or not; users by full name, unnamed assets by tag. */
export async function namesOf(
  db: AnyKysely,
  table: string,
  ids: readonly unknown[],
): Promise<Map<number, string>> {
  return (await namesOfEach(db, { names: [table, ids] })).names;
}

/**
 * namesOf for several lookups (key → table and ids) in one query, a union of one select a
 * lookup: a page's related names cost one round trip on PostgreSQL, not one a table.
 */
export async function namesOfEach<Key extends string>(
  db: AnyKysely,
  lookups: Readonly<Record<Key, readonly [string, readonly unknown[]]>>,
): Promise<Record<Key, Map<number, string>>> {
  const found = Object.fromEntries(
    Object.keys(lookups).map((key) => [key, new Map<number, string>()]),
  ) as Record<Key, Map<number, string>>;
  const selects = (Object.entries(lookups) as [Key, readonly [string, readonly unknown[]]][]).flatMap(
    ([key, [table, ids]]) => {
      const wanted = [...new Set(ids.filter((id) => id !== null && id !== undefined).map(Number))];
      if (wanted.length === 0) return [];
      const name =
        table === "users"
          ? sql<string>`trim(first_name || ' ' || coalesce(last_name, ''))`
          : table === "assets"
            ? sql<string>`coalesce(nullif(name, ''), asset_tag)`
            : sql<string>`name`;
      // The key is one of the caller's own words, never request data.
      return [
        db
          .selectFrom(table)
          .select([sql.lit(key).as("lookup"), "id", name.as("name")])
          .where("id", "in", wanted),
      ];
    },
  );
  if (selects.length === 0) return found;
  const union = selects.slice(1).reduce((all, select) => all.unionAll(select), selects[0]);
  for (const row of await keptRows(db, union)) found[row.lookup as Key].set(Number(row.id), String(row.name));
  return found;
}

/** `{id -> serial}` of the rows of `table` with these ids, deleted or not. */
export async function serialsOf(
  db: AnyKysely,
  table: string,
  ids: readonly number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom(table).select(["id", "serial"]).where("id", "in", ids).execute();
  return new Map(rows.map((row) => [Number(row.id), row.serial as string]));
}
