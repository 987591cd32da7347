import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

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
      const statement = sqlite.prepare(sql) as unknown as SqliteStatement;
      cache.set(sql, statement);
      if (cache.size > size) cache.delete(cache.keys().next().value as string);
      return statement;
    },
  };
}
