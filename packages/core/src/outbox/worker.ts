import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type ExpressionBuilder, type SqlBool, sql } from "kysely";
import type { AnyKysely, Database } from "../db/database.ts";
import { toStoredTime } from "../db/dialect.ts";
import type { Logger } from "../log/logger.ts";
import { type Attempted, attemptsHere, attemptsInThread } from "./attempts.ts";
import { onDeliveriesQueued } from "./signal.ts";
import { OUTBOX_TABLE, type OutboxRow } from "./table.ts";

// Delivers what queueDelivery wrote. Every process of a service runs a worker on the shared
// database; a worker claims due rows, as many as it has free slots, with one conditional update
// (claims.ts) that sets a lease, so each row is sent by one process at a time, and a process killed mid-delivery leaves a lease
// that lapses and lets the row be claimed again (the receiver may then see it twice, with the
// same delivery UUID to tell). The lease outlasts an attempt, which the timeout bounds.

export interface OutboxWorkerOptions<Tables = unknown> {
  /** Any service's database: the worker reads and writes only its own table. */
  database: Database<Tables>;
  /** Where deliveries may go (Gitea's ALLOWED_HOST_LIST syntax). */
  allowedHosts: string;
  /**
   * Whether attempts run on a worker thread (the default; attempts.ts says why) rather than on
   * this event loop, where whatever patches this thread's modules (a test's DNS answers) applies.
   */
  inThread?: boolean;
  logger: Logger;
  /** How long one attempt may take, resolving, connecting and reading the answer included. */
  timeoutMs?: number;
  /** Deliveries in flight at once in this process. */
  concurrency?: number;
  /** The waits before each retry; a delivery is tried once plus once per entry, then failed. */
  retries?: number[];
  /** How often the outbox is polled for rows other processes queued, and for retries come due. */
  pollMs?: number;
  /** How long a claim holds; past it, a delivery whose process died is claimed again. */
  leaseMs?: number;
  /** How long a sent or failed delivery stays in the history (Gitea keeps 7 days too). */
  keepMs?: number;
}

export interface OutboxWorker {
  /** Stops polling and resolves once the deliveries in flight have ended (the timeout bounds them). */
  stop(): Promise<void>;
  /** Polls now: call it after committing a transaction that queued deliveries. */
  wake(): void;
}

/** What a delivery's result sets on its row; nulls of the two times leave them as they are. */
interface Outcome {
  status: "pending" | "delivered" | "failed";
  is_succeed: boolean;
  delivered_at: string | Date | null;
  next_attempt_at: string | Date | null;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
}

/** The columns of writeResults' VALUES rows, with their types on PostgreSQL (SQLite needs none). */
const RESULT_COLUMNS = [
  ["id", "bigint"],
  ["status", "varchar"],
  ["is_succeed", "boolean"],
  ["delivered_at", "timestamptz"],
  ["next_attempt_at", "timestamptz"],
  ["response_status", "integer"],
  ["response_headers", "text"],
  ["response_body", "text"],
  ["error", "text"],
  ["duration_ms", "integer"],
] as const;
/**
 * Lets the requests that arrived meanwhile in before the settle's next statement: on SQLite each
 * one blocks the event loop, and a request behind the whole settle (a read, a write with its
 * returned rows) would wait for all of it.
 */
const requestsWaitingFirst = () => new Promise<void>((resolve) => setImmediate(resolve));
const DEFAULT_RETRIES = [10_000, 30_000, 120_000, 600_000];
const DAY = 24 * 3600 * 1000;
const SWEEP_EVERY_MS = 3600 * 1000;

export function startOutboxWorker<Tables>(options: OutboxWorkerOptions<Tables>): OutboxWorker {
  const { database, logger } = options;
  const db = database.db as AnyKysely;
  const dialect = database.dialect;
  const timeoutMs = options.timeoutMs ?? 5000;
  const attempts = ((options.inThread ?? true) ? attemptsInThread : attemptsHere)(
    options.allowedHosts,
    timeoutMs,
  );
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const retries = options.retries ?? DEFAULT_RETRIES;
  const pollMs = options.pollMs ?? 2000;
  const leaseMs = options.leaseMs ?? timeoutMs + 60_000;
  const keepMs = options.keepMs ?? 7 * DAY;
  let sweptAt = 0;
  const worker = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const inFlight = new Set<Promise<void>>();
  let polling: Promise<void> | undefined;
  let pollAgain = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const stored = (date: Date) => toStoredTime(date, dialect);

  const unclaimed =
    (now: Date) => (eb: ExpressionBuilder<Record<typeof OUTBOX_TABLE, OutboxRow>, typeof OUTBOX_TABLE>) =>
      eb.and([
        eb("status", "=", "pending"),
        eb("next_attempt_at", "<=", stored(now)),
        eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", stored(now))]),
      ]);

  // Whether anything is due, by a plain read: on SQLite every write, even one that changes no
  // row, empties the results the API keeps (prepared.ts), so an idle poll must not write.
  async function anyDue(now: Date): Promise<boolean> {
    const row = await db
      .selectFrom(OUTBOX_TABLE)
      .select("id")
      .where(unclaimed(now))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  // Claims up to `limit` due rows in one update whose subquery picks them. On PostgreSQL the
  // WHERE is checked again on a row a concurrent claim has just written (and SKIP LOCKED lets it
  // take other rows than those), so two workers never both win a row; the ids are read once
  // (`= any(array(…))`), since as `in (…)` the planner may run the locking subquery again for each
  // row it updates, every rerun skipping the rows just claimed: a limit of 4 took 100 rows. SQLite
  // runs the whole statement under its write lock, so what the subquery read still holds; checked
  // again there, the conditions led its planner to walk every due row of the index per claim.
  async function claim(trx: AnyKysely, limit: number, now: Date): Promise<OutboxRow[]> {
    const due = trx
      .selectFrom(OUTBOX_TABLE)
      .select("id")
      .where(unclaimed(now))
      .orderBy("next_attempt_at")
      .orderBy("id")
      .limit(limit);
    const rows = await trx
      .updateTable(OUTBOX_TABLE)
      .set({
        claimed_until: stored(new Date(now.getTime() + leaseMs)),
        claimed_by: worker,
        attempts: sql`attempts + 1`,
      })
      .$if(dialect === "postgres", (update) =>
        update.where(sql<SqlBool>`id = any(array(${due.forUpdate().skipLocked()}))`).where(unclaimed(now)),
      )
      .$if(dialect === "sqlite", (update) => update.where(sql<SqlBool>`id in (${due})`))
      .returningAll()
      .execute();
    return (rows as OutboxRow[]).sort((a, b) => Number(a.id) - Number(b.id));
  }

  function outcome(row: OutboxRow, result: Attempted, now: Date): Outcome {
    const answer =
      result.kind === "answered"
        ? {
            response_status: result.status,
            response_headers: result.headers,
            response_body: result.body,
            error: result.status >= 300 && result.status < 400 ? "redirects are not followed" : null,
          }
        : { response_status: null, response_headers: null, response_body: null, error: result.error };
    const common = { ...answer, duration_ms: result.durationMs, delivered_at: null, next_attempt_at: null };
    if (result.kind === "answered" && result.status >= 200 && result.status < 300) {
      return { ...common, status: "delivered", is_succeed: true, delivered_at: stored(now) };
    }
    const wait = retries[row.attempts - 1];
    if (result.kind === "refused" || wait === undefined)
      return { ...common, status: "failed", is_succeed: false };
    return {
      ...common,
      status: "pending",
      is_succeed: false,
      next_attempt_at: stored(new Date(now.getTime() + wait)),
    };
  }

  interface Finished {
    id: number;
    changes: Outcome;
    log: Record<string, unknown>;
  }
  // Results not yet written: each settle writes all of them together with the next claim, so a
  // drain costs a few writes per batch rather than two writes and two reads per delivery (on
  // SQLite each write also empties the results the API keeps).
  const finished: Finished[] = [];

  async function deliver(row: OutboxRow): Promise<void> {
    const id = Number(row.id);
    const log = { delivery: id, topic: row.topic, topicId: Number(row.topic_id), attempt: row.attempts };
    const result = await attempts.attempt({
      url: row.url,
      method: row.method,
      headers: row.request_headers,
      body: row.request_body,
    });
    finished.push({ id, changes: outcome(row, result, new Date()), log });
  }

  function report(results: Finished[], written: ReadonlySet<number>) {
    for (const { id, changes, log } of results) {
      const { status } = changes;
      if (!written.has(id))
        logger.warn(log, "outbox: the claim on a delivery lapsed before its result was written");
      else if (status === "delivered") logger.debug(log, "outbox: delivered");
      else
        logger.warn(
          { ...log, status, answer: changes.response_status, error: changes.error },
          "outbox: delivery failed",
        );
    }
  }

  // Writes a batch's results with one statement, as a drain settles several at a time: one
  // statement is one commit on SQLite (each a write the API's thread waits for) and one round trip
  // on PostgreSQL. A row whose claim lapsed (another worker holds it now) is left alone; the ids
  // written come back. Its rows are a VALUES list, whose columns both databases name column1….
  async function writeResults(trx: AnyKysely, results: Finished[]): Promise<Set<number>> {
    if (results.length === 0) return new Set();
    const cell = (value: unknown, type: string) =>
      dialect === "postgres" ? sql`cast(${value} as ${sql.raw(type)})` : sql`${value}`;
    const rows = results.map(
      ({ id, changes }) =>
        sql`(${sql.join(RESULT_COLUMNS.map(([column, type]) => cell(column === "id" ? id : changes[column], type)))})`,
    );
    const named = sql.join(
      RESULT_COLUMNS.map(([column], i) => sql`${sql.ref(`column${i + 1}`)} as ${sql.ref(column)}`),
    );
    const own = (column: string) => sql.ref(`${OUTBOX_TABLE}.${column}`);
    const { rows: updated } = await sql<{ id: number | string }>`update ${sql.table(OUTBOX_TABLE)} set
      status = v.status, is_succeed = v.is_succeed,
      delivered_at = coalesce(v.delivered_at, ${own("delivered_at")}),
      next_attempt_at = coalesce(v.next_attempt_at, ${own("next_attempt_at")}),
      response_status = v.response_status, response_headers = v.response_headers,
      response_body = v.response_body, error = v.error, duration_ms = v.duration_ms, claimed_until = null
      from (select ${named} from (values ${sql.join(rows)}) as r) as v
      where ${own("id")} = v.id and ${own("claimed_by")} = ${worker} and ${own("status")} = 'pending'
      returning ${own("id")}`.execute(trx);
    return new Set(updated.map(({ id }) => Number(id)));
  }

  // PostgreSQL commits a transaction's statements with one WAL flush, and this one need not wait
  // for it: a crash that loses the last settles' commits loses only claims and results, and the
  // rows are then delivered again once their leases lapse, as after a process killed mid-delivery
  // (the same delivery UUID tells the receiver). The settle then holds one of the API's pooled
  // connections for its statements alone. SQLite's commits cost little in WAL mode, and a
  // transaction there would hold the file's write lock across awaits, during which another
  // connection of this process (a second worker) would block the thread for its busy_timeout;
  // each statement is its own commit there.
  function inOneCommit<T>(work: (trx: AnyKysely) => Promise<T>): Promise<T> {
    if (dialect !== "postgres") return work(db);
    return db.transaction().execute(async (trx) => {
      await sql`set local synchronous_commit = off`.execute(trx);
      return work(trx);
    });
  }

  // Writes the finished results and claims up to `free` due rows, together.
  async function settle(free: number, now: Date): Promise<OutboxRow[]> {
    const results = finished.splice(0);
    try {
      // On PostgreSQL a settle that writes results anyway claims without asking first: a claim
      // that finds nothing costs what the question would, and the question is a round trip more
      // (in a queue for a pooled connection, behind the API's queries, under load).
      const due = free > 0 && ((dialect === "postgres" && results.length > 0) || (await anyDue(now)));
      if (results.length === 0 && !due) return [];
      await requestsWaitingFirst();
      const { written, rows } = await inOneCommit(async (trx) => {
        const written = await writeResults(trx, results);
        if (dialect === "sqlite") await requestsWaitingFirst();
        return { written, rows: due ? await claim(trx, free, now) : [] };
      });
      report(results, written);
      return rows;
    } catch (error) {
      // The claims stay until their leases lapse; then the rows are tried again.
      for (const { log } of results)
        logger.error({ ...log, err: error }, "outbox: a delivery's result could not be written");
      throw error;
    }
  }

  // Keeps the table bounded: every process sweeps now and then; the deletes are idempotent.
  async function sweep(now: Date): Promise<void> {
    if (now.getTime() - sweptAt < SWEEP_EVERY_MS) return;
    sweptAt = now.getTime();
    await db
      .deleteFrom(OUTBOX_TABLE)
      .where("created_at", "<", stored(new Date(now.getTime() - keepMs)))
      .where("status", "<>", "pending")
      .execute();
  }

  async function poll(): Promise<void> {
    await sweep(new Date());
    const rows = await settle(stopped ? 0 : concurrency - inFlight.size, new Date());
    for (const row of rows) {
      const delivery: Promise<void> = deliver(row)
        // The claim stays until its lease lapses; then the row is tried again.
        .catch((error) => logger.error({ delivery: Number(row.id), err: error }, "outbox: a delivery failed"))
        .finally(() => {
          inFlight.delete(delivery);
          // Settled once half the slots are free (or at the next poll): a drain then writes
          // results and claims rows in batches of half the concurrency, not one by one.
          if (inFlight.size <= concurrency / 2) wakeSoon();
        });
      inFlight.add(delivery);
    }
  }

  // Deliveries that end in one turn of the event loop are settled together, after the I/O of
  // that turn (the API's requests among it) has been served.
  let wakeQueued = false;
  function wakeSoon() {
    if (wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      wake();
    });
  }

  function schedule() {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(wake, pollMs);
    timer.unref();
  }

  function wake() {
    if (stopped) return;
    if (polling !== undefined) {
      pollAgain = true;
      return;
    }
    clearTimeout(timer);
    polling = poll()
      .catch((error) => logger.error({ err: error }, "outbox: polling for deliveries failed"))
      .finally(() => {
        polling = undefined;
        if (pollAgain) {
          pollAgain = false;
          wake();
        } else {
          schedule();
        }
      });
  }

  // Woken when this process has committed deliveries (signal.ts).
  const unsubscribe = onDeliveriesQueued(wake);
  wake();
  return {
    wake,
    async stop() {
      unsubscribe();
      stopped = true;
      clearTimeout(timer);
      await polling;
      await Promise.all(inFlight);
      if (finished.length > 0)
        await settle(0, new Date()).catch((error) =>
          logger.error({ err: error }, "outbox: writing the last results failed"),
        );
      await attempts.close();
    },
  };
}
