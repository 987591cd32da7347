import { hash } from "node:crypto";
import { isIPv6 } from "node:net";
import { sql } from "kysely";
import type { LoginLimits } from "../config/service-settings.ts";
import type { AnyKysely } from "../db/database.ts";

// Failed password logins counted in the database, so that every process of a service shares the
// counts: per account name and per client address separately, each in a sliding window (the
// current fixed window plus the previous one weighted by how much of it still overlaps). An
// attempt is counted before its password is checked, so parallel guesses cannot all slip in
// before the first failure is written; a success takes its count back. An address that signed in
// to an account recently stays exempt from that account's limit (not from its own), so strangers'
// failures cannot lock a user out of the places they already use.

const LOGIN_THROTTLE_TABLE = "login_throttle";

/** Creates the table; each service's own migration calls it, as the service owns its database. */
export async function createLoginThrottleTable(db: AnyKysely): Promise<void> {
  await db.schema
    .createTable(LOGIN_THROTTLE_TABLE)
    .ifNotExists()
    // SHA-256 of what is counted: a fixed size whatever was typed, and no typed name (often a
    // password typed into the wrong field) kept in the clear.
    .addColumn("subject", "varchar(64)", (c) => c.notNull())
    .addColumn("window_start", "bigint", (c) => c.notNull())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint(`${LOGIN_THROTTLE_TABLE}_pk`, ["subject", "window_start"])
    .execute();
  await db.schema
    .createIndex(`${LOGIN_THROTTLE_TABLE}_expires`)
    .ifNotExists()
    .on(LOGIN_THROTTLE_TABLE)
    .column("expires_at")
    .execute();
}

/** Who tries: the account name as typed and the client's address. */
export interface LoginAttempt {
  login: string;
  address: string;
}

/** A counted attempt, to be settled once the password is checked. */
export interface ReservedLogin {
  subjects: string[];
  trust: string;
  windowStart: number;
}

export type LoginReservation =
  | { allowed: true; reserved: ReservedLogin }
  | { allowed: false; retryAfter: number };

function subject(...parts: string[]): string {
  return hash("sha256", parts.join("\0"), "hex");
}

// Every address of one IPv6 /64 is one client: a host is usually handed the whole prefix.
function addressKey(address: string): string {
  if (!isIPv6(address) || address.includes(".")) return address.replace(/^::ffff:/i, "");
  const [head, tail = ""] = address.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

/** Seconds until `prior` past failures (previous window: `previous`) leave room for one more. */
function secondsUntilRoom(
  limit: number,
  prior: number,
  previous: number,
  windowStart: number,
  window: number,
  now: number,
): number {
  const until =
    prior + 1 <= limit
      ? windowStart + window * (1 - (limit - prior - 1) / previous)
      : windowStart + window + window * (1 - (limit - 1) / prior);
  return Math.max(1, Math.ceil(until - now));
}

// One statement a counter row, never one for several: PostgreSQL locks the rows of one statement
// in an order of its own, so eight sign-ins of one login at once (an upsert of its two counters
// beside another's take-back of the same two) deadlocked, and answered 500 (forge CI, 2026-11-26).
// A statement that holds one row lock waits for no other.

async function countAttempt(db: AnyKysely, subjects: string[], windowStart: number, expiresAt: number) {
  const counted = new Map<string, number>();
  for (const subject of subjects) {
    const row = await db
      .insertInto(LOGIN_THROTTLE_TABLE)
      .values({ subject, window_start: windowStart, failures: 1, expires_at: expiresAt })
      .onConflict((conflict) =>
        conflict
          .columns(["subject", "window_start"])
          .doUpdateSet({ failures: sql`${sql.table(LOGIN_THROTTLE_TABLE)}.failures + 1` }),
      )
      .returning("failures")
      .executeTakeFirstOrThrow();
    counted.set(subject, Number(row.failures));
  }
  return counted;
}

async function takeBack(db: AnyKysely, reserved: ReservedLogin): Promise<void> {
  for (const subject of reserved.subjects) {
    await db
      .updateTable(LOGIN_THROTTLE_TABLE)
      .set({ failures: sql`failures - 1` })
      .where("subject", "=", subject)
      .where("window_start", "=", reserved.windowStart)
      .execute();
  }
}

async function isTrusted(db: AnyKysely, trust: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom(LOGIN_THROTTLE_TABLE)
    .select("subject")
    .where("subject", "=", trust)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Counts a password login attempt before its password is checked, or refuses it (counting
 * nothing) when the account name or the address is over its limit; `retryAfter` is in seconds.
 */
export async function reserveLoginAttempt(
  db: AnyKysely,
  limits: LoginLimits,
  attempt: LoginAttempt,
  nowMs = Date.now(),
): Promise<LoginReservation> {
  const now = nowMs / 1000;
  const window = limits.windowSeconds;
  const windowStart = Math.floor(now / window) * window;
  const login = attempt.login.toLowerCase();
  const address = addressKey(attempt.address);
  const checks = [
    { subject: subject("account", login), limit: limits.accountFailures, excusable: true },
    { subject: subject("address", address), limit: limits.addressFailures, excusable: false },
  ].filter((check) => check.limit > 0);
  const reserved: ReservedLogin = {
    subjects: checks.map((check) => check.subject),
    trust: subject("trusted", login, address),
    windowStart,
  };
  if (checks.length === 0) return { allowed: true, reserved };
  const current = await countAttempt(db, reserved.subjects, windowStart, windowStart + 2 * window);
  const previousRows = await db
    .selectFrom(LOGIN_THROTTLE_TABLE)
    .select(["subject", "failures"])
    .where("subject", "in", reserved.subjects)
    .where("window_start", "=", windowStart - window)
    .execute();
  const previous = new Map(previousRows.map((row) => [row.subject as string, Number(row.failures)]));
  const overlap = 1 - (now - windowStart) / window;
  let retryAfter = 0;
  for (const check of checks) {
    const counted = current.get(check.subject) ?? 1;
    const before = previous.get(check.subject) ?? 0;
    if (before * overlap + counted <= check.limit) continue;
    if (check.excusable && (await isTrusted(db, reserved.trust, Math.floor(now)))) continue;
    const wait = secondsUntilRoom(check.limit, counted - 1, before, windowStart, window, now);
    retryAfter = Math.max(retryAfter, wait);
  }
  if (retryAfter > 0) {
    await takeBack(db, reserved);
    return { allowed: false, retryAfter };
  }
  // A new window's first attempt sweeps what has expired, which keeps the table bounded.
  if ([...current.values()].some((failures) => failures === 1)) {
    await db.deleteFrom(LOGIN_THROTTLE_TABLE).where("expires_at", "<=", Math.floor(now)).execute();
  }
  return { allowed: true, reserved };
}

/**
 * Settles a counted attempt: a failure stays counted; a success is taken back, and its address
 * becomes trusted for that account for `trustSeconds`.
 */
export async function settleLoginAttempt(
  db: AnyKysely,
  limits: LoginLimits,
  reserved: ReservedLogin,
  succeeded: boolean,
  nowMs = Date.now(),
): Promise<void> {
  if (!succeeded) return;
  if (reserved.subjects.length > 0) await takeBack(db, reserved);
  if (limits.trustSeconds <= 0) return;
  const expiresAt = Math.floor(nowMs / 1000) + limits.trustSeconds;
  await db
    .insertInto(LOGIN_THROTTLE_TABLE)
    .values({ subject: reserved.trust, window_start: 0, failures: 0, expires_at: expiresAt })
    .onConflict((conflict) =>
      conflict.columns(["subject", "window_start"]).doUpdateSet({ expires_at: expiresAt }),
    )
    .execute();
}
