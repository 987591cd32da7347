import { Forbidden, generateTokenSecret, hashToken, RowMemo, readBool, readTime } from "@anvil/core";
import {
  deleteToken,
  findAccount,
  findTokenOwner,
  insertToken,
  listTokens,
  type TokenRow,
  touchToken,
} from "../repositories/tokens.ts";
import type { InventoryDatabase } from "./database.ts";
import { storedNow } from "./database.ts";
import {
  type Caller,
  mayDelegate,
  parsePermissions,
  readScopes,
  UNAUTHORIZED_ACTION,
  type UserRow,
} from "./permissions.ts";

// Personal access tokens (spec §1.2): a random secret shown once, stored as its SHA-256, valid for
// Snipe-IT's default 20 years. Read-only and scoped tokens (Snipe-IT #19618) are our additions.
const LIFETIME_YEARS = 20;
// Recording every use would turn each API read into a write; once a minute says enough.
const LAST_USED_RESOLUTION_MS = 60_000;

export async function createToken(
  database: InventoryDatabase,
  user: UserRow,
  input: { name: string; readOnly?: boolean; scopes?: readonly string[] },
): Promise<{ token: TokenRow; secret: string }> {
  const secret = generateTokenSecret(32);
  const now = new Date();
  const expires = new Date(now);
  expires.setUTCFullYear(expires.getUTCFullYear() + LIFETIME_YEARS);
  const token = await insertToken(database.db, {
    user_id: user.id,
    name: input.name,
    token_hash: hashToken(secret),
    read_only: input.readOnly === true,
    scopes: input.scopes === undefined ? null : JSON.stringify(input.scopes),
    created_at: storedNow(database.dialect),
    expires_at: database.dialect === "sqlite" ? expires.toISOString() : expires,
  });
  return { token, secret };
}

/**
 * The scopes of a token a caller makes for themselves: those asked, which a scoped caller's own
 * must cover; when none are asked, a scoped caller's own, so that no token mints a wider one.
 */
export function scopesOfNewToken(caller: Caller, asked: unknown): readonly string[] | undefined {
  if (asked === undefined || asked === null) return caller.scopes;
  const scopes = readScopes(asked);
  if (!mayDelegate(caller, scopes)) throw new Forbidden(UNAUTHORIZED_ACTION);
  return scopes;
}

/** A stored scopes list; unreadable, it allows nothing rather than everything. */
export function storedScopes(text: string | null): string[] | undefined {
  if (text === null) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((scope): scope is string => typeof scope === "string") : [];
  } catch {
    return [];
  }
}

export function listUserTokens(database: InventoryDatabase, user: UserRow): Promise<TokenRow[]> {
  return listTokens(database.db, user.id);
}

/** Deletes one of the user's own tokens; false when they have none with this id. */
export function revokeToken(database: InventoryDatabase, user: UserRow, id: number): Promise<boolean> {
  return Number.isSafeInteger(id) ? deleteToken(database.db, user.id, id) : Promise.resolve(false);
}

/** A caller acting as the user with their own and their groups' permissions, as far as `limits` allow. */
function accountAs(
  user: UserRow,
  groups: readonly { permissions: string }[],
  rootUrl: URL,
  limits: Pick<Caller, "readOnly" | "scopes">,
): Caller {
  return Object.freeze({
    user,
    own: parsePermissions(user.permissions),
    groups: groups.map((group) => parsePermissions(group.permissions)),
    ...limits,
    rootUrl,
  });
}

/**
 * The caller a signed-in web session of the user stands for: every permission of the account, as
 * a read/write token without scopes has; undefined once the user is deleted.
 */
export async function sessionCaller(
  database: InventoryDatabase,
  userId: number,
  rootUrl: URL,
): Promise<Caller | undefined> {
  const found = await findAccount(database.db, userId);
  return found && accountAs(found.user, found.groups, rootUrl, { readOnly: false, scopes: undefined });
}

/** What a token row and its user's rows make of every request the token sends. */
interface TokenCaller {
  caller: Caller;
  expiresAt: number;
  lastUsedAt: number;
}

// Kept while the token's, its user's and their groups' rows are the ones the database hands out
// (core's RowMemo: on SQLite until any write, by this process or another, so a revoked token or a
// changed permission counts from the next request on; on PostgreSQL nothing is found again), so
// a request does not parse the permissions and times again.
const tokenCallers = new RowMemo<TokenCaller>();

/** The caller a Bearer secret stands for; undefined for an unknown, expired or orphaned token. */
export async function authenticate(
  database: InventoryDatabase,
  secret: string,
  rootUrl: URL,
): Promise<Caller | undefined> {
  if (secret === "") return undefined;
  const found = await findTokenOwner(database.db, hashToken(secret));
  if (!found) return undefined;
  const { token, user, groups } = found;
  const kept = tokenCallers.get([token, user, groups], rootUrl.href, () => ({
    caller: accountAs(user, groups, rootUrl, {
      readOnly: readBool(token.read_only),
      scopes: storedScopes(token.scopes),
    }),
    expiresAt: readTime(token.expires_at).getTime(),
    lastUsedAt:
      token.last_used_at === null ? Number.NEGATIVE_INFINITY : readTime(token.last_used_at).getTime(),
  }));
  const now = Date.now();
  if (kept.expiresAt <= now) return undefined;
  if (now - kept.lastUsedAt > LAST_USED_RESOLUTION_MS) {
    // The kept token row may still show the use before (repositories/tokens.ts): this one counts.
    kept.lastUsedAt = now;
    await touchToken(database.db, token.id, storedNow(database.dialect));
  }
  return kept.caller;
}
