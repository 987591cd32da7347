import {
  checkPasswordLogin,
  hashPassword,
  Invalid,
  isUniqueViolation,
  type LoginLimits,
  type PasswordAccounts,
} from "@anvil/core";
import { groupPermissionsOf } from "../repositories/tokens.ts";
import { logAction } from "./activity.ts";
import { type Executor, type InventoryDatabase, storedNow } from "./database.ts";
import { isSuperuser, parsePermissions, type UserRow } from "./permissions.ts";

/**
 * A user made outside the API (the admin command, tests): there is no acting user yet. Superusers
 * get `{"superuser":"1"}`; every user may use the API (`self.api`), as Snipe-IT's defaults give.
 */
export async function createFirstUser(
  database: InventoryDatabase,
  input: { username: string; password: string; email: string; superuser?: boolean; firstName?: string },
): Promise<UserRow> {
  if (input.password.length < 8) throw new Invalid("The password field must be at least 8 characters.");
  const now = storedNow(database.dialect);
  const permissions = input.superuser ? { superuser: "1" } : { "self.api": "1" };
  const password = await hashPassword(input.password);
  try {
    return await database.db.transaction().execute(async (trx) => {
      const user = await trx
        .insertInto("users")
        .values({
          first_name: input.firstName ?? input.username,
          username: input.username,
          email: input.email,
          password,
          permissions: JSON.stringify(permissions),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await logAction(trx, database.dialect, {
        createdBy: null,
        actionType: "create",
        item: { type: "user", id: user.id },
        note: "created by the admin command",
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
  return database.db
    .selectFrom("users")
    .selectAll()
    .where("username", "=", username)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

function passwordUsers(database: InventoryDatabase): PasswordAccounts<UserRow> {
  return {
    find: (username) => findUserByUsername(database, username),
    hashOf: (user) => user.password,
    replaceHash: async (user, previous, next) => {
      await database.db
        .updateTable("users")
        .set({ password: next })
        .where("id", "=", user.id)
        .where("password", "=", previous)
        .execute();
    },
  };
}

/**
 * The user a username and password sign in, or undefined; TooManyRequests when the username or
 * the address has failed too often lately. The web sign-in form's check, through core's one
 * mechanism (the same work for unknown names, limits kept in the database, re-hash on success).
 */
export function checkSignIn(
  database: InventoryDatabase,
  limits: LoginLimits,
  attempt: { username: string; password: string; address: string },
): Promise<UserRow | undefined> {
  return checkPasswordLogin(database.db, limits, passwordUsers(database), {
    login: attempt.username,
    password: attempt.password,
    address: attempt.address,
  });
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
