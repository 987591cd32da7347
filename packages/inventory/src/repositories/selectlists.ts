import { type AnyKysely, containsText, type DialectName, keptCount, keptRows } from "@anvil/core";
import { type Expression, type SqlBool, sql } from "kysely";
import type { AnySelect, Row } from "./records.ts";

// The reads behind the select2 lists (services/selectlists.ts): the undeleted rows of a table whose
// columns contain the search term, and the conditions some lists add.

export type Refine = (select: AnySelect) => AnySelect;

export interface SelectlistRead {
  table: string;
  /** Columns the term is looked for in (case-insensitive substring); an empty term matches all. */
  search: readonly string[];
  term: string;
  order: ReadonlyArray<readonly [string, "asc" | "desc"]>;
  /** Further conditions: the list's own, then the caller's company. */
  refine: Refine;
  limit: number;
  offset: number;
}

function searched(dialect: DialectName, table: string, columns: readonly string[], term: string): Refine {
  return (select) =>
    term === ""
      ? select
      : select.where((eb) =>
          eb.or(
            columns.map((column) =>
              containsText(dialect, sql.ref(`${table}.${column}`) as Expression<unknown>, term),
            ),
          ),
        );
}

/** One page of the matching rows in the list's order (ties by id), and their total. */
export async function selectlistRows(
  db: AnyKysely,
  dialect: DialectName,
  read: SelectlistRead,
): Promise<{ total: number; rows: Row[] }> {
  const { table } = read;
  let select: AnySelect = db.selectFrom(table).selectAll(table).where(`${table}.deleted_at`, "is", null);
  select = read.refine(searched(dialect, table, read.search, read.term)(select));
  // Kept until a write (core's keptRows), as the lists are: a page's filters and forms show several
  // of these lists, up to ten pages each, and asked them all again for every page view.
  const total = await keptCount(db, select);
  for (const [column, direction] of read.order) select = select.orderBy(`${table}.${column}`, direction);
  const rows = (await keptRows(
    db,
    select.orderBy(`${table}.id`).limit(read.limit).offset(read.offset),
  )) as Row[];
  return { total, rows };
}

/** Every undeleted location whose name contains the term (all for none), by name then id. */
export async function locationsByName(db: AnyKysely, dialect: DialectName, term: string): Promise<Row[]> {
  const select = searched(
    dialect,
    "locations",
    ["name"],
    term,
  )(db.selectFrom("locations").selectAll().where("deleted_at", "is", null));
  return (await keptRows(db, select.orderBy("name").orderBy("id"))) as Row[];
}

/** Labels with each of these flags (`deployable`, `pending`, `archived`) set. */
export function labelsFlagged(flags: readonly string[]): Refine {
  return (select) => flags.reduce((q, flag) => q.where(`status_labels.${flag}`, "=", true), select);
}

/** Categories of one type. */
export function categoriesOfType(type: string): Refine {
  return (select) => select.where("categories.category_type", "=", type);
}

/** Assets whose label is not archived; `readyToDeploy`: only those not checked out, with a deployable label. */
export function selectableAssets(readyToDeploy: boolean): Refine {
  const labels = (flags: Record<string, boolean>) => {
    let q = sql`select id from status_labels where 1 = 1`;
    for (const [flag, value] of Object.entries(flags)) q = sql`${q} and ${sql.ref(flag)} = ${value}`;
    return q;
  };
  return (select) => {
    const q = select.where(sql<SqlBool>`assets.status_id not in (${labels({ archived: true })})`);
    if (!readyToDeploy) return q;
    return q
      .where("assets.assigned_to", "is", null)
      .where(
        sql<SqlBool>`assets.status_id in (${labels({ deployable: true, pending: false, archived: false })})`,
      );
  };
}
