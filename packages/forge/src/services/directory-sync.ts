import { Invalid, isUniqueViolation, type Logger, readBool, toStoredTime } from "@anvil/core";
import { type AccountChanges, findAccountByName, updateAccount } from "../repositories/accounts.ts";
import {
  type AuthSourceRow,
  accountsOfSource,
  activeAuthSources,
  claimAuthSourceSync,
  noteAuthSourceSync,
} from "../repositories/auth-sources.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { allowsDeactivateAll, directorySettings } from "./auth-sources.ts";
import { listDirectoryUsers } from "./directory.ts";
import { createDirectoryAccount, placeholderEmail, roleChanges, syncSourceKeys } from "./directory-login.ts";

// Synchronizing a source's users with its directory, as Gitea's sync_external_users task: every
// user the filter matches gets an account (created, or updated: name, e-mail, roles, SSH keys,
// reactivated), and the source's accounts the directory no longer lists are deactivated, unless
// it lists nobody at all and the source does not allow that to deactivate everyone.

export interface SyncReport {
  source: string;
  created: string[];
  updated: string[];
  deactivated: string[];
  keysAdded: number;
  keysRemoved: number;
  /** Directory users that could not be given an account (a name or e-mail held by another). */
  skipped: string[];
}

export async function syncAuthSource(database: ForgeDatabase, source: AuthSourceRow): Promise<SyncReport> {
  const settings = await directorySettings(database, source);
  if (settings.kind !== "ldap")
    throw new Invalid("only an LDAP (via BindDN) source can list its users to sync");
  const report: SyncReport = {
    source: source.name,
    created: [],
    updated: [],
    deactivated: [],
    keysAdded: 0,
    keysRemoved: 0,
    skipped: [],
  };
  const accounts = new Map(
    (await accountsOfSource(database.db, source.id)).map((row) => [row.lower_name, row]),
  );
  const seen = new Set<string>();
  const withKeys = settings.public_ssh_key_attribute !== "";
  await listDirectoryUsers(settings, async (users) => {
    for (const user of users) {
      const lower = user.username.toLowerCase();
      seen.add(lower);
      const known = accounts.get(lower);
      if (!known) {
        const created = await createDirectoryAccount(database, source, user.username, user);
        if (!created) report.skipped.push(user.username);
        else {
          report.created.push(created.name);
          report.keysAdded += (await syncSourceKeys(database, source, created, user.sshKeys)).added;
        }
        continue;
      }
      const account = await findAccountByName(database.db, known.name);
      if (!account) continue;
      const email = user.email || placeholderEmail(user.username);
      const changes: AccountChanges = { ...roleChanges(settings, account, user) };
      if (account.full_name !== user.fullName) changes.full_name = user.fullName;
      if (account.email !== email) {
        changes.email = email;
        changes.lower_email = email.toLowerCase();
      }
      if (!readBool(account.is_active)) changes.is_active = true;
      if (withKeys) {
        const keys = await syncSourceKeys(database, source, account, user.sshKeys);
        report.keysAdded += keys.added;
        report.keysRemoved += keys.removed;
      }
      if (Object.keys(changes).length === 0) continue;
      changes.updated_at = toStoredTime(new Date(), database.dialect);
      try {
        await updateAccount(database.db, account.id, changes);
        report.updated.push(account.name);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // The new e-mail address is another account's: the rest still applies.
        delete changes.email;
        delete changes.lower_email;
        await updateAccount(database.db, account.id, changes);
        report.updated.push(account.name);
      }
    }
  });
  if (seen.size === 0 && !(await allowsDeactivateAll(database, source))) return report;
  for (const [lower, account] of accounts) {
    if (seen.has(lower) || !readBool(account.is_active)) continue;
    await updateAccount(database.db, account.id, {
      is_active: false,
      updated_at: toStoredTime(new Date(), database.dialect),
    });
    report.deactivated.push(account.name);
  }
  return report;
}

/**
 * Syncs, every `intervalMs`, each active source whose synchronization is enabled, in whichever of
 * the processes serving the database claims it first for that period.
 */
export function startDirectorySync(
  database: ForgeDatabase,
  intervalMs: number,
  logger: Logger,
): { close: () => Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = running.then(async () => {
      const now = new Date();
      const since = new Date(now.getTime() - intervalMs);
      for (const source of await activeAuthSources(database.db)) {
        if (!readBool(source.is_sync_enabled)) continue;
        const claimed = await claimAuthSourceSync(
          database.db,
          source.id,
          toStoredTime(now, database.dialect),
          toStoredTime(since, database.dialect),
        );
        if (!claimed) continue;
        try {
          const report = await syncAuthSource(database, source);
          logger.info({ report, started: now.toISOString() }, "directory synchronized");
        } catch (error) {
          logger.warn(
            { source: source.name, reason: error instanceof Error ? error.message : String(error) },
            "directory sync failed",
          );
          // A failed sync is not the period's: the next check tries again.
          await noteAuthSourceSync(database.db, source.id, source.synced_at);
        }
      }
    });
    running = running.catch((error) => logger.error({ err: error }, "directory sync"));
  };
  // Checked more often than the period, so a process that starts late still syncs on time.
  const timer = setInterval(tick, Math.min(intervalMs, 60_000));
  timer.unref();
  tick();
  return {
    close: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
