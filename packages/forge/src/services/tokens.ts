import {
  BadRequest,
  generateTokenSecret,
  hashToken,
  isUniqueViolation,
  NotFound,
  RowMemo,
  readTime,
  toStoredTime,
} from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import {
  type AccessTokenRow,
  deleteToken,
  findTokenByHash,
  insertToken,
  listTokens,
  touchToken,
} from "../repositories/tokens.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { normalizeScopes } from "./scopes.ts";

// A token's secret is 40 hex characters, as Gitea's; only its SHA-256 is stored.
const SECRET = /^[0-9a-f]{40}$/;
// Recording every use would make every API call a write; once a minute is enough to tell when a
// token was last used.
const LAST_USED_RESOLUTION_MS = 60_000;

export function looksLikeToken(text: string): boolean {
  return SECRET.test(text);
}

export async function createToken(
  database: ForgeDatabase,
  owner: AccountRow,
  input: { name: string; scopes?: string[] },
): Promise<{ token: AccessTokenRow; secret: string }> {
  const name = input.name.trim();
  if (name === "") throw new BadRequest("access token name is required");
  const scopes = normalizeScopes(input.scopes ?? []);
  const secret = generateTokenSecret();
  const now = toStoredTime(new Date(), database.dialect);
  try {
    const token = await insertToken(database.db, {
      account_id: owner.id,
      name,
      lower_name: name.toLowerCase(),
      token_hash: hashToken(secret),
      token_last_eight: secret.slice(-8),
      scopes: scopes.join(","),
      created_at: now,
      updated_at: now,
    });
    return { token, secret };
  } catch (error) {
    if (isUniqueViolation(error)) throw new BadRequest("access token name has been used already");
    throw error;
  }
}

export function listAccessTokens(
  database: ForgeDatabase,
  owner: AccountRow,
  window: { offset: number; limit: number },
) {
  return listTokens(database.db, owner.id, window);
}

/** Deletes a token named by its id or its name, as Gitea's DELETE /users/{u}/tokens/{token}. */
export async function deleteAccessToken(
  database: ForgeDatabase,
  owner: AccountRow,
  which: string,
): Promise<void> {
  const byId = /^\d+$/.test(which) && (await deleteToken(database.db, owner.id, { id: Number(which) }));
  if (byId) return;
  if (!(await deleteToken(database.db, owner.id, { name: which })))
    throw new NotFound(`access token does not exist [id: 0]`);
}

// Parsed once per token row (core's RowMemo), not on every call the token makes, and moved on by
// this process's own touches: the kept row goes on showing the use before (repositories/tokens.ts).
const lastUsedTimes = new RowMemo<{ at: number }>();

/** The token a secret belongs to, noting its use; undefined when no token has this secret. */
export async function findToken(
  database: ForgeDatabase,
  secret: string,
): Promise<AccessTokenRow | undefined> {
  if (!looksLikeToken(secret)) return undefined;
  const token = await findTokenByHash(database.db, hashToken(secret));
  if (token === undefined) return undefined;
  const now = Date.now();
  const lastUsed = lastUsedTimes.get([token], "", () => ({
    at: token.last_used_at === null ? Number.NEGATIVE_INFINITY : readTime(token.last_used_at).getTime(),
  }));
  if (now - lastUsed.at > LAST_USED_RESOLUTION_MS) {
    lastUsed.at = now;
    await touchToken(database.db, token.id, toStoredTime(new Date(now), database.dialect));
  }
  return token;
}
