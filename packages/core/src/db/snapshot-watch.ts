import { CompiledQuery } from "kysely";
import type pg from "pg";
import type { AnyKysely } from "./database.ts";

// What SQLite's ReadBatch generation is to kept results, for PostgreSQL: an object that stays the
// same for as long as nothing in the database may have changed. PostgreSQL says so itself:
// `pg_current_snapshot()` names every transaction a new statement would see as committed, and it
// moves with every transaction that writes anything, by any connection (an id is handed out, then
// the transaction ends). It never comes back to an earlier value, so results read after a check
// and kept under its token are only ever found again while nothing has been committed since that
// check, which is when they are still true; a commit between the check and the read leaves them
// kept under a token no later check gives.
//
// One check serves the reads of one event-loop turn, as SQLite's batch does (a request's reads
// see the database as it was at most a turn before). A check started before a write of this
// process completed is not used after it: the writer must see what it wrote.
//
// The snapshot covers the whole server, other databases included: while something writes there
// many times a second (a test suite beside the service), every check finds a new snapshot and
// costs a round trip for nothing, so after two changes in a row checks pause for a while and reads
// go straight to the database.

const CURRENT_SNAPSHOT = CompiledQuery.raw("select pg_current_snapshot()::text as snapshot");
/** Plain reads; anything else (a write, BEGIN, COMMIT, a CTE that may write) counts as a write. */
const PLAIN_READ = /^\s*select\b/i;
const PAUSE_MS = 1000;

/** Stands for one snapshot of the database: the same object while the snapshot is the same. */
export interface SnapshotToken {
  readonly snapshot: string;
}

interface Check {
  writes: number;
  turnOver: boolean;
  token: Promise<SnapshotToken | undefined>;
}

export class SnapshotWatch {
  readonly #db: AnyKysely;
  #writes = 0;
  #check: Check | undefined;
  #token: SnapshotToken | undefined;
  #changesInARow = 0;
  #pausedUntil = 0;

  constructor(db: AnyKysely) {
    this.#db = db;
  }

  /** The token of the last snapshot seen; compare it after a read with the one it was read under. */
  get latest(): SnapshotToken | undefined {
    return this.#token;
  }

  /** Called when a statement of this process that may have written has completed. */
  readonly noteWrite = (): void => {
    this.#writes++;
  };

  /** The token of the database's snapshot now; undefined while checks pause. */
  current(): Promise<SnapshotToken | undefined> {
    if (Date.now() < this.#pausedUntil) return Promise.resolve(undefined);
    const check = this.#check;
    if (check !== undefined && !check.turnOver && check.writes === this.#writes) return check.token;
    const next: Check = { writes: this.#writes, turnOver: false, token: this.#read() };
    setImmediate(() => {
      next.turnOver = true;
    });
    this.#check = next;
    return next.token;
  }

  async #read(): Promise<SnapshotToken | undefined> {
    const [row] = (await this.#db.executeQuery<{ snapshot: string }>(CURRENT_SNAPSHOT)).rows;
    if (this.#token?.snapshot === row.snapshot) {
      this.#changesInARow = 0;
      return this.#token;
    }
    if (this.#token !== undefined && ++this.#changesInARow >= 2) {
      this.#changesInARow = 0;
      this.#pausedUntil = Date.now() + PAUSE_MS;
    }
    this.#token = Object.freeze({ snapshot: row.snapshot });
    return this.#token;
  }
}

/**
 * Makes a pooled connection tell `noteWrite` whenever a statement that is not a plain read has
 * completed (kysely runs every statement, BEGIN and COMMIT included, through `client.query`). The
 * note is taken before whoever awaits the statement goes on.
 */
export function noteWritesOf(client: pg.PoolClient, noteWrite: () => void): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    const first = args[0];
    const text = typeof first === "string" ? first : (first as { text?: unknown } | undefined)?.text;
    if (!(typeof text === "string" && PLAIN_READ.test(text)) && result instanceof Promise)
      result.then(noteWrite, noteWrite);
    return result;
  };
}
