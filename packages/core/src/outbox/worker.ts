import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { sql } from "kysely";
import { claimed } from "../db/claims.ts";
import type { AnyKysely, Database } from "../db/database.ts";
import { toStoredTime } from "../db/dialect.ts";
import type { Logger } from "../log/logger.ts";
import { type AttemptResult, attemptDelivery } from "./deliver.ts";
import { type AllowedHosts, parseAllowedHostList } from "./hosts.ts";
import { OUTBOX_TABLE, type OutboxRow } from "./table.ts";

// Delivers what queueDelivery wrote. Every process of a service runs a worker on the shared
// database; a worker claims a due row with a conditional update (claims.ts) that sets a lease, so
// each row is sent by one process at a time, and a process killed mid-delivery leaves a lease
// that lapses and lets the row be claimed again (the receiver may then see it twice, with the
// same delivery UUID to tell). The lease outlasts an attempt, which the timeout bounds.

export interface OutboxWorkerOptions<Tables = unknown> {
  /** Any service's database: the worker reads and writes only its own table. */
  database: Database<Tables>;
  /** Where deliveries may go (Gitea's ALLOWED_HOST_LIST syntax, or a parsed list). */
  allowedHosts: string | AllowedHosts;
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

const DEFAULT_RETRIES = [10_000, 30_000, 120_000, 600_000];
const DAY = 24 * 3600 * 1000;
const SWEEP_EVERY_MS = 3600 * 1000;

export function startOutboxWorker<Tables>(options: OutboxWorkerOptions<Tables>): OutboxWorker {
  const { database, logger } = options;
  const db = database.db as AnyKysely;
  const dialect = database.dialect;
  const allowed =
    typeof options.allowedHosts === "string"
      ? parseAllowedHostList(options.allowedHosts)
      : options.allowedHosts;
  const timeoutMs = options.timeoutMs ?? 5000;
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

  async function claim(id: number, now: Date): Promise<OutboxRow | undefined> {
    const result = await db
      .updateTable(OUTBOX_TABLE)
      .set({
        claimed_until: stored(new Date(now.getTime() + leaseMs)),
        claimed_by: worker,
        attempts: sql`attempts + 1`,
      })
      .where("id", "=", id)
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", stored(now))
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", stored(now))]))
      .executeTakeFirstOrThrow();
    if (!claimed(result)) return undefined;
    const row = await db
      .selectFrom(OUTBOX_TABLE)
      .selectAll()
      .where("id", "=", id)
      .where("claimed_by", "=", worker)
      .executeTakeFirst();
    return row as OutboxRow | undefined;
  }

  function outcome(row: OutboxRow, result: AttemptResult, now: Date) {
    const answer =
      result.kind === "answered"
        ? {
            response_status: result.status,
            response_headers: JSON.stringify(result.headers),
            response_body: result.body,
            error: result.status >= 300 && result.status < 400 ? "redirects are not followed" : null,
          }
        : { response_status: null, response_headers: null, response_body: null, error: result.error };
    const common = { ...answer, duration_ms: result.durationMs, claimed_until: null };
    if (result.kind === "answered" && result.status >= 200 && result.status < 300) {
      return { ...common, status: "delivered", is_succeed: true, delivered_at: stored(now) };
    }
    const wait = retries[row.attempts - 1];
    if (result.kind === "refused" || wait === undefined) return { ...common, status: "failed" };
    return { ...common, next_attempt_at: stored(new Date(now.getTime() + wait)) };
  }

  async function deliver(row: OutboxRow): Promise<void> {
    const id = Number(row.id);
    const log = { delivery: id, topic: row.topic, topicId: Number(row.topic_id), attempt: row.attempts };
    try {
      const result = await attemptDelivery(
        {
          url: row.url,
          method: row.method,
          headers: JSON.parse(row.request_headers),
          body: row.request_body,
        },
        allowed,
        timeoutMs,
      );
      const changes = outcome(row, result, new Date());
      const written = await db
        .updateTable(OUTBOX_TABLE)
        .set(changes)
        .where("id", "=", id)
        .where("claimed_by", "=", worker)
        .where("status", "=", "pending")
        .executeTakeFirstOrThrow();
      const status = "status" in changes ? changes.status : "pending";
      if (!claimed(written))
        logger.warn(log, "outbox: the claim on a delivery lapsed before its result was written");
      else if (status === "delivered") logger.debug(log, "outbox: delivered");
      else
        logger.warn(
          { ...log, status, answer: changes.response_status, error: changes.error },
          "outbox: delivery failed",
        );
    } catch (error) {
      // The claim stays until its lease lapses; then the row is tried again.
      logger.error({ ...log, err: error }, "outbox: a delivery's result could not be written");
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
    const free = concurrency - inFlight.size;
    if (free <= 0) return;
    const now = new Date();
    // More candidates than free slots: other processes may win some of them.
    const candidates = await db
      .selectFrom(OUTBOX_TABLE)
      .select("id")
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", stored(now))
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", stored(now))]))
      .orderBy("next_attempt_at")
      .orderBy("id")
      .limit(free + concurrency)
      .execute();
    let taken = 0;
    for (const candidate of candidates) {
      if (taken === free || stopped) break;
      const row = await claim(Number(candidate.id), now);
      if (row === undefined) continue;
      taken++;
      const delivery: Promise<void> = deliver(row).finally(() => {
        inFlight.delete(delivery);
        wake();
      });
      inFlight.add(delivery);
    }
    // Every slot filled and more may be due, or rows lost to other processes: look again at once.
    if (taken < free && candidates.length === free + concurrency) pollAgain = true;
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

  wake();
  return {
    wake,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await polling;
      await Promise.all(inFlight);
    },
  };
}
