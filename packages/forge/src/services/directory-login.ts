import { type Logger, type PasswordAccounts, readBool, toStoredTime, verifyPassword } from "@anvil/core";
import {
  type AccountChanges,
  type AccountRow,
  findAccountByName,
  updateAccount,
} from "../repositories/accounts.ts";
import { type AuthSourceRow, activeAuthSources, findAuthSource } from "../repositories/auth-sources.ts";
import { deleteKeysByIds, insertKey, listSourceKeys } from "../repositories/keys.ts";
import { parsePublicKey } from "../ssh/index.ts";
import { createUser, type ForgeDatabase } from "./accounts.ts";
import { directorySettings } from "./auth-sources.ts";
import {
  type DirectorySettings,
  DirectoryUnavailable,
  type DirectoryUser,
  signInToDirectory,
} from "./directory.ts";

// Sign-in of a source's users, as Gitea's UserSignIn: an account that belongs to a source is
// checked by its directory, never by a local hash, under its login name; a name no account has is
// tried with each active source in turn, and the first that knows it creates the account. What the
// directory says about the user (admin and restricted filters, SSH keys) is applied at each
// sign-in. A directory that cannot answer refuses its users and logs why, never with a password.

// Keyed by the database, as several forges (tests) may run in one process; an admin command,
// which signs nobody in, registers none.
const loggers = new WeakMap<ForgeDatabase, Logger>();

export function registerDirectoryLogger(database: ForgeDatabase, logger: Logger): void {
  loggers.set(database, logger);
}

function logOf(database: ForgeDatabase): Logger | undefined {
  return loggers.get(database);
}

/** Where a directory's answer about an address without one comes from, as Gitea makes it up. */
export function placeholderEmail(username: string): string {
  return `${username}@localhost.local`;
}

/** The directory's verdict, or undefined when it refused or could not be asked (logged). */
async function ask(
  database: ForgeDatabase,
  source: AuthSourceRow,
  login: string,
  password: string,
): Promise<{ settings: DirectorySettings; user: DirectoryUser } | undefined> {
  const settings = await directorySettings(database, source);
  try {
    const user = await signInToDirectory(settings, login, password);
    return user && { settings, user };
  } catch (error) {
    if (!(error instanceof DirectoryUnavailable)) throw error;
    logOf(database)?.warn({ source: source.name, login, reason: error.message }, "directory sign-in failed");
    return undefined;
  }
}

/**
 * Replaces the account's keys from `source` with `contents` (keys the user added stay); keys that
 * do not parse, or that another account holds, are skipped. Answers how many were added and removed.
 */
export async function syncSourceKeys(
  database: ForgeDatabase,
  source: AuthSourceRow,
  account: AccountRow,
  contents: readonly string[],
): Promise<{ added: number; removed: number }> {
  const wanted = new Map<string, ReturnType<typeof parsePublicKey>>();
  for (const content of contents) {
    try {
      const parsed = parsePublicKey(content);
      wanted.set(parsed.content, parsed);
    } catch {
      logOf(database)?.warn({ source: source.name, user: account.name }, "directory SSH key does not parse");
    }
  }
  const held = await listSourceKeys(database.db, account.id, source.id);
  const stale = held.filter((key) => !wanted.has(key.content));
  await deleteKeysByIds(
    database.db,
    stale.map((key) => key.id),
  );
  const kept = new Set(held.map((key) => key.content));
  let added = 0;
  for (const [content, parsed] of wanted) {
    if (kept.has(content)) continue;
    try {
      await insertKey(database.db, {
        account_id: account.id,
        title: `${source.name}-${parsed.fingerprint}`.slice(0, 255),
        content,
        fingerprint: parsed.fingerprint,
        key_type: parsed.type,
        created_at: toStoredTime(new Date(), database.dialect),
        source_id: source.id,
      });
      added++;
    } catch {
      logOf(database)?.warn(
        { source: source.name, user: account.name },
        "directory SSH key is another account's",
      );
    }
  }
  return { added, removed: stale.length };
}

/** What the directory says of an account's roles, as changes; empty when they agree. */
export function roleChanges(
  settings: DirectorySettings,
  account: AccountRow,
  user: DirectoryUser,
): AccountChanges {
  const changes: AccountChanges = {};
  if (settings.admin_filter !== "" && readBool(account.is_admin) !== user.isAdmin)
    changes.is_admin = user.isAdmin;
  if (
    !user.isAdmin &&
    settings.restricted_filter !== "" &&
    readBool(account.restricted) !== user.isRestricted
  )
    changes.restricted = user.isRestricted;
  return changes;
}

async function signInAccount(
  database: ForgeDatabase,
  account: AccountRow,
  password: string,
): Promise<AccountRow | undefined> {
  const source = await findAuthSource(database.db, account.source_id);
  if (!source || !readBool(source.is_active)) return undefined;
  const answer = await ask(database, source, account.login_name || account.name, password);
  if (!answer) return undefined;
  if (answer.settings.public_ssh_key_attribute !== "")
    await syncSourceKeys(database, source, account, answer.user.sshKeys);
  const changes = roleChanges(answer.settings, account, answer.user);
  if (Object.keys(changes).length === 0) return account;
  return (await updateAccount(database.db, account.id, changes)) ?? account;
}

/**
 * Creates the account of a directory user seen for the first time (their SSH keys are the
 * caller's to copy); undefined when it cannot be.
 */
export async function createDirectoryAccount(
  database: ForgeDatabase,
  source: AuthSourceRow,
  login: string,
  user: DirectoryUser,
): Promise<AccountRow | undefined> {
  try {
    const account = await createUser(database, {
      username: user.username,
      email: user.email || placeholderEmail(user.username),
      full_name: user.fullName,
      source_id: source.id,
      login_name: login,
      admin: user.isAdmin,
      restricted: user.isRestricted,
      must_change_password: false,
    });
    return account;
  } catch (error) {
    // Two first sign-ins at once: the other one made the account.
    const existing = await findAccountByName(database.db, user.username);
    if (existing && existing.source_id === source.id) return existing;
    logOf(database)?.warn(
      {
        source: source.name,
        user: user.username,
        reason: error instanceof Error ? error.message : String(error),
      },
      "could not create the account of a directory user",
    );
    return undefined;
  }
}

async function firstSignIn(
  database: ForgeDatabase,
  login: string,
  password: string,
): Promise<AccountRow | undefined> {
  const sources = await activeAuthSources(database.db);
  if (sources.length === 0) {
    // As long as a local login of an unknown name, so a name's existence does not show in timing.
    await verifyPassword(password, undefined);
    return undefined;
  }
  for (const source of sources) {
    const answer = await ask(database, source, login, password);
    if (!answer) continue;
    const account = await createDirectoryAccount(database, source, login, answer.user);
    if (account) await syncSourceKeys(database, source, account, answer.user.sshKeys);
    return account;
  }
  return undefined;
}

/** The password check of core's login for the forge's accounts that belong to a source. */
export function checkWithDirectory(database: ForgeDatabase): PasswordAccounts<AccountRow>["checkElsewhere"] {
  return (login, account, password) => {
    if (account === undefined) return firstSignIn(database, login, password);
    return account.source_id === 0 ? undefined : signInAccount(database, account, password);
  };
}
