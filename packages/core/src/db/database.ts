import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { type DialectAdapter, Kysely, PostgresDialect, SqliteAdapter, SqliteDialect } from "kysely";
import pg from "pg";
import { createStatementCache } from "./statement-cache.ts";

export type DialectName = "sqlite" | "postgres";

// biome-ignore lint/suspicious/noExplicitAny: each service narrows this with its own table interface.
export type AnyKysely = Kysely<any>;

export interface Database<Tables = unknown> {
  readonly dialect: DialectName;
  readonly db: Kysely<Tables>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** Prepared statements kept per SQLite connection (kysely would prepare on every query). */
  statementCacheSize?: number;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

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

class AnvilSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

export function createDb<Tables = unknown>(url: string, options: DatabaseOptions = {}): Database<Tables> {
  const { dialect, location } = parseDatabaseUrl(url);
  if (dialect === "sqlite") {
    if (location !== ":memory:") mkdirSync(dirname(resolve(location)), { recursive: true });
    const sqlite = new BetterSqlite3(location);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    sqlite.pragma("synchronous = NORMAL");
    const db = new Kysely<Tables>({
      dialect: new AnvilSqliteDialect({
        database: createStatementCache(sqlite, options.statementCacheSize ?? 200),
      }),
    });
    return { dialect, db, close: () => db.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: location,
    max: options.poolSize ?? 10,
    // Counts and bigint ids come back as numbers on both databases.
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format as "text"),
    },
  });
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { dialect, db, close: () => db.destroy() };
}
