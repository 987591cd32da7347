import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";
import { type ReadBatch, touchesOnlySideTables } from "./read-batch.ts";

// better-sqlite3 refuses to bind a JS boolean, while PostgreSQL takes one; SQLite stores booleans
// as 1/0, so the same query works on both once true/false are bound as numbers. Parameters are
// copied only when one is a boolean.
export function bindable(parameters: ReadonlyArray<unknown>): ReadonlyArray<unknown> {
  for (const parameter of parameters) {
    if (typeof parameter === "boolean")
      return parameters.map((p) => (typeof p === "boolean" ? Number(p) : p));
  }
  return parameters;
}

function wrapped(statement: BetterSqlite3.Statement, sql: string, batch: ReadBatch): SqliteStatement {
  // A RETURNING write is a reader too; only a statement that returns rows and writes nothing reads.
  const plainRead = statement.reader && statement.readonly;
  const before = plainRead
    ? () => batch.enter()
    : touchesOnlySideTables(sql)
      ? batch.writeAside
      : batch.write;
  return {
    reader: statement.reader,
    all: (parameters) => {
      before();
      return statement.all(bindable(parameters));
    },
    run: (parameters) => {
      before();
      return statement.run(bindable(parameters));
    },
    iterate: (parameters) => {
      before();
      return statement.iterate(bindable(parameters));
    },
  };
}

/**
 * Wraps a better-sqlite3 connection so kysely reuses prepared statements: kysely calls
 * prepare() for every query, which measured twice as slow as reusing them. The cache is an
 * LRU bounded by `size` so ad-hoc SQL cannot grow it without limit. Reads outside kysely's
 * transactions share the turn's read transaction (read-batch.ts).
 */
export function createStatementCache(
  sqlite: BetterSqlite3.Database,
  size: number,
  batch: ReadBatch,
): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => {
      batch.end();
      cache.clear();
      sqlite.close();
    },
    prepare: (sql: string) => {
      const hit = cache.get(sql);
      if (hit !== undefined) {
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const statement = wrapped(sqlite.prepare(sql), sql, batch);
      cache.set(sql, statement);
      if (cache.size > size) cache.delete(cache.keys().next().value as string);
      return statement;
    },
  };
}
