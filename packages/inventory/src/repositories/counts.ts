import type { AnyKysely } from "@anvil/core";
import { type Expression, sql } from "kysely";
import type { AnySelect } from "./records.ts";

// Counting the rows of one table that point at rows of another (the `*_count` numbers of
// services/counts.ts): per row for a page, or as an expression to sort by.

export interface CountSource {
  table: string;
  column: string;
  /** Whether the counted table soft-deletes (has deleted_at); true unless said otherwise. */
  softDeletes?: boolean;
  /** Only rows checked out to this kind of holder (`assigned_to` with `assigned_type`). */
  assignedType?: string;
  /** Counted through another table: `column` is on `via.table`, whose id the counted `via.key` holds. */
  via?: { table: string; key: string };
}

/**
 * How many counted rows point at each of these ids, as `{owner, count}` (ids none points at are
 * absent); `scope` narrows the counted rows (the caller's company).
 */
export async function countPerOwner(
  db: AnyKysely,
  source: CountSource,
  ids: readonly number[],
  scope: (select: AnySelect) => AnySelect,
): Promise<Array<{ owner: number; count: number }>> {
  const { via } = source;
  const owner = via ? `${via.table}.${source.column}` : `${source.table}.${source.column}`;
  const rows = await db
    .selectFrom(source.table)
    .$if(via !== undefined, (q) =>
      q.innerJoin(`${via?.table}`, `${via?.table}.id`, `${source.table}.${via?.key}`),
    )
    .select([`${owner} as owner`, (eb) => eb.fn.countAll<number>().as("count")])
    .where(owner, "in", [...ids])
    .$if(source.softDeletes !== false, (q) => q.where(`${source.table}.deleted_at`, "is", null))
    .$if(source.assignedType !== undefined, (q) =>
      q.where(`${source.table}.assigned_type`, "=", source.assignedType),
    )
    .$call(scope)
    .groupBy(owner)
    .execute();
  return rows.map((row) => ({ owner: Number(row.owner), count: Number(row.count) }));
}

/** The count of `source` on `table.id` as an SQL expression, to sort by; 0 without a source. */
export function countOn(source: CountSource | undefined, table: string): Expression<number> {
  // A bare `0` in ORDER BY would name a column position.
  if (!source) return sql<number>`(select 0)`;
  const live = source.softDeletes === false ? sql`` : sql` and counted.deleted_at is null`;
  const held = source.assignedType ? sql` and counted.assigned_type = ${source.assignedType}` : sql``;
  const { via } = source;
  if (via)
    return sql<number>`(select count(*) from ${sql.table(source.table)} as counted join ${sql.table(
      via.table,
    )} as via on via.id = counted.${sql.ref(via.key)} where via.${sql.ref(source.column)} = ${sql.ref(
      `${table}.id`,
    )}${live}${held})`;
  return sql<number>`(select count(*) from ${sql.table(source.table)} as counted where counted.${sql.ref(
    source.column,
  )} = ${sql.ref(`${table}.id`)}${live}${held})`;
}
