import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  sql,
} from "kysely";
import pg from "pg";
import type { Logger } from "pino";
import { registerDirectSqlite, registerPostgresRoot } from "./prepared.ts";
import { ReadBatch } from "./read-batch.ts";
import { noteWritesOf, SnapshotWatch } from "./snapshot-watch.ts";
import { createStatementCache } from "./statement-cache.ts";

export type DialectName = "sqlite" | "postgres";

// biome-ignore lint/suspicious/noExplicitAny: each service narrows this with its own table interface.
export type AnyKysely = Kysely<any>;

export interface Database<Tables = unknown> {
  readonly dialect: DialectName;
  readonly db: Kysely<Tables>;
  /**
   * Closes the database once the queries in flight have ended; with `interrupt`, at once, failing
   * them, so that a query or transaction that may never end (a lock wait, a stuck handler) cannot
   * hold up a stop whose grace period is over. SQLite's queries never wait: it always closes at once.
   */
  close(options?: { interrupt?: boolean }): Promise<void>;
}

export interface DatabaseOptions {
  /** Prepared statements kept per SQLite connection (kysely would prepare on every query). */
  statementCacheSize?: number;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** Where a PostgreSQL connection lost while idle in the pool is reported (a process warning without it). */
  logger?: Logger;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;
const DATE_OID = 1082;

/** Parses a database URL and says what is wrong with it in words a user can act on. */
export function parseDatabaseUrl(url: string): { dialect: DialectName; location: string } {
  if (url.startsWith("sqlite:")) {
    const location = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (location === "")
      throw new Error(`database URL "${url}" names no file; use sqlite:PATH or sqlite::memory:`);
    return { dialect: "sqlite", location };
  }
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    return { dialect: "postgres", location: url };
  }
  throw new Error(
    `database URL "${redactUrl(url)}" is not supported; use sqlite:PATH or postgres://USER@HOST:PORT/DB`,
  );
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

// SQLite runs DDL inside transactions perfectly well; kysely's adapter just does not claim it, which
// would let a failing migration leave half its tables behind.
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

// A deferred `begin` reads under a shared lock and upgrades to the write lock at the first write;
// when another process wrote in between, that upgrade fails with SQLITE_BUSY(_SNAPSHOT) at once,
// busy_timeout or not. Taking the write lock at the start makes other processes wait their turn
// instead, and makes a read inside a transaction as good as a locked read (see claims.ts).
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

class AnvilSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

export function createDb<Tables = unknown>(url: string, options: DatabaseOptions = {}): Database<Tables> {
  const { dialect, location } = parseDatabaseUrl(url);
  if (dialect === "sqlite") {
    if (location !== ":memory:") mkdirSync(dirname(resolve(location)), { recursive: true });
    const sqlite = new BetterSqlite3(location);
    // A file that is not a database opens, and fails only at its first statement.
    try {
      sqlite.pragma("journal_mode = WAL");
      sqlite.pragma("foreign_keys = ON");
      sqlite.pragma("busy_timeout = 5000");
      sqlite.pragma("synchronous = NORMAL");
      // SQLite keeps 2 MiB of pages by default: a list's count, which walks an index of 100,000
      // assets (bench/inventory.ts), then read most pages back from the OS on every request, at
      // twice the CPU. Up to 64 MiB (used only as pages are read) holds such indexes.
      sqlite.pragma("cache_size = -65536");
    } catch (error) {
      sqlite.close();
      throw error;
    }
    const batch = new ReadBatch(sqlite);
    const db = new Kysely<Tables>({
      dialect: new AnvilSqliteDialect({
        database: createStatementCache(sqlite, options.statementCacheSize ?? 200, batch),
      }),
    });
    registerDirectSqlite(db, sqlite, batch);
    return { dialect, db, close: () => db.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: location,
    max: options.poolSize ?? 10,
    // PostgreSQL's JIT compiles any query its planner costs high, such as a search's count over a
    // large table with a dozen ILIKE subqueries: 1.3 s of compiling for a query that then runs in
    // 0.24 s (bench/inventory.ts). Short API queries never earn it back. Nor do they earn the
    // parallel workers it starts for a scan or sort it costs high enough: starting them took
    // ~30 ms of a 4 ms query (a list sorted by holder sorts every user; bench/inventory.ts), and
    // concurrent requests already keep the cores busy. An index read costs the planner 4 pages by
    // default, a disk's seek; on an SSD or in memory it is about 1: at 4 an inventory search joined
    // its 5,000 index-found assets by reading all 100,000 (145 ms), at 1.1 by their ids (32 ms).
    options: "-c jit=off -c max_parallel_workers_per_gather=0 -c random_page_cost=1.1",
    types: {
      getTypeParser: (oid: number, format?: string) => {
        // Counts and bigint ids come back as numbers on both databases.
        if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
        // pg would make a date a Date at local midnight, which names another day in half the time
        // zones; a calendar date stays the `YYYY-MM-DD` text SQLite stores.
        if (oid === DATE_OID) return (value: string) => value;
        return pg.types.getTypeParser(oid, format as "text");
      },
    },
  });
  // A pooled connection that the server ends while idle (restart, failover, pg_terminate_backend)
  // is emitted here; unheard, the event would kill the process. The pool opens a new one on demand.
  // Only the error's message and code are logged: pg hangs the whole client, connection settings
  // included, on the error object.
  pool.on("error", (error: Error & { code?: string }) => {
    const database = redactUrl(location);
    if (options.logger)
      options.logger.warn(
        { database, code: error.code, reason: error.message },
        "idle database connection lost",
      );
    else process.emitWarning(`idle database connection to ${database} lost: ${error.message}`);
  });
  // Every connection the pool has open, for close({ interrupt }) to end itself.
  const open = new Set<pg.PoolClient>();
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  const watch = new SnapshotWatch(db as AnyKysely);
  pool.on("connect", (client) => {
    open.add(client);
    noteWritesOf(client, watch.noteWrite);
  });
  pool.on("remove", (client) => open.delete(client));
  registerPostgresRoot(db, watch);
  const close = async ({ interrupt = false } = {}) => {
    const ended = db.destroy();
    if (!interrupt) return ended;
    // The pool ends once every connection it lent is given back, which one held by a handler stuck
    // in a transaction never is. Ending each connection here closes them all the same; a query
    // still running on one fails with "Connection terminated".
    void ended.catch(() => {});
    await Promise.all([...open].map((client) => client.end().catch(() => {})));
  };
  return { dialect, db, close };
}

// Node reports a refused connection to a name with several addresses (localhost as ::1 and
// 127.0.0.1) as an AggregateError without a message of its own; its parts say what happened.
function failureReason(error: unknown): string {
  if (error instanceof AggregateError && error.message === "")
    return error.errors.map(failureReason).join("; ");
  return error instanceof Error ? error.message : String(error);
}

/**
 * Opens the database and checks that it answers, so a start-up or `anvil migrate` says the
 * database is unreachable rather than failing later in whatever touched it first.
 */
export async function connectDatabase<Tables = unknown>(
  url: string,
  options: DatabaseOptions = {},
): Promise<Database<Tables>> {
  // A URL of the wrong form keeps its own message: nothing was tried yet.
  parseDatabaseUrl(url);
  const cannotConnect = (error: unknown) =>
    new Error(`cannot connect to ${redactUrl(url)}: ${failureReason(error)}`, { cause: error });
  let database: Database<Tables>;
  try {
    database = createDb<Tables>(url, options);
  } catch (error) {
    throw cannotConnect(error);
  }
  try {
    await sql`select 1`.execute(database.db);
  } catch (error) {
    // The failure to connect is the news; a failure to tidy up after it would only hide it.
    await database.close().catch(() => {});
    throw cannotConnect(error);
  }
  return database;
}
