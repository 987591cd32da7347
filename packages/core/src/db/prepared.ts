import type BetterSqlite3 from "better-sqlite3";
import { type Compilable, CompiledQuery, type Kysely, type SelectQueryBuilder } from "kysely";
import type { AnyKysely } from "./database.ts";
import { countQuery, dialectOf } from "./dialect.ts";
import type { ReadBatch } from "./read-batch.ts";
import type { SnapshotWatch } from "./snapshot-watch.ts";
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
  generation: unknown;
  rows: number;
  /** In the order of their last use, the least recent first. */
  results: Map<string, readonly unknown[]>;
}

const keptStates = new WeakMap<object, KeptState>();

// The PostgreSQL pools' root Kyselys (createDb), each with the watch of its database's snapshot. A
// transaction is another Kysely object, so it is never found here and reads what it sees, its own
// rows included.
const snapshotWatches = new WeakMap<object, SnapshotWatch>();

export function registerPostgresRoot(db: object, watch: SnapshotWatch): void {
  snapshotWatches.set(db, watch);
}

/**
 * The generation results read now may be kept under: on SQLite the connection's (read-batch.ts),
 * on PostgreSQL the token of the database's snapshot (snapshot-watch.ts). Undefined inside a
 * transaction, or while PostgreSQL's checks pause: then nothing is kept.
 */
async function keptGeneration(db: object): Promise<unknown> {
  const connection = directConnections.get(db);
  if (connection === undefined) return snapshotWatches.get(db)?.current();
  return connection.batch.enter() ? connection.batch.generation : undefined;
}

/** The generation last seen, with no new check: a value read under another must not be kept. */
function latestGeneration(db: object): unknown {
  const connection = directConnections.get(db);
  return connection ? connection.batch.generation : snapshotWatches.get(db)?.latest;
}

/**
 * An object that stays the same for as long as nothing kept on this database (by prepared() on
 * SQLite, by keptRows on both) may have changed, for a RowMemo of values that depend on any of it;
 * undefined when nothing can be kept (inside a transaction, or while PostgreSQL's checks pause).
 */
export async function databaseGeneration(db: object): Promise<object | undefined> {
  const generation = await keptGeneration(db);
  return generation === undefined ? undefined : generationToken(db, generation);
}

/**
 * Whether `token` (from databaseGeneration) is still the latest generation known, with no new
 * check: what a value computed after it was taken may be kept under.
 */
export function isLatestGeneration(db: object, token: object): boolean {
  const latest = latestGeneration(db);
  return latest !== undefined && generationToken(db, latest) === token;
}

const generationTokens = new WeakMap<object, { generation: unknown; token: object }>();

// PostgreSQL's generations are objects already; SQLite's numbers get one object each.
function generationToken(db: object, generation: unknown): object {
  if (typeof generation === "object" && generation !== null) return generation;
  let tokens = generationTokens.get(db);
  if (tokens === undefined || tokens.generation !== generation) {
    tokens = { generation, token: Object.freeze({}) };
    generationTokens.set(db, tokens);
  }
  return tokens.token;
}

/**
 * A select built per request (a list with its filters, sort and page) whose result is kept: the
 * same SQL with the same parameters answers the rows read before for as long as nothing may have
 * changed (keptGeneration: on SQLite any write by this process or commit by another, on PostgreSQL
 * any commit on the server), so a list asked again over unchanged data costs its compilation and a
 * map lookup (and on PostgreSQL one short statement a turn). The rows come back frozen, on both
 * databases. Past KEPT_ROWS, the results used least recently are let go.
 */
export async function keptRows<Row>(db: AnyKysely, query: Compilable<Row>): Promise<readonly Row[]> {
  const compiled = query.compile();
  const generation = await keptGeneration(db);
  if (generation === undefined) return frozen((await db.executeQuery<Row>(compiled)).rows);
  let state = keptStates.get(db);
  if (state === undefined || state.generation !== generation) {
    state = { generation, rows: 0, results: new Map() };
    keptStates.set(db, state);
  }
  const key = `${compiled.sql}\u0000${JSON.stringify(compiled.parameters)}`;
  const results = state.results;
  const found = results.get(key) as readonly Row[] | undefined;
  if (found !== undefined) {
    // Moved last: the map's order is the order of use.
    results.delete(key);
    results.set(key, found);
    return found;
  }
  const rows = frozen((await db.executeQuery<Row>(compiled)).rows);
  // A change seen between the look-up and the read (another request's write, while this one
  // awaited) makes the rows newer than the generation they would be kept under: they are answered,
  // not kept. Nor is a result larger than all that may be kept: it would only push out all the
  // others.
  if (latestGeneration(db) === generation && rows.length < KEPT_ROWS && !results.has(key)) {
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

/**
 * countRows, its answer kept as keptRows keeps rows. On PostgreSQL a count over most of a large
 * table is most of a list's time (~5 ms for 70,000 assets, bench/inventory.ts).
 */
export async function keptCount<DB, TB extends keyof DB, O>(
  db: Kysely<DB>,
  query: SelectQueryBuilder<DB, TB, O>,
): Promise<number> {
  const [row] = await keptRows(db as AnyKysely, countQuery(db, query));
  return Number(row.count);
}
