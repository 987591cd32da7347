import {
  checkPasswordLogin,
  Forbidden,
  type LoginLimits,
  NotFound,
  type PasswordAccounts,
  RowMemo,
  readBool,
  Unauthorized,
} from "@anvil/core";
import {
  type AccountRow,
  findAccountById,
  findAccountByName,
  findUserByLogin,
  replacePasswordHash,
} from "../repositories/accounts.ts";
import { ACCOUNT_USER } from "../schemas/tables.ts";
import { type ForgeDatabase, isAdmin } from "./accounts.ts";
import { checkWithDirectory } from "./directory-login.ts";
import { findToken } from "./tokens.ts";

/** Who is calling: the account, how it proved it, and for a token what it may do. */
export interface Caller {
  account: AccountRow;
  /** `password` for basic auth with a password, `token` for any token (header, basic or query). */
  via: "password" | "token";
  /** The token's scopes; undefined for a password, which may do everything its user may. */
  scopes?: string[];
}

/**
 * What a request presents: its Authorization header and its `token`/`access_token` query value,
 * and the client's address (after trusted proxies), which password logins are limited by.
 */
export interface Credentials {
  authorization?: string;
  queryToken?: string;
  address: string;
}

const INVALID = "invalid username, password or token";

function decodeBasic(value: string): { user: string; password: string } | undefined {
  const decoded = Buffer.from(value, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon === -1) return undefined;
  const user = decoded.slice(0, colon);
  // No account name holds a NUL, and PostgreSQL refuses one in any text it is asked to compare.
  return user.includes("\0") ? undefined : { user, password: decoded.slice(colon + 1) };
}

// A token's caller is kept while its row is unchanged (core's RowMemo), and with it its account.
const tokenCallers = new RowMemo<Readonly<Caller> | null>();

async function byToken(database: ForgeDatabase, secret: string): Promise<Caller | undefined> {
  const token = await findToken(database, secret);
  if (!token) return undefined;
  const kept = tokenCallers.find([token], "");
  if (kept !== undefined) return kept ?? undefined;
  const account = await findAccountById(database.db, token.account_id);
  const caller = account
    ? Object.freeze({ account, via: "token" as const, scopes: token.scopes.split(",") })
    : null;
  tokenCallers.keep([token], "", caller);
  return caller ?? undefined;
}

// Basic auth carries either a password or a token: as the password, or as the user name with an
// empty password or `x-oauth-basic` (what `git clone https://TOKEN@host/…` sends).
async function byBasic(
  database: ForgeDatabase,
  limits: LoginLimits,
  login: { user: string; password: string; address: string },
): Promise<Caller | undefined> {
  const tokenInUser = login.password === "" || login.password === "x-oauth-basic";
  const asToken = await byToken(database, tokenInUser ? login.user : login.password);
  if (asToken || tokenInUser) return asToken;
  const account = await checkPasswordLogin(database.db, limits, passwordAccounts(database), {
    login: login.user,
    password: login.password,
    address: login.address,
  });
  return account && { account, via: "password" };
}

function passwordAccounts(database: ForgeDatabase): PasswordAccounts<AccountRow> {
  return {
    find: (login) => findUserByLogin(database.db, login),
    hashOf: (account) => account.password_hash,
    replaceHash: (account, previous, next) => replacePasswordHash(database.db, account.id, previous, next),
    checkElsewhere: checkWithDirectory(database),
  };
}

function checkAllowedToSignIn(account: AccountRow): void {
  if (account.type !== ACCOUNT_USER) throw new Unauthorized(INVALID);
  if (!readBool(account.is_active)) throw new Forbidden("user is not activated");
  if (readBool(account.prohibit_login)) throw new Forbidden("user is prohibited from signing in");
}

/**
 * The caller a request's credentials name: undefined when it presents none, 401 when they are
 * wrong, 403 when the account may not sign in.
 */
export async function authenticate(
  database: ForgeDatabase,
  limits: LoginLimits,
  credentials: Credentials,
): Promise<Caller | undefined> {
  const header = credentials.authorization?.trim() ?? "";
  const space = header.indexOf(" ");
  const scheme = (space === -1 ? header : header.slice(0, space)).toLowerCase();
  const value = space === -1 ? "" : header.slice(space + 1).trim();
  let caller: Caller | undefined;
  if (scheme === "token" || scheme === "bearer") caller = await byToken(database, value);
  else if (scheme === "basic") {
    const basic = decodeBasic(value);
    caller = basic && (await byBasic(database, limits, { ...basic, address: credentials.address }));
  } else if (header === "" && credentials.queryToken !== undefined) {
    caller = await byToken(database, credentials.queryToken);
  } else if (header === "") return undefined;
  if (!caller) throw new Unauthorized(INVALID);
  checkAllowedToSignIn(caller.account);
  return caller;
}

/** A site admin acting as another user (`Sudo` header or `?sudo=`), as Gitea allows. */
export async function sudo(database: ForgeDatabase, caller: Caller, name: string): Promise<Caller> {
  if (!isAdmin(caller.account)) throw new Forbidden("Only administrators allowed to sudo.");
  const target = await findAccountByName(database.db, name);
  if (!target || target.type !== ACCOUNT_USER)
    throw new NotFound(`user does not exist [uid: 0, name: ${name}]`);
  return { ...caller, account: target };
}
