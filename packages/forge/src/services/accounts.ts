import {
  BadRequest,
  type Database,
  hashPassword,
  Invalid,
  isUniqueViolation,
  NotFound,
  readBool,
  toStoredTime,
} from "@anvil/core";
import {
  type AccountChanges,
  type AccountRow,
  deleteAccount,
  findAccountByName,
  insertAccount,
  listAccounts,
  updateAccount,
} from "../repositories/accounts.ts";
import { findAuthSource, findAuthSourceByName } from "../repositories/auth-sources.ts";
import { isInAnyOrganization } from "../repositories/organizations.ts";
import { countOwnedRepositories } from "../repositories/repos.ts";
import { ACCOUNT_USER, type ForgeTables } from "../schemas/tables.ts";
import { claimPrimaryEmail } from "./emails.ts";
import { checkAccountName, checkEmail } from "./names.ts";

export type ForgeDatabase = Database<ForgeTables>;

export const MIN_PASSWORD_LENGTH = 8;
const VISIBILITIES = ["public", "limited", "private"];

export interface NewUser {
  username: string;
  email: string;
  password?: string;
  full_name?: string;
  login_name?: string;
  source_id?: number;
  /** The source by its name, when source_id is not given. */
  source_name?: string;
  must_change_password?: boolean;
  restricted?: boolean;
  visibility?: string;
  admin?: boolean;
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new BadRequest(`password is too short: at least ${MIN_PASSWORD_LENGTH} characters are required`);
}

export function checkVisibility(visibility: string | undefined): void {
  if (visibility !== undefined && visibility !== "" && !VISIBILITIES.includes(visibility))
    throw new Invalid("[Visibility]: In");
}

// Only local accounts exist until authentication sources do; Gitea answers 422 for a source it
// cannot find.
async function sourceNamed(database: ForgeDatabase, name: string | undefined): Promise<number | undefined> {
  if (name === undefined || name === "") return undefined;
  const source = await findAuthSourceByName(database.db, name);
  if (!source) throw new Invalid(`login source does not exist [name: ${name}]`);
  return source.id;
}

/** Whether the account signs in with a source's directory; throws when there is no such source. */
async function checkSource(database: ForgeDatabase, sourceId: number | undefined): Promise<boolean> {
  if (sourceId === undefined || sourceId === 0) return false;
  if (!(await findAuthSource(database.db, sourceId)))
    throw new Invalid(`login source does not exist [id: ${sourceId}]`);
  return true;
}

/** The duplicate a unique violation stands for, in Gitea's words (422 for users). */
async function duplicateOf(database: ForgeDatabase, username: string, email: string): Promise<Invalid> {
  const existing = await findAccountByName(database.db, username);
  return existing
    ? new Invalid(`user already exists [name: ${username}]`)
    : new Invalid(`e-mail already in use [email: ${email}]`);
}

export async function getAccount(database: ForgeDatabase, name: string): Promise<AccountRow> {
  const account = await findAccountByName(database.db, name);
  if (!account) throw new NotFound(`user does not exist [uid: 0, name: ${name}]`);
  return account;
}

/** A user by name; an organization of that name does not count. */
export async function getUser(database: ForgeDatabase, name: string): Promise<AccountRow> {
  const account = await getAccount(database, name);
  if (account.type !== ACCOUNT_USER) throw new NotFound(`user does not exist [uid: 0, name: ${name}]`);
  return account;
}

export async function createUser(database: ForgeDatabase, input: NewUser): Promise<AccountRow> {
  checkAccountName(input.username);
  checkEmail(input.email);
  const sourceId = input.source_id ?? (await sourceNamed(database, input.source_name));
  const external = await checkSource(database, sourceId);
  checkVisibility(input.visibility);
  // A source's user signs in with the directory's password: none is kept here, nor asked to be
  // changed here (Gitea checks the password of local users only).
  if (!external) {
    if (input.password === undefined || input.password === "") throw new BadRequest("password is required");
    checkPassword(input.password);
  }
  await claimPrimaryEmail(database, input.email);
  const now = toStoredTime(new Date(), database.dialect);
  try {
    return await insertAccount(database.db, {
      type: ACCOUNT_USER,
      name: input.username,
      lower_name: input.username.toLowerCase(),
      full_name: input.full_name ?? "",
      email: input.email,
      lower_email: input.email.toLowerCase(),
      password_hash: external || input.password === undefined ? "" : await hashPassword(input.password),
      login_name: input.login_name ?? "",
      source_id: sourceId ?? 0,
      is_admin: input.admin ?? false,
      must_change_password: !external && (input.must_change_password ?? true),
      restricted: input.restricted ?? false,
      visibility: input.visibility || "public",
      created_at: now,
      updated_at: now,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw await duplicateOf(database, input.username, input.email);
    throw error;
  }
}

export interface UserEdit {
  login_name: string;
  source_id: number;
  email?: string;
  full_name?: string;
  password?: string;
  must_change_password?: boolean;
  website?: string;
  location?: string;
  description?: string;
  active?: boolean;
  admin?: boolean;
  allow_create_organization?: boolean;
  max_repo_creation?: number;
  prohibit_login?: boolean;
  restricted?: boolean;
  visibility?: string;
}

export async function editUser(database: ForgeDatabase, name: string, edit: UserEdit): Promise<AccountRow> {
  const user = await getUser(database, name);
  const external = await checkSource(database, edit.source_id);
  checkVisibility(edit.visibility);
  const changes: AccountChanges = {
    login_name: edit.login_name,
    source_id: edit.source_id,
    updated_at: toStoredTime(new Date(), database.dialect),
  };
  if (edit.email !== undefined && edit.email !== "") {
    checkEmail(edit.email);
    changes.email = edit.email;
    changes.lower_email = edit.email.toLowerCase();
  }
  // A source's user keeps no password here and is never asked to change one here.
  if (external) changes.password_hash = "";
  else if (edit.password !== undefined && edit.password !== "") {
    checkPassword(edit.password);
    changes.password_hash = await hashPassword(edit.password);
  }
  const copied = [
    "full_name",
    "website",
    "location",
    "description",
    "must_change_password",
    "allow_create_organization",
    "max_repo_creation",
    "prohibit_login",
    "restricted",
  ] as const;
  for (const key of copied)
    if (edit[key] !== undefined) (changes as Record<string, unknown>)[key] = edit[key];
  if (external) changes.must_change_password = false;
  if (edit.active !== undefined) changes.is_active = edit.active;
  if (edit.admin !== undefined) changes.is_admin = edit.admin;
  if (edit.visibility) changes.visibility = edit.visibility;
  if (changes.email !== undefined && changes.lower_email !== user.lower_email)
    await claimPrimaryEmail(database, changes.email, user.id);
  try {
    const updated = await updateAccount(database.db, user.id, changes);
    if (!updated) throw new NotFound(`user does not exist [uid: ${user.id}, name: ${name}]`);
    return updated;
  } catch (error) {
    if (isUniqueViolation(error)) throw new Invalid(`e-mail already in use [email: ${edit.email}]`);
    throw error;
  }
}

export async function setPassword(
  database: ForgeDatabase,
  name: string,
  password: string,
  mustChangePassword: boolean,
): Promise<void> {
  checkPassword(password);
  const user = await getUser(database, name);
  await updateAccount(database.db, user.id, {
    password_hash: await hashPassword(password),
    must_change_password: mustChangePassword,
    updated_at: toStoredTime(new Date(), database.dialect),
  });
}

/** Gitea refuses to delete an owner whose repositories would go with it. */
export async function refuseIfOwningRepositories(
  database: ForgeDatabase,
  account: AccountRow,
): Promise<void> {
  const count = await countOwnedRepositories(database.db, account.id);
  if (count > 0)
    throw new Invalid(`user still has ownership of repositories [uid: ${account.id}, count: ${count}]`);
}

/** Deletes a user who owns no repositories and belongs to no organization, as Gitea requires. */
export async function deleteUser(database: ForgeDatabase, name: string): Promise<void> {
  const user = await getUser(database, name);
  await refuseIfOwningRepositories(database, user);
  if (await isInAnyOrganization(database.db, user.id))
    throw new Invalid(`user still has membership of organizations [uid: ${user.id}]`);
  await deleteAccount(database.db, user.id);
}

export async function listUsers(
  database: ForgeDatabase,
  query: { keyword?: string; id?: number; visibilities?: string[]; offset: number; limit: number },
): Promise<{ rows: AccountRow[]; total: number }> {
  return listAccounts(database.db, database.dialect, { type: ACCOUNT_USER, ...query });
}

export function isAdmin(account: AccountRow): boolean {
  return readBool(account.is_admin);
}

/** The visibilities `viewer` may see: limited accounts need a signed-in viewer, private ones an admin. */
export function visibleVisibilities(viewer: AccountRow | undefined): string[] | undefined {
  if (viewer === undefined) return ["public"];
  return isAdmin(viewer) ? undefined : ["public", "limited"];
}

/** An account `viewer` may see, or the same 404 as a missing one (Gitea never says 403 here). */
export function checkVisible(account: AccountRow, viewer: AccountRow | undefined): AccountRow {
  const allowed = visibleVisibilities(viewer);
  if (allowed && !allowed.includes(account.visibility) && viewer?.id !== account.id)
    throw new NotFound(`user does not exist [uid: 0, name: ${account.name}]`);
  return account;
}
