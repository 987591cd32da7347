import { randomBytes } from "node:crypto";
import { hashToken } from "../auth/tokens.ts";
import type { AnyKysely } from "../db/database.ts";

// Signed-in browser sessions, kept in the service's database so that every process of the
// service sees a sign-in, a sign-out and "log out everywhere" at once. The cookie carries a random
// id; the table keeps only its SHA-256 (as API tokens are kept), so a leaked database does not
// leak working sessions. Each session also keeps the secret its CSRF tokens are made from.

const SESSION_TABLE = "web_sessions";

/** Creates the table; each service's own migration calls it, as the service owns its database. */
export async function createWebSessionTable(db: AnyKysely): Promise<void> {
  await db.schema
    .createTable(SESSION_TABLE)
    .ifNotExists()
    .addColumn("id_hash", "varchar(64)", (c) => c.primaryKey())
    .addColumn("user_id", "bigint", (c) => c.notNull())
    .addColumn("csrf_secret", "varchar(64)", (c) => c.notNull())
    .addColumn("persistent", "integer", (c) => c.notNull())
    // Milliseconds since the epoch: compared with numbers, the same on both databases.
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_seen_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex(`${SESSION_TABLE}_user`)
    .ifNotExists()
    .on(SESSION_TABLE)
    .column("user_id")
    .execute();
  await db.schema
    .createIndex(`${SESSION_TABLE}_expires`)
    .ifNotExists()
    .on(SESSION_TABLE)
    .column("expires_at")
    .execute();
}

export interface SessionLimits {
  /** A session unused for this long has ended, in seconds. */
  idleSeconds: number;
  /** A session ends this long after sign-in however much it is used, in seconds. */
  absoluteSeconds: number;
}

export const DEFAULT_SESSION_LIMITS: Readonly<SessionLimits> = Object.freeze({
  idleSeconds: 8 * 60 * 60,
  absoluteSeconds: 30 * 24 * 60 * 60,
});

/** A live session as a request sees it. */
export interface WebSession {
  userId: number;
  /** What @fastify/csrf-protection makes this session's form tokens from. */
  csrfSecret: string;
  /** Whether the cookie outlives the browser ("Remember me"). */
  persistent: boolean;
  /** When the session ends however much it is used, in milliseconds since the epoch. */
  expiresAt: number;
}

// Recording every request would turn each page view into a write; once a minute is precise
// enough for an idle limit counted in hours.
const LAST_SEEN_RESOLUTION_MS = 60_000;

/** A new session for the user; the id to put in the cookie is returned once and stored hashed. */
export async function openSession(
  db: AnyKysely,
  limits: SessionLimits,
  input: { userId: number; persistent: boolean; csrfSecret: string },
  now = Date.now(),
): Promise<{ id: string; session: WebSession }> {
  // Sessions that ended unused are removed here, so the table does not grow with abandoned ones.
  await db.deleteFrom(SESSION_TABLE).where("expires_at", "<=", now).execute();
  const id = randomBytes(32).toString("base64url");
  const expiresAt = now + limits.absoluteSeconds * 1000;
  await db
    .insertInto(SESSION_TABLE)
    .values({
      id_hash: hashToken(id),
      user_id: input.userId,
      csrf_secret: input.csrfSecret,
      persistent: input.persistent ? 1 : 0,
      created_at: now,
      last_seen_at: now,
      expires_at: expiresAt,
    })
    .execute();
  return {
    id,
    session: { userId: input.userId, csrfSecret: input.csrfSecret, persistent: input.persistent, expiresAt },
  };
}

/** The live session a cookie names, counted as used now; undefined when unknown or expired (then removed). */
export async function findSession(
  db: AnyKysely,
  limits: SessionLimits,
  id: string,
  now = Date.now(),
): Promise<WebSession | undefined> {
  if (id === "" || id.length > 128) return undefined;
  const hash = hashToken(id);
  const row = await db
    .selectFrom(SESSION_TABLE)
    .select(["user_id", "csrf_secret", "persistent", "last_seen_at", "expires_at"])
    .where("id_hash", "=", hash)
    .executeTakeFirst();
  if (!row) return undefined;
  const lastSeen = Number(row.last_seen_at);
  const expiresAt = Number(row.expires_at);
  if (expiresAt <= now || lastSeen + limits.idleSeconds * 1000 <= now) {
    await db.deleteFrom(SESSION_TABLE).where("id_hash", "=", hash).execute();
    return undefined;
  }
  if (now - lastSeen > LAST_SEEN_RESOLUTION_MS) {
    await db.updateTable(SESSION_TABLE).set({ last_seen_at: now }).where("id_hash", "=", hash).execute();
  }
  return {
    userId: Number(row.user_id),
    csrfSecret: row.csrf_secret as string,
    persistent: Number(row.persistent) === 1,
    expiresAt,
  };
}

/** Ends the session a cookie names (log out). */
export async function closeSession(db: AnyKysely, id: string): Promise<void> {
  await db.deleteFrom(SESSION_TABLE).where("id_hash", "=", hashToken(id)).execute();
}

/** Ends every session of the user ("log out everywhere", a changed password); how many there were. */
export async function closeUserSessions(db: AnyKysely, userId: number): Promise<number> {
  const result = await db.deleteFrom(SESSION_TABLE).where("user_id", "=", userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
