import type BetterSqlite3 from "better-sqlite3";

/**
 * One read transaction for all the reads of one event-loop turn on a SQLite connection, and a
 * generation number that changes whenever what those reads could see may have changed.
 *
 * Alone, every SELECT is its own transaction, and on a WAL database each one takes and drops the
 * file's shared lock and checks the file with about three system calls; under load on a shared
 * machine that was much of what a one-row read cost (strace: 9 calls for a 3-query request). The
 * reads of a turn (usually several requests') share one transaction instead, and see one snapshot,
 * which is as fresh as the turn is short: it ends on setImmediate.
 *
 * Anything that is not a plain read (a write, kysely's BEGIN IMMEDIATE) ends the batch first, so it
 * runs exactly as it would alone; and a batch is never opened inside a transaction kysely holds,
 * whose reads must see its own uncommitted rows.
 */
export class ReadBatch {
  readonly #sqlite: BetterSqlite3.Database;
  readonly #begin: BetterSqlite3.Statement;
  readonly #commit: BetterSqlite3.Statement;
  readonly #dataVersion: BetterSqlite3.Statement;
  #open = false;
  #seenVersion: unknown;
  #generation = 0;

  constructor(sqlite: BetterSqlite3.Database) {
    this.#sqlite = sqlite;
    this.#begin = sqlite.prepare("begin");
    this.#commit = sqlite.prepare("commit");
    this.#dataVersion = sqlite.prepare("pragma data_version").pluck();
  }

  /**
   * Changes whenever this connection may write, or wrote, and whenever another connection (another
   * process) committed since the last batch: results read under one generation are still true.
   */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Called before a read: joins this turn's read transaction, opening it if needed. False when a
   * transaction of kysely's holds the connection; the read then belongs to that one.
   */
  enter(): boolean {
    if (this.#open) return true;
    if (this.#sqlite.inTransaction) return false;
    this.#begin.run();
    this.#open = true;
    setImmediate(this.end);
    // SQLite's data_version moves when another connection commits; this one's own writes pass
    // through write() below.
    const version = this.#dataVersion.get();
    if (version !== this.#seenVersion) {
      this.#seenVersion = version;
      this.#generation++;
    }
    return true;
  }

  /** Called before anything but a plain read: ends the batch and starts a new generation. */
  readonly write = (): void => {
    this.end();
    this.#generation++;
  };

  /**
   * Called before a write to side tables only (sideTable below): it ends the batch, so the next
   * read sees it, but keeps the generation, since no kept result is read from those tables.
   */
  readonly writeAside = (): void => {
    this.end();
  };

  /** Ends the read transaction if one is open (on setImmediate, before a write, on close). */
  readonly end = (): void => {
    if (!this.#open) return;
    this.#open = false;
    if (this.#sqlite.open && this.#sqlite.inTransaction) this.#commit.run();
  };
}

// Tables that kept results never read (prepared() is not used on them): a delivery outbox that a
// worker writes hundreds of times a second would otherwise end every kept answer of the service.
const sideTables = new Set<string>();

/** Declares a table whose writes need not end results kept from the others (see writeAside). */
export function sideTable(name: string): void {
  sideTables.add(name);
}

// Kysely quotes every table it names after these words; our own SQL, not request data.
const TABLE_NAMED = /\b(?:from|into|update|join)\s+"([^"]+)"/gi;

// Columns whose value a kept result may show out of date, because whoever reads them from a kept
// row knows better (a token's last use: its reader keeps its own time of the touch it made). An
// update of these alone would otherwise end every kept answer once a minute per token in use.
const sideColumns = new Map<string, ReadonlySet<string>>();

/** Declares columns of a table whose updates alone need not end kept results (see writeAside). */
export function sideColumn(table: string, column: string): void {
  sideColumns.set(table, new Set([...(sideColumns.get(table) ?? []), column]));
}

// How kysely writes `update "t" set "a" = ?, "b" = ? where …`.
const UPDATE_OF = /^update "([^"]+)" set (.+?) where /i;
const SET_COLUMN = /"([^"]+)" = \?(?:, |$)/gy;

/** Whether this SQL updates side columns of one table only (nothing else it sets, no join). */
function updatesOnlySideColumns(sql: string): boolean {
  const update = UPDATE_OF.exec(sql);
  const columns = update && sideColumns.get(update[1]);
  if (!update || !columns || /\b(?:from|join)\b/i.test(sql)) return false;
  let end = 0;
  for (const set of update[2].matchAll(SET_COLUMN)) {
    if (!columns.has(set[1])) return false;
    end = (set.index ?? 0) + set[0].length;
  }
  return end > 0 && end === update[2].length;
}

/** Whether this SQL writes to side tables only, and names no other table; or side columns only. */
export function touchesOnlySideTables(sql: string): boolean {
  if (updatesOnlySideColumns(sql)) return true;
  let named = false;
  for (const match of sql.matchAll(TABLE_NAMED)) {
    if (!sideTables.has(match[1])) return false;
    named = true;
  }
  return named;
}
