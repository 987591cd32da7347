import { RowMemo, readBool } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import { findMembership, memberOrgIds } from "../repositories/organizations.ts";
import {
  collaborationModes,
  findCollaboration,
  type RepositoryRow,
  teamsReaching,
  teamUnitsOn,
} from "../repositories/repos.ts";
import { listTeamUnits } from "../repositories/teams.ts";
import { ACCOUNT_ORGANIZATION } from "../schemas/tables.ts";
import { type ForgeDatabase, isAdmin } from "./accounts.ts";
import { accessLevel } from "./teams.ts";
import { REPOSITORY_UNITS, type Unit } from "./units.ts";

// Access to a repository, as Gitea's Permission: a mode over the repository as a whole (what its
// settings, collaborators and deletion need) and, when teams give it, a mode per unit (code,
// issues, pulls…). Whether a caller may see the repository at all is "some unit readable": no
// access is a 404, never a 403. This file is the one place that decides it, for single
// repositories and (with the same rule as a filter in repositories/repos.ts) for lists.

export const ACCESS_NONE = 0;
export const ACCESS_READ = 1;
export const ACCESS_WRITE = 2;
export const ACCESS_ADMIN = 3;
export const ACCESS_OWNER = 4;

export const COLLABORATOR_MODES: Readonly<Record<string, number>> = {
  read: ACCESS_READ,
  write: ACCESS_WRITE,
  admin: ACCESS_ADMIN,
};

export function accessName(mode: number): "none" | "read" | "write" | "admin" | "owner" {
  return (["none", "read", "write", "admin", "owner"] as const)[mode] ?? "none";
}

export interface Permission {
  /** Gitea's AccessMode over the repository as a whole. */
  readonly mode: number;
  /** Each unit's mode when teams decide them; without it, `mode` holds for every unit. */
  readonly units?: ReadonlyMap<Unit, number>;
}

/** What the caller may do with one unit of the repository: the question every route asks. */
export function accessTo(permission: Permission, unit: Unit): number {
  if (!REPOSITORY_UNITS.includes(unit)) return ACCESS_NONE;
  const mode = permission.units?.get(unit);
  if (mode === undefined || permission.mode >= ACCESS_ADMIN) return permission.mode;
  return mode;
}

/** Whether the caller may see the repository: some unit of it is readable. */
export function canSee(permission: Permission): boolean {
  if (permission.mode >= ACCESS_READ) return true;
  return [...(permission.units?.values() ?? [])].some((mode) => mode >= ACCESS_READ);
}

/** A key for memo entries that depend on a permission. */
export function permissionKey(permission: Permission): string {
  return `${permission.mode}:${REPOSITORY_UNITS.map((unit) => accessTo(permission, unit)).join("")}`;
}

/** A team of the caller's that reaches the repository: its mode, and its mode on each unit. */
interface TeamGrant {
  authorize: string;
  units: ReadonlyMap<string, string>;
}

/** What is known of a signed-in caller's grants on one repository. */
interface Grants {
  collaboration: number | undefined;
  /** Whether the caller belongs to the organization that owns the repository. */
  member: boolean;
  teams: readonly TeamGrant[];
}

const NO_GRANTS: Grants = { collaboration: undefined, member: false, teams: [] };

/**
 * Gitea's HasOrgOrUserVisible: whether `viewer` may see the repository's owner. Private owners and,
 * for restricted users, every owner are seen only from inside (its members; a user by themself).
 */
function ownerVisible(owner: AccountRow, viewer: AccountRow | undefined, member: boolean): boolean {
  if (!viewer) return owner.visibility === "public";
  if (isAdmin(viewer) || viewer.id === owner.id) return true;
  return !((owner.visibility === "private" || readBool(viewer.restricted)) && !member);
}

/** The one rule, given what is known of the viewer's grants on the repository. */
function permissionFrom(
  repository: RepositoryRow,
  owner: AccountRow,
  viewer: AccountRow | undefined,
  grants: Grants,
): Permission {
  if (viewer && (isAdmin(viewer) || viewer.id === owner.id)) return { mode: ACCESS_OWNER };
  const visible = ownerVisible(owner, viewer, grants.member);
  // A collaborator reaches the repository even where its owner is hidden from them.
  if (!visible && grants.collaboration === undefined) return { mode: ACCESS_NONE };
  // Restricted users read public repositories only of public organizations they belong to.
  const restricted = viewer !== undefined && readBool(viewer.restricted);
  const publicRead =
    !readBool(repository.is_private) && visible && (!restricted || owner.visibility === "public")
      ? ACCESS_READ
      : ACCESS_NONE;
  const base = Math.max(grants.collaboration ?? ACCESS_NONE, publicRead);
  const teamModes = grants.teams.map((team) => accessLevel(team.authorize));
  // As in Gitea, a team with admin access makes its members owners of the repository.
  if (teamModes.some((mode) => mode >= ACCESS_ADMIN)) return { mode: ACCESS_OWNER };
  const mode = Math.max(base, ...teamModes);
  if (grants.teams.length === 0) return { mode };
  // Each unit: what the teams give on it, and no less than a collaborator or any reader has. (Gitea
  // lifts a collaborator's units to their teams' overall mode, so an issues-only team would give a
  // read collaborator code write: not copied.)
  const units = new Map(
    REPOSITORY_UNITS.map((unit) => [
      unit,
      Math.max(base, ...grants.teams.map((team) => Math.max(0, accessLevel(team.units.get(unit) ?? "none")))),
    ]),
  );
  return { mode, units };
}

/** Each team's grant by team id, from its rows and the rows of its listed units. */
function grantsByTeam(
  teams: readonly { team_id: number; authorize: string }[],
  units: readonly { team_id: number; unit: string | null; access_mode: string | null }[],
): Map<number, TeamGrant> {
  const unitsOf = new Map<number, Map<string, string>>(teams.map((team) => [team.team_id, new Map()]));
  for (const row of units)
    if (row.unit !== null && row.access_mode !== null)
      unitsOf.get(row.team_id)?.set(row.unit, row.access_mode);
  return new Map(
    teams.map((team) => [
      team.team_id,
      { authorize: team.authorize, units: unitsOf.get(team.team_id) as Map<string, string> },
    ]),
  );
}

// A signed-in caller's access is asked for on nearly every call they make; it is kept while the
// repository, its owner and the caller are unchanged (core's RowMemo), and with them their grants.
const keptPermissions = new RowMemo<Permission>();

/** The caller's permission on one repository. */
export async function repositoryPermission(
  database: ForgeDatabase,
  repository: RepositoryRow,
  owner: AccountRow,
  viewer: AccountRow | undefined,
): Promise<Permission> {
  // Anonymous callers, owners and site admins need no look-up at all.
  if (!viewer || isAdmin(viewer) || viewer.id === owner.id)
    return permissionFrom(repository, owner, viewer, NO_GRANTS);
  const rows = [repository, owner, viewer];
  const kept = keptPermissions.find(rows, "");
  if (kept !== undefined) return kept;
  const organization = owner.type === ACCOUNT_ORGANIZATION;
  // Membership decides only whether a private organization, or any owner for a restricted user, is seen.
  const asksMembership = organization && (owner.visibility === "private" || readBool(viewer.restricted));
  const [collaboration, membership, teams] = await Promise.all([
    findCollaboration(database.db, repository.id, viewer.id),
    asksMembership ? findMembership(database.db, owner.id, viewer.id) : undefined,
    organization ? teamUnitsOn(database.db, viewer.id, repository) : [],
  ]);
  const permission = permissionFrom(repository, owner, viewer, {
    collaboration: collaboration?.mode,
    member: membership !== undefined,
    teams: [...grantsByTeam(teams, teams).values()],
  });
  keptPermissions.keep(rows, "", permission);
  return permission;
}

/** repositoryPermission for a page of repositories, with four queries for the viewer's grants. */
export async function repositoriesPermission(
  database: ForgeDatabase,
  rows: Array<{ repository: RepositoryRow; owner: AccountRow }>,
  viewer: AccountRow | undefined,
): Promise<Permission[]> {
  if (!viewer || isAdmin(viewer))
    return rows.map(({ repository, owner }) => permissionFrom(repository, owner, viewer, NO_GRANTS));
  const ids = rows.map((row) => row.repository.id);
  const orgIds = [
    ...new Set(rows.filter((row) => row.owner.type === ACCOUNT_ORGANIZATION).map((row) => row.owner.id)),
  ];
  const [modes, memberships, reach] = await Promise.all([
    collaborationModes(database.db, viewer.id, ids),
    memberOrgIds(database.db, viewer.id, orgIds),
    teamsReaching(database.db, viewer.id),
  ]);
  const units = await listTeamUnits(database.db, [...new Set(reach.map((row) => row.team_id))]);
  const grantOf = grantsByTeam(reach, units);
  const teamsOn = (repository: RepositoryRow) => {
    const ids = reach
      .filter(
        (row) =>
          row.org_id === repository.owner_id &&
          (readBool(row.includes_all_repositories) || row.repo_id === repository.id),
      )
      .map((row) => row.team_id);
    return [...new Set(ids)].map((id) => grantOf.get(id) as TeamGrant);
  };
  return rows.map(({ repository, owner }) =>
    permissionFrom(repository, owner, viewer, {
      collaboration: modes.get(repository.id),
      member: memberships.includes(owner.id),
      teams: owner.type === ACCOUNT_ORGANIZATION ? teamsOn(repository) : [],
    }),
  );
}
