import { type AnyKysely, type DialectName, dialectOf, idType, timestampType } from "@anvil/core";
import { type CreateTableBuilder, type SqlBool, sql } from "kysely";

// Column sets every Snipe-IT table shares, so each migration states only what is its own.

export interface TableKit {
  dialect: DialectName;
  id: "integer" | "bigint";
  time: "text" | "timestamptz";
}

export function tableKit(db: AnyKysely): TableKit {
  const dialect = dialectOf(db);
  return { dialect, id: idType(dialect), time: timestampType(dialect) };
}

/** created_by, created_at, updated_at and deleted_at: who made a row, when, and its soft delete. */
export function addRecordColumns<T extends string, C extends string>(
  table: CreateTableBuilder<T, C>,
  kit: TableKit,
): CreateTableBuilder<T, C> {
  return table
    .addColumn("created_by", kit.id, (c) => c.references("users.id"))
    .addColumn("created_at", kit.time, (c) => c.notNull())
    .addColumn("updated_at", kit.time, (c) => c.notNull())
    .addColumn("deleted_at", kit.time);
}

/** A name unique among the rows not soft-deleted (Snipe-IT's `unique_undeleted`), optionally per scope. */
export async function uniqueUndeleted(
  db: AnyKysely,
  table: string,
  columns: string[],
  scope: string[] = [],
): Promise<void> {
  await db.schema
    .createIndex(`${table}_${[...columns, ...scope].join("_")}_undeleted`)
    .on(table)
    .columns([...columns, ...scope])
    .unique()
    .where(sql<SqlBool>`deleted_at is null`)
    .execute();
}
