import { copyFile, mkdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { Invalid, type Logger, NotFound, openMigratedDatabase } from "@anvil/core";
import { migrations } from "./migrations/index.ts";
import { groupPermissionsOf } from "./repositories/tokens.ts";
import type { InventoryTables } from "./schemas/tables.ts";
import type { InventoryDatabase } from "./services/database.ts";
import {
  IMPORT_TYPES,
  type ImportCounts,
  type ImportProgress,
  type ImportRowError,
  importErrors,
  processImport,
  storeImports,
} from "./services/imports.ts";
import { type Caller, parsePermissions, readScopes, type UserRow } from "./services/permissions.ts";
import { discard, generatedName, storageUnder } from "./services/storage.ts";
import { createToken } from "./services/tokens.ts";
import { createFirstUser, findUserByUsername, isSuperuserAccount } from "./services/users.ts";

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

export interface AdminImport {
  /** The CSV file, which is copied, never moved. */
  file: string;
  dataDir: string;
  /** An import type of spec §21 (asset, user, …). */
  type: string;
  update: boolean;
  /** The superuser the import runs as; the first superuser when not given. */
  username?: string;
  logger: Logger;
  progress?: ImportProgress;
}

/** The superuser named, or the first one made; imports from the command line act as them. */
async function importingUser(database: InventoryDatabase, username: string | undefined): Promise<UserRow> {
  if (username !== undefined) {
    const user = await findUserByUsername(database, username);
    if (!user) throw new NotFound(`user "${username}" does not exist`);
    if (!(await isSuperuserAccount(database.db, user)))
      throw new Invalid(`user "${username}" is not a superuser`);
    return user;
  }
  // A page at a time: one connection cannot read a group's permissions while a stream holds it.
  for (let after = 0; ; ) {
    const users = await database.db
      .selectFrom("users")
      .selectAll()
      .where("deleted_at", "is", null)
      .where("id", ">", after)
      .orderBy("id")
      .limit(100)
      .execute();
    for (const user of users) if (await isSuperuserAccount(database.db, user)) return user;
    if (users.length < 100) break;
    after = users[users.length - 1].id;
  }
  throw new NotFound(
    "there is no superuser: create one with `anvil inventory admin user create --superuser`",
  );
}

/**
 * Imports a CSV file as POST /imports then /imports/process/{id} would: it is kept among the
 * uploads (so GET /imports/{id} follows it), then processed as the importing superuser.
 */
export async function adminImport(
  database: InventoryDatabase,
  input: AdminImport,
): Promise<{ id: number; counts: ImportCounts; total: number; errors: ImportRowError[] }> {
  const importType = input.type.toLowerCase();
  if (!IMPORT_TYPES.includes(importType))
    throw new Invalid(`the import type must be one of ${IMPORT_TYPES.join(", ")}`);
  const user = await importingUser(database, input.username);
  const caller: Caller = {
    user,
    own: parsePermissions(user.permissions),
    groups: (await groupPermissionsOf(database.db, user.id)).map((group) =>
      parsePermissions(group.permissions),
    ),
    readOnly: false,
    rootUrl: new URL("http://localhost/"),
  };
  const storage = storageUnder(input.dataDir);
  const size = (await stat(input.file)).size;
  await mkdir(storage.incoming, { recursive: true });
  const staged = join(storage.incoming, generatedName());
  await copyFile(input.file, staged);
  let row: Awaited<ReturnType<typeof storeImports>>[number];
  try {
    [row] = await storeImports(database, storage, caller, [
      { field: "files", filename: basename(input.file), mimetype: "text/csv", path: staged, size },
    ]);
  } finally {
    await discard([staged]);
  }
  const { counts } = await processImport(
    database,
    storage,
    { caller, origin: { userAgent: "anvil inventory import" }, logger: input.logger },
    row,
    join(storage.imports, String(row.file_path)),
    { importType, mappings: {}, update: input.update, runBackup: false },
    input.progress,
  );
  const id = Number(row.id);
  return { id, counts, total: Number(row.rows_total), errors: await importErrors(database, id) };
}
