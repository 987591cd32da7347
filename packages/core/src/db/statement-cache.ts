import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

// better-sqlite3 refuses to bind a JS boolean, while PostgreSQL takes one; SQLite stores booleans
// as 1/0, so the same query works on both once true/false are bound as numbers. Parameters are
// copied only when one is a boolean.
function bindable(parameters: ReadonlyArray<unknown>): ReadonlyArray<unknown> {
  for (const parameter of parameters) {
    if (typeof parameter === "boolean")
      return parameters.map((p) => (typeof p === "boolean" ? Number(p) : p));
  }
  return parameters;
}

function bindingBooleans(statement: BetterSqlite3.Statement): SqliteStatement {
  return {
    reader: statement.reader,
    all: (parameters) => statement.all(bindable(parameters)),
    run: (parameters) => statement.run(bindable(parameters)),
    iterate: (parameters) => statement.iterate(bindable(parameters)),
  };
}

/**
 * Wraps a better-sqlite3 connection so kysely reuses prepared statements: kysely calls
 * prepare() for every query, which measured twice as slow as reusing them. The cache is an
 * LRU bounded by `size` so ad-hoc SQL cannot grow it without limit.
 */
export function createStatementCache(sqlite: BetterSqlite3.Database, size: number): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => {
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
      const statement = bindingBooleans(sqlite.prepare(sql));
      cache.set(sql, statement);
      if (cache.size > size) cache.delete(cache.keys().next().value as string);
      return statement;
    },
  };
}
