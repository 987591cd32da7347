import { randomBytes } from "node:crypto";
import { BadRequest, connectDatabase, migrate, NotFound, readBool, toStoredTime } from "@anvil/core";
import { migrations } from "./migrations/index.ts";
import { type AccountRow, deleteAccount, findAccountById, findUserByLogin } from "./repositories/accounts.ts";
import { type AuthSourceRow, noteAuthSourceSync } from "./repositories/auth-sources.ts";
import type { ForgeTables } from "./schemas/tables.ts";
import { createUser, type ForgeDatabase, getUser, listUsers } from "./services/accounts.ts";
import { editAuthSource, getAuthSource, listSources, type SourceInput } from "./services/auth-sources.ts";
import { type SyncReport, syncAuthSource } from "./services/directory-sync.ts";
import { createToken } from "./services/tokens.ts";

// What `anvil forge admin user …` does, as Gitea's `gitea admin user …`: it works on the same
// database as the server, whether the server is running or not.

/** Opens the forge's database for an admin command, migrated to the current schema. */
export async function openForgeDatabase(url: string): Promise<ForgeDatabase> {
  const database = await connectDatabase<ForgeTables>(url);
  try {
    await migrate(database.db, "forge", migrations);
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}

export interface AdminCreateUser {
  username: string;
  email: string;
  password?: string;
  randomPasswordLength?: number;
  admin?: boolean;
  /** Gitea's default: true, except for the first user of the site. */
  mustChangePassword?: boolean;
  restricted?: boolean;
  fullName?: string;
  accessToken?: { name: string; scopes: string[] };
}

export async function adminCreateUser(
  database: ForgeDatabase,
  input: AdminCreateUser,
): Promise<{ user: AccountRow; generatedPassword?: string; token?: string }> {
  const generatedPassword =
    input.password === undefined && input.randomPasswordLength !== undefined
      ? randomBytes(input.randomPasswordLength).toString("base64url").slice(0, input.randomPasswordLength)
      : undefined;
  const isFirstUser = (await listUsers(database, { offset: 0, limit: 1 })).total === 0;
  const user = await createUser(database, {
    username: input.username,
    email: input.email,
    password: input.password ?? generatedPassword,
    admin: input.admin,
    restricted: input.restricted,
    full_name: input.fullName,
    must_change_password: input.mustChangePassword ?? !isFirstUser,
  });
  const token = input.accessToken && (await createToken(database, user, input.accessToken)).secret;
  return { user, generatedPassword, token };
}

export async function adminGenerateToken(
  database: ForgeDatabase,
  username: string,
  token: { name: string; scopes: string[] },
): Promise<string> {
  return (await createToken(database, await getUser(database, username), token)).secret;
}

export { setPassword as adminChangePassword } from "./services/accounts.ts";

export async function adminListUsers(database: ForgeDatabase, adminsOnly: boolean): Promise<AccountRow[]> {
  const { rows } = await listUsers(database, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
  return adminsOnly ? rows.filter((row) => readBool(row.is_admin)) : rows;
}

/** Deletes the user named by id, name or e-mail; when several are given they must agree, as in Gitea. */
export async function adminDeleteUser(
  database: ForgeDatabase,
  which: { id?: number; username?: string; email?: string },
): Promise<AccountRow> {
  const candidates = [
    which.id !== undefined ? await findAccountById(database.db, which.id) : undefined,
    which.username !== undefined ? await findUserByLogin(database.db, which.username) : undefined,
    which.email !== undefined ? await findUserByLogin(database.db, which.email) : undefined,
  ];
  const asked = [which.id, which.username, which.email].filter((value) => value !== undefined).length;
  const found = candidates.filter((row): row is AccountRow => row !== undefined);
  if (asked === 0) throw new BadRequest("one of --id, --username or --email is required");
  if (found.length !== asked || found.some((row) => row.id !== found[0].id))
    throw new NotFound("the user does not exist");
  await deleteAccount(database.db, found[0].id);
  return found[0];
}

// What `anvil forge admin auth …` does, as `gitea admin auth …`.

export {
  createAuthSource as adminAddAuthSource,
  deleteAuthSource as adminDeleteAuthSource,
  SOURCE_TYPES,
  type SourceInput,
} from "./services/auth-sources.ts";
export type { SyncReport } from "./services/directory-sync.ts";

export async function adminListAuthSources(database: ForgeDatabase): Promise<AuthSourceRow[]> {
  return (await listSources(database, { offset: 0, limit: Number.MAX_SAFE_INTEGER })).rows;
}

/** Changes a source of the given type, as update-ldap and update-ldap-simple (which check the type). */
export function adminUpdateAuthSource(
  database: ForgeDatabase,
  id: number,
  type: "ldap" | "ldap_simple",
  input: SourceInput,
): Promise<AuthSourceRow> {
  return editAuthSource(database, id, { ...input, type });
}

/** Syncs the source `id`, or every active source with synchronization enabled. */
export async function adminSyncAuthSources(database: ForgeDatabase, id?: number): Promise<SyncReport[]> {
  const sources =
    id === undefined
      ? (await adminListAuthSources(database)).filter(
          (source) => readBool(source.is_active) && readBool(source.is_sync_enabled),
        )
      : [await getAuthSource(database, id)];
  const reports: SyncReport[] = [];
  for (const source of sources) {
    await noteAuthSourceSync(database.db, source.id, toStoredTime(new Date(), database.dialect));
    reports.push(await syncAuthSource(database, source));
  }
  return reports;
}
