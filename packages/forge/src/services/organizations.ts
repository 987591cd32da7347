import { Forbidden, Invalid, isUniqueViolation, NotFound, readBool, toStoredTime } from "@anvil/core";
import {
  type AccountChanges,
  type AccountRow,
  deleteAccount,
  findAccountByName,
  insertAccount,
  updateAccount,
} from "../repositories/accounts.ts";
import {
  deleteMembership,
  findMembership,
  insertMembership,
  listMembers,
  listOrganizations,
  memberOrgIds,
  type OrgVisibility,
  setMembershipPublic,
} from "../repositories/organizations.ts";
import { deleteTeamMemberships, findOwnersTeam, listOwners } from "../repositories/teams.ts";
import { ACCOUNT_ORGANIZATION } from "../schemas/tables.ts";
import {
  checkVisibility,
  type ForgeDatabase,
  isAdmin,
  refuseIfOwningRepositories,
  visibleVisibilities,
} from "./accounts.ts";
import { checkAccountName, checkEmail } from "./names.ts";
import {
  accessLevel,
  addOwnersTeam,
  canCreateOrgRepo,
  HIDDEN,
  type OrgRole,
  refuseLastOwner,
  roleIn,
} from "./teams.ts";

// Organizations are accounts of type 1 with the same name rules as users; who belongs to one is
// org_user, who owns one is its Owners team (services/teams.ts).

type Window = { offset: number; limit: number };

export interface OrganizationFields {
  full_name?: string;
  email?: string;
  description?: string;
  website?: string;
  location?: string;
  visibility?: string;
  repo_admin_change_team_access?: boolean;
}

export interface NewOrganization extends OrganizationFields {
  username: string;
}

// Gitea's binding limits on CreateOrgOption and EditOrgOption: field, name in messages, length.
const MAX_SIZES = [
  ["full_name", "FullName", 100],
  ["email", "Email", 255],
  ["description", "Description", 255],
  ["website", "Website", 255],
  ["location", "Location", 50],
] as const;

function isWebUrl(text: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

function checkOrganizationFields(fields: OrganizationFields): void {
  for (const [key, name, max] of MAX_SIZES)
    if ((fields[key]?.length ?? 0) > max) throw new Invalid(`[${name}]: MaxSize`);
  if (fields.email) checkEmail(fields.email);
  if (fields.website && !isWebUrl(fields.website)) throw new Invalid("[Website]: ValidUrl");
  checkVisibility(fields.visibility);
}

function orgNotFound(name: string): NotFound {
  return new NotFound(`org does not exist [id: 0, name: ${name}]`);
}

/** Gitea's CanCreateOrganization: site admins always, others when their account allows it. */
function mayCreateOrganizations(account: AccountRow): boolean {
  return isAdmin(account) || readBool(account.allow_create_organization);
}

/**
 * Creates an organization owned by `owner`: the account, the membership and the Owners team with
 * the owner in it, all or nothing. `creator` is who asks (the owner, or a site admin for them).
 */
export async function createOrganization(
  database: ForgeDatabase,
  owner: AccountRow,
  input: NewOrganization,
  creator: AccountRow = owner,
): Promise<AccountRow> {
  if (!mayCreateOrganizations(creator)) throw new Forbidden("user is not allowed to create organizations");
  checkAccountName(input.username);
  checkOrganizationFields(input);
  const now = toStoredTime(new Date(), database.dialect);
  const email = input.email ?? "";
  try {
    return await database.db.transaction().execute(async (trx) => {
      const org = await insertAccount(trx, {
        type: ACCOUNT_ORGANIZATION,
        name: input.username,
        lower_name: input.username.toLowerCase(),
        full_name: input.full_name ?? "",
        email,
        lower_email: email.toLowerCase(),
        description: input.description ?? "",
        website: input.website ?? "",
        location: input.location ?? "",
        visibility: input.visibility || "public",
        repo_admin_change_team_access: input.repo_admin_change_team_access ?? false,
        created_at: now,
        updated_at: now,
      });
      await insertMembership(trx, org.id, owner.id);
      await addOwnersTeam(trx, org.id, owner.id);
      return org;
    });
  } catch (error) {
    // The account's name is the only unique thing a new organization can collide on.
    if (isUniqueViolation(error)) throw new Invalid(`user already exists [name: ${input.username}]`);
    throw error;
  }
}

/** An organization by name, whoever asks (site admin paths). */
export async function getOrganization(database: ForgeDatabase, name: string): Promise<AccountRow> {
  const org = await findAccountByName(database.db, name);
  if (!org || org.type !== ACCOUNT_ORGANIZATION) throw orgNotFound(name);
  return org;
}

/**
 * Which organizations `viewer` may see, as Gitea's HasOrgOrUserVisible: anonymous callers the
 * public ones, users the public and limited ones, restricted users none, and everyone those they
 * belong to; site admins all (undefined).
 */
function visibilityFor(viewer: AccountRow | undefined): OrgVisibility | undefined {
  const visibilities = visibleVisibilities(viewer);
  if (!visibilities || !viewer) return visibilities && { visibilities };
  return { visibilities: readBool(viewer.restricted) ? [] : visibilities, memberId: viewer.id };
}

/** An organization `viewer` may see, with their role in it; otherwise the same 404 as a missing one. */
export async function getVisibleOrganization(
  database: ForgeDatabase,
  name: string,
  viewer: AccountRow | undefined,
): Promise<{ org: AccountRow; role: OrgRole }> {
  const org = await getOrganization(database, name);
  const role = await roleIn(database, org.id, viewer);
  const visibility = visibilityFor(viewer);
  if (visibility && !visibility.visibilities.includes(org.visibility) && !role.member)
    throw orgNotFound(name);
  return { org, role };
}

export function requireOrgOwner(viewer: AccountRow, role: OrgRole): void {
  if (!isAdmin(viewer) && !role.owner) throw new Forbidden("Must be an organization owner");
}

export function requireOrgMember(viewer: AccountRow, role: OrgRole): void {
  if (!isAdmin(viewer) && !role.member) throw new Forbidden("Must be an organization member");
}

export async function editOrganization(
  database: ForgeDatabase,
  org: AccountRow,
  edit: OrganizationFields,
): Promise<AccountRow> {
  checkOrganizationFields(edit);
  const changes: AccountChanges = { updated_at: toStoredTime(new Date(), database.dialect) };
  const copied = [
    "full_name",
    "description",
    "website",
    "location",
    "repo_admin_change_team_access",
  ] as const;
  for (const key of copied)
    if (edit[key] !== undefined) (changes as Record<string, unknown>)[key] = edit[key];
  if (edit.email !== undefined) {
    changes.email = edit.email;
    changes.lower_email = edit.email.toLowerCase();
  }
  if (edit.visibility) changes.visibility = edit.visibility;
  const updated = await updateAccount(database.db, org.id, changes);
  if (!updated) throw orgNotFound(org.name);
  return updated;
}

/** Deletes the organization with its memberships and teams; one that still owns repositories is refused, as in Gitea. */
export async function deleteOrganization(database: ForgeDatabase, org: AccountRow): Promise<void> {
  await refuseIfOwningRepositories(database, org);
  await deleteAccount(database.db, org.id);
}

/** Organizations `viewer` may see, by name. */
export function listVisibleOrganizations(
  database: ForgeDatabase,
  viewer: AccountRow | undefined,
  window: Window,
) {
  return listOrganizations(database.db, { visible: visibilityFor(viewer), ...window });
}

export function listAllOrganizations(database: ForgeDatabase, window: Window) {
  return listOrganizations(database.db, window);
}

/**
 * A user's organizations: all of them for the user and site admins, else the visible ones they
 * belong to publicly.
 */
export function listUserOrganizations(
  database: ForgeDatabase,
  user: AccountRow,
  viewer: AccountRow | undefined,
  window: Window,
) {
  const all = viewer !== undefined && (viewer.id === user.id || isAdmin(viewer));
  return listOrganizations(database.db, {
    member: { id: user.id, publicOnly: !all },
    visible: all ? undefined : visibilityFor(viewer),
    ...window,
  });
}

/**
 * The owners of those of `orgs` whose owners `viewer` may see: site admins see all, members those
 * of their organizations.
 */
export async function ownersVisibleTo(
  database: ForgeDatabase,
  orgs: AccountRow[],
  viewer: AccountRow | undefined,
): Promise<Map<number, AccountRow[]>> {
  if (!viewer || orgs.length === 0) return new Map();
  const ids = orgs.map((org) => org.id);
  const shown = isAdmin(viewer) ? ids : await memberOrgIds(database.db, viewer.id, ids);
  const owners = new Map<number, AccountRow[]>(shown.map((id) => [id, []]));
  for (const { owner_of, ...owner } of await listOwners(database.db, shown))
    owners.get(owner_of)?.push(owner);
  return owners;
}

/** What `user` may do in the organization, from the teams they are in (Gitea's OrganizationPermissions). */
export async function organizationPermissions(database: ForgeDatabase, org: AccountRow, user: AccountRow) {
  const role = await roleIn(database, org.id, user);
  const level = Math.max(0, ...role.teams.map((team) => accessLevel(team.authorize)));
  return {
    can_create_repository: role.owner || role.teams.some(canCreateOrgRepo),
    can_read: level > accessLevel("none"),
    can_write: level > accessLevel("read"),
    is_admin: level > accessLevel("write"),
    is_owner: level > accessLevel("admin"),
  };
}

/** Whether `viewer` sees every member (its members and site admins do), or only the public ones. */
export function seesAllMembers(viewer: AccountRow | undefined, role: OrgRole): boolean {
  return viewer !== undefined && (isAdmin(viewer) || role.member);
}

export function listOrganizationMembers(
  database: ForgeDatabase,
  org: AccountRow,
  query: { publicOnly: boolean } & Window,
) {
  return listMembers(database.db, { orgId: org.id, ...query });
}

/** Answers 404 unless the account is a member (a public one, with `publicOnly`). */
export async function checkMember(
  database: ForgeDatabase,
  org: AccountRow,
  account: AccountRow,
  publicOnly: boolean,
): Promise<void> {
  const membership = await findMembership(database.db, org.id, account.id);
  if (!membership || (publicOnly && !readBool(membership.is_public))) throw new NotFound(HIDDEN);
}

/** Takes a user out of the organization and all its teams; the last owner stays. */
export async function removeMember(
  database: ForgeDatabase,
  org: AccountRow,
  user: AccountRow,
): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    const owners = await findOwnersTeam(trx, org.id, database.dialect);
    if (owners) await refuseLastOwner(trx, owners, user);
    await deleteTeamMemberships(trx, org.id, user.id);
    await deleteMembership(trx, org.id, user.id);
  });
}

/** Shows or hides one's own membership; Gitea lets no one do it for someone else. */
export async function setPublicMembership(
  database: ForgeDatabase,
  org: AccountRow,
  viewer: AccountRow,
  user: AccountRow,
  isPublic: boolean,
): Promise<void> {
  if (viewer.id !== user.id)
    throw new Forbidden(isPublic ? "Cannot publicize another member" : "Cannot conceal another member");
  await setMembershipPublic(database.db, org.id, user.id, isPublic);
}
