import {
  Conflict,
  checkPasswordLogin,
  hashPassword,
  Invalid,
  isUniqueViolation,
  type LoginLimits,
  type PasswordAccounts,
  verifyPassword,
} from "@anvil/core";
import { recordLoginAttempt } from "../repositories/login-attempts.ts";
import { groupPermissionsOf } from "../repositories/tokens.ts";
import {
  anyUser,
  forgetTwoFactor,
  insertUser,
  lockUsers,
  replacePasswordHash,
  undeletedUser,
  undeletedUsersByEmail,
} from "../repositories/users.ts";
import { logAction, type RequestOrigin } from "./activity.ts";
import { rowVisibleTo } from "./companies.ts";
import { type Executor, type InventoryDatabase, storedNow } from "./database.ts";
import { type Caller, isSuperuser, parsePermissions, type UserRow } from "./permissions.ts";

export const SETUP_DONE = "The first user has been created already; sign in instead.";

/**
 * A user made outside the API (the admin command, the first-run setup page, tests): there is no
 * acting user yet. Superusers get `{"superuser":"1"}`; every user may use the API (`self.api`), as
 * Snipe-IT's defaults give. With `onlyFirst`, refused (Conflict) once any user exists.
 */
export async function createFirstUser(
  database: InventoryDatabase,
  input: { username: string; password: string; email: string; superuser?: boolean; firstName?: string },
  options: { onlyFirst?: boolean } = {},
): Promise<UserRow> {
  if (input.password.length < 8) throw new Invalid("The password field must be at least 8 characters.");
  const now = storedNow(database.dialect);
  const permissions = input.superuser ? { superuser: "1" } : { "self.api": "1" };
  const password = await hashPassword(input.password);
  try {
    return await database.db.transaction().execute(async (trx) => {
      if (options.onlyFirst) {
        await lockUsers(trx, database.dialect);
        if (await anyUser(trx)) throw new Conflict(SETUP_DONE);
      }
      const user = await insertUser(trx, {
        first_name: input.firstName ?? input.username,
        username: input.username,
        email: input.email,
        password,
        permissions: JSON.stringify(permissions),
        created_at: now,
        updated_at: now,
      });
      await logAction(trx, database.dialect, {
        createdBy: null,
        actionType: "create",
        item: { type: "user", id: user.id },
        note: options.onlyFirst ? "created by the first-run setup" : "created by the admin command",
      });
      return user;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new Invalid("The username must be unique.");
    throw error;
  }
}

export function findUserByUsername(
  database: InventoryDatabase,
  username: string,
): Promise<UserRow | undefined> {
  return undeletedUser(database.db, { username });
}

/** Whether the first-run setup is over: some user exists (or existed). */
export function hasAnyUser(database: InventoryDatabase): Promise<boolean> {
  return anyUser(database.db);
}

/**
 * The user a sign-in name names: by username, else by e-mail address when exactly one user has it
 * (Snipe-IT's "Username or e-mail"); an address two users share names no one.
 */
async function userBySignInName(database: InventoryDatabase, login: string): Promise<UserRow | undefined> {
  const byName = await findUserByUsername(database, login);
  if (byName || !login.includes("@")) return byName;
  const byEmail = await undeletedUsersByEmail(database.db, login);
  return byEmail.length === 1 ? byEmail[0] : undefined;
}

function passwordUsers(database: InventoryDatabase): PasswordAccounts<UserRow> {
  return {
    find: (login) => userBySignInName(database, login),
    hashOf: (user) => user.password,
    replaceHash: (user, previous, next) => replacePasswordHash(database.db, user.id, previous, next),
  };
}

/**
 * The user a username and password sign in, or undefined; TooManyRequests when the username or
 * the address has failed too often lately. The web sign-in form's check, through core's one
 * mechanism (the same work for unknown names, limits kept in the database, re-hash on success).
 */
export async function checkSignIn(
  database: InventoryDatabase,
  limits: LoginLimits,
  attempt: { username: string; password: string; address: string; userAgent?: string },
): Promise<UserRow | undefined> {
  const user = await checkPasswordLogin(database.db, limits, passwordUsers(database), {
    login: attempt.username,
    password: attempt.password,
    address: attempt.address,
  });
  // Attempts the limit refused never had their password checked, so they are not sign-ins.
  const now = storedNow(database.dialect);
  await recordLoginAttempt(database.db, {
    username: attempt.username.slice(0, 191),
    remote_ip: attempt.address,
    user_agent: attempt.userAgent?.slice(0, 1024) ?? null,
    successful: user === undefined ? 0 : 1,
    created_at: now,
    updated_at: now,
  });
  return user;
}

/**
 * Replaces the user's own password once the current one is given right (min. 8 characters and
 * confirmed, as the API's user rules ask). Invalid with field messages otherwise.
 */
export async function changeOwnPassword(
  database: InventoryDatabase,
  user: UserRow,
  input: { current: string; password: string; confirmation: string },
): Promise<void> {
  const details: Record<string, string[]> = {};
  if (!(await verifyPassword(input.current, user.password || undefined)))
    details.current_password = ["The current password is incorrect."];
  if (input.password.length < 8) details.password = ["The password field must be at least 8 characters."];
  else if (input.password !== input.confirmation)
    details.password = ["The password field confirmation does not match."];
  if (Object.keys(details).length > 0) throw new Invalid("The password was not changed.", details);
  await replacePasswordHash(database.db, user.id, user.password, await hashPassword(input.password));
}

/** The undeleted user with this id, if the caller may see them. */
export async function visibleUser(
  database: InventoryDatabase,
  caller: Caller,
  id: number,
): Promise<UserRow | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  const user = await undeletedUser(database.db, { id });
  return user && (await rowVisibleTo(database.db, caller, "users", id)) ? user : undefined;
}

/**
 * Forgets the user's enrolled two-factor device, so they enrol anew at their next sign-in; false
 * when there is no such user for the caller. Logged as Snipe-IT logs it.
 */
export async function resetTwoFactor(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  id: number,
): Promise<boolean> {
  const user = await visibleUser(database, caller, id);
  if (!user) return false;
  await database.db.transaction().execute(async (trx) => {
    await forgetTwoFactor(trx, user.id);
    await logAction(trx, database.dialect, {
      createdBy: caller.user.id,
      actionType: "2FA reset",
      item: { type: "user", id: user.id },
      target: { type: "user", id: user.id },
      origin,
    });
  });
  return true;
}

/** Whether the account is a superuser, by its own permissions or a group's. */
export async function isSuperuserAccount(
  db: Executor,
  user: { id: number; permissions?: unknown },
): Promise<boolean> {
  const groups = await groupPermissionsOf(db, user.id);
  return isSuperuser({
    own: parsePermissions(user.permissions as string | null),
    groups: groups.map((group) => parsePermissions(group.permissions)),
  });
}
