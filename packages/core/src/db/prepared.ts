import type BetterSqlite3 from "better-sqlite3";
import { type Compilable, CompiledQuery, type Kysely, type SelectQueryBuilder } from "kysely";
import type { AnyKysely } from "./database.ts";
import { countQuery, dialectOf } from "./dialect.ts";
import type { ReadBatch } from "./read-batch.ts";
import { bindable } from "./statement-cache.ts";

// A query a service runs on every request (an account by name, a repository by owner and name)
// costs more in kysely than in the database: building and compiling it, then several awaits
// through the connection provider. Measured in the forge, a one-row read took about 15 µs that
// way against 4 µs for the prepared statement alone. `prepared` builds and compiles such a query
// once per dialect and runs it with new parameters; on SQLite, outside a transaction, it runs the
// statement directly.

/** Stands for the index-th argument while the query is built; replaced when it runs. */
class Argument {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

// The SQLite connection behind each root Kysely that createDb made. A transaction is another
// Kysely object, so it is never found here and its queries go through kysely, inside it.
const directConnections = new WeakMap<object, { sqlite: BetterSqlite3.Database; batch: ReadBatch }>();

export function registerDirectSqlite(db: object, sqlite: BetterSqlite3.Database, batch: ReadBatch): void {
  directConnections.set(db, { sqlite, batch });
}

// Frozen on both databases, so a caller that changes a row fails in tests on either.
function frozen<Row>(rows: readonly Row[]): readonly Row[] {
  for (const row of rows) Object.freeze(row);
  return Object.freeze(rows);
}

/** Results kept per prepared query and connection; a new generation empties them. */
const CACHED_RESULTS = 10_000;

interface DirectState {
  statement: BetterSqlite3.Statement;
  generation: number;
  results: Map<string | number, readonly unknown[]>;
}

/**
 * A select built once and run many times: `build` receives placeholders for its arguments (use
 * them only as plain values, e.g. in `where(column, "=", value)`), and the result runs it on any
 * Kysely of the service, a transaction included, with real arguments.
 *
 * On SQLite, outside kysely's transactions, results are also kept, frozen, until the connection's
 * generation moves (read-batch.ts: any write by this process, any commit by another), so a
 * repeated read of unchanged rows costs a map lookup. The rows come back frozen.
 */
export function prepared<Tables, Row, Args extends (string | number)[]>(
  build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>,
): (db: Kysely<Tables>, ...args: Args) => Promise<readonly Row[]> {
  const compiled = new Map<string, CompiledQuery>();
  const states = new WeakMap<object, DirectState>();
  const compile = (db: Kysely<Tables>): CompiledQuery => {
    const dialect = dialectOf(db);
    let query = compiled.get(dialect);
    if (query === undefined) {
      const placeholders = Array.from({ length: build.length - 1 }, (_, i) => new Argument(i));
      query = build(db, ...(placeholders as unknown as Args)).compile();
      compiled.set(dialect, query);
    }
    return query;
  };
  const argumentsOf = (query: CompiledQuery, args: Args) =>
    query.parameters.map((value) => (value instanceof Argument ? args[value.index] : value));
  return async (db, ...args) => {
    const query = compile(db);
    const connection = directConnections.get(db);
    // While kysely holds a transaction, a read here would see its uncommitted rows.
    if (connection === undefined || !connection.batch.enter()) {
      const result = await db.executeQuery<Row>(CompiledQuery.raw(query.sql, argumentsOf(query, args)));
      return frozen(result.rows);
    }
    let state = states.get(db);
    if (state === undefined) {
      state = { statement: connection.sqlite.prepare(query.sql), generation: -1, results: new Map() };
      states.set(db, state);
    }
    if (state.generation !== connection.batch.generation) {
      state.results.clear();
      state.generation = connection.batch.generation;
    }
    // One argument (most hot queries) is its own key: joining costs more than the look-up.
    const key = args.length === 1 ? args[0] : args.join("\u0000");
    let rows = state.results.get(key) as readonly Row[] | undefined;
    if (rows === undefined) {
      rows = frozen(state.statement.all(bindable(argumentsOf(query, args))) as Row[]);
      if (state.results.size >= CACHED_RESULTS) state.results.clear();
      state.results.set(key, rows);
    }
    return rows;
  };
}

/**
 * Rows kept in all by keptRows per connection (a result counts its rows and one more); beyond
 * them, the least recently used results go. It holds what bench/inventory.ts asks of 100,000
 * assets: the first page and count of each of 1,000 models, 200 locations, the labels and the
 * sorts, ~70,000 rows, where 20,000 that started over when full kept few of them (a model's list
 * was read, rendered and serialized again for most requests).
 */
export const KEPT_ROWS = 100_000;

interface KeptState {
  generation: number;
  rows: number;
  /** In the order of their last use, the least recent first. */
  results: Map<string, readonly unknown[]>;
}

const keptStates = new WeakMap<object, KeptState>();

/**
 * A select built per request (a list with its filters, sort and page) whose result is kept as
 * prepared() keeps its own: on SQLite, outside kysely's transactions, the same SQL with the same
 * parameters answers the rows read before until the connection's generation moves (any write by
 * this process, any commit by another), so a list asked again over unchanged data costs its
 * compilation and a map lookup. The rows come back frozen, on both databases. Past KEPT_ROWS, the
 * results used least recently are let go.
 */
export async function keptRows<Row>(db: AnyKysely, query: Compilable<Row>): Promise<readonly Row[]> {
  const compiled = query.compile();
  const connection = directConnections.get(db);
  if (connection === undefined || !connection.batch.enter())
    return frozen((await db.executeQuery<Row>(compiled)).rows);
  const generation = connection.batch.generation;
  let state = keptStates.get(db);
  if (state === undefined || state.generation !== generation) {
    state = { generation, rows: 0, results: new Map() };
    keptStates.set(db, state);
  }
  const key = `${compiled.sql}\u0000${JSON.stringify(compiled.parameters)}`;
  const results = state.results;
  const kept = results.get(key) as readonly Row[] | undefined;
  if (kept !== undefined) {
    // Moved last: the map's order is the order of use.
    results.delete(key);
    results.set(key, kept);
    return kept;
  }
  const rows = frozen((await db.executeQuery<Row>(compiled)).rows);
  // A write between the look-up and the read (another request's, while this one awaited) makes
  // the rows newer than the generation they would be kept under: they are answered, not kept.
  // Nor is a result larger than all that may be kept: it would only push out all the others.
  if (connection.batch.generation === generation && rows.length < KEPT_ROWS && !results.has(key)) {
    state.rows += rows.length + 1;
    results.set(key, rows);
    for (const [oldest, old] of results) {
      if (state.rows <= KEPT_ROWS) break;
      results.delete(oldest);
      state.rows -= old.length + 1;
    }
  }
  return rows;
}

// The PostgreSQL pools' root Kyselys (createDb). A transaction is another Kysely object, so it is
// never found here and counts what it sees, its own rows included.
const postgresRoots = new WeakSet<object>();

export function registerPostgresRoot(db: object): void {
  postgresRoots.add(db);
}

/** Counts kept per PostgreSQL root, all read in one snapshot of the database. */
interface SnapshotCounts {
  snapshot: string;
  counts: Map<string, number>;
}

const snapshotCounts = new WeakMap<object, SnapshotCounts>();

/**
 * When a root's snapshot may next be checked. A check that finds another snapshot cost a round
 * trip for nothing; while the server's other databases or clients commit many times a second (a
 * test suite beside the bench did ~40), checking before every count would only add that trip, so
 * after a miss counts are read straight for a while (and kept for when it is quiet again).
 */
const nextCheck = new WeakMap<object, number>();
const CHECK_PAUSE_MS = 1000;

/** Counts kept at once under one snapshot; beyond them, they start over. */
const KEPT_COUNTS = 1000;

const CURRENT_SNAPSHOT = CompiledQuery.raw("select pg_current_snapshot()::text as snapshot");

/**
 * countRows, its answer kept as keptRows keeps rows on SQLite. On PostgreSQL a count over most of
 * a large table is most of a list's time (~5 ms for 70,000 assets, bench/inventory.ts), so it is
 * kept too, under the snapshot it was read in: a snapshot names every transaction it sees as
 * committed, and any commit or rollback since, by any connection, gives the next statement
 * another one. While the snapshot a statement gets now is the one a count was read in, that count
 * is still exact; checking costs one short statement instead of the count.
 */
export async function keptCount<DB, TB extends keyof DB, O>(
  db: Kysely<DB>,
  query: SelectQueryBuilder<DB, TB, O>,
): Promise<number> {
  if (postgresRoots.has(db)) return snapshotCount(db as AnyKysely, countQuery(db, query).compile());
  const [row] = await keptRows(db as AnyKysely, countQuery(db, query));
  return Number(row.count);
}

async function snapshotCount(db: AnyKysely, counted: CompiledQuery): Promise<number> {
  const key = `${counted.sql}\u0000${JSON.stringify(counted.parameters)}`;
  const kept = snapshotCounts.get(db);
  const count = kept?.counts.get(key);
  if (kept !== undefined && count !== undefined && Date.now() >= (nextCheck.get(db) ?? 0)) {
    const [now] = (await db.executeQuery<{ snapshot: string }>(CURRENT_SNAPSHOT)).rows;
    if (now.snapshot === kept.snapshot) return count;
    nextCheck.set(db, Date.now() + CHECK_PAUSE_MS);
  }
  // One statement: the count and the snapshot it was read in.
  const [row] = (
    await db.executeQuery<{ snapshot: string; count: unknown }>(
      CompiledQuery.raw(`select pg_current_snapshot()::text as snapshot, (${counted.sql}) as count`, [
        ...counted.parameters,
      ]),
    )
  ).rows;
  let state = snapshotCounts.get(db);
  if (state === undefined || state.snapshot !== row.snapshot || state.counts.size >= KEPT_COUNTS) {
    state = { snapshot: row.snapshot, counts: new Map() };
    snapshotCounts.set(db, state);
  }
  state.counts.set(key, Number(row.count));
  return Number(row.count);
}
