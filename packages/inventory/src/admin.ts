import { NotFound, openMigratedDatabase } from "@anvil/core";
import { migrations } from "./migrations/index.ts";
import type { InventoryTables } from "./schemas/tables.ts";
import type { InventoryDatabase } from "./services/database.ts";
import { readScopes, type UserRow } from "./services/permissions.ts";
import { createToken } from "./services/tokens.ts";
import { createFirstUser, findUserByUsername } from "./services/users.ts";

// What `anvil inventory admin …` does: it works on the same database as the server, whether the
// server is running or not.

/** Opens the inventory's database for an admin command, migrated to the current schema. */
export function openInventoryDatabase(url: string): Promise<InventoryDatabase> {
  return openMigratedDatabase<InventoryTables>(url, "inventory", migrations);
}

export interface AdminCreateUser {
  username: string;
  password: string;
  email: string;
  superuser?: boolean;
}

export function adminCreateUser(database: InventoryDatabase, input: AdminCreateUser): Promise<UserRow> {
  return createFirstUser(database, input);
}

/**
 * A new token for the user, limited to `scopes` (comma-separated permission names) when given;
 * returns its secret, which nothing stores.
 */
export async function adminCreateToken(
  database: InventoryDatabase,
  input: { username: string; name: string; readOnly?: boolean; scopes?: string },
): Promise<string> {
  const scopes =
    input.scopes === undefined ? undefined : readScopes(input.scopes.split(",").map((name) => name.trim()));
  const user = await findUserByUsername(database, input.username);
  if (!user) throw new NotFound(`user "${input.username}" does not exist`);
  return (await createToken(database, user, { name: input.name, readOnly: input.readOnly, scopes })).secret;
}
