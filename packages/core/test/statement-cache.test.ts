import assert from "node:assert/strict";
import { test } from "node:test";
import BetterSqlite3 from "better-sqlite3";
import { ReadBatch } from "../src/db/read-batch.ts";
import { createStatementCache } from "../src/db/statement-cache.ts";

test("the SQLite statement cache reuses statements and stays within its bound", () => {
  const sqlite = new BetterSqlite3(":memory:");
  const batch = new ReadBatch(sqlite);
  const prepared: string[] = [];
  const realPrepare = sqlite.prepare.bind(sqlite);
  // Count real prepares on the real connection.
  sqlite.prepare = ((sql: string) => {
    prepared.push(sql);
    return realPrepare(sql);
  }) as typeof sqlite.prepare;
  const cache = createStatementCache(sqlite, 2, batch);
  const a = cache.prepare("select 1 as a");
  assert.equal(cache.prepare("select 1 as a"), a, "the same SQL gets the same statement");
  cache.prepare("select 2 as b");
  cache.prepare("select 1 as a"); // a is now the most recently used
  cache.prepare("select 3 as c"); // evicts b, the least recently used
  cache.prepare("select 1 as a");
  cache.prepare("select 2 as b");
  assert.deepEqual(prepared, ["select 1 as a", "select 2 as b", "select 3 as c", "select 2 as b"]);
  cache.close();
  assert.equal(sqlite.open, false);
});
