import { Forbidden, Invalid, isUniqueViolation, NotFound, readBool } from "@anvil/core";
import type { Kysely } from "kysely";
import { type AccountRow, findAccountById } from "../repositories/accounts.ts";
import { findMembership, insertMembership } from "../repositories/organizations.ts";
import {
  countTeamMembers,
  deleteTeamMember,
  deleteTeam as deleteTeamRow,
  findOwnersTeam,
  findTeamById,
  insertTeam,
  insertTeamMember,
  isTeamMember,
  listTeamMembers,
  listTeams,
  listTeamUnits,
  OWNER,
  replaceTeamUnits,
  type TeamChanges,
  type TeamRow,
  type TeamUnitRow,
  teamsOfMember,
  updateTeam,
} from "../repositories/teams.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import { type ForgeDatabase, isAdmin } from "./accounts.ts";
import { EXTERNAL_UNITS, isUnit, UNITS } from "./units.ts";

// Teams as Gitea has them: an access mode (`authorize`) and the repository units it reaches.
// Owning an organization is being in its Owners team, the one team whose mode is `owner`.

/** Gitea's message for a 404 that names nothing, so that it tells an outsider nothing either. */
export const HIDDEN = "The target couldn't be found.";

const OWNERS_TEAM = "Owners";

/** Gitea's access modes, weakest first. */
const MODES = ["none", "read", "write", "admin", "owner"];

/** The modes a team may have on one unit: `owner` belongs to the Owners team as a whole. */
const UNIT_MODES = ["none", "read", "write", "admin"];

const TEAM_NAME = /^[\w.-]+$/;
const MAX_TEAM_NAME = 255;
/** Gogs' limit on team names, on its admin path. */
const MAX_GOGS_TEAM_NAME = 30;
const MAX_DESCRIPTION = 255;

/** An access mode's rank: none 0, read 1, write 2, admin 3, owner 4. */
export function accessLevel(mode: string): number {
  return MODES.indexOf(mode);
}

const ADMIN = accessLevel("admin");

/** A member's standing in an organization: in it (org_user), an owner, and in which teams. */
export interface OrgRole {
  member: boolean;
  owner: boolean;
  teams: TeamRow[];
}

export async function roleIn(
  database: ForgeDatabase,
  orgId: number,
  account: AccountRow | undefined,
): Promise<OrgRole> {
  if (!account) return { member: false, owner: false, teams: [] };
  const [membership, teams] = await Promise.all([
    findMembership(database.db, orgId, account.id),
    teamsOfMember(database.db, orgId, account.id),
  ]);
  return { member: membership !== undefined, owner: teams.some((t) => t.authorize === OWNER), teams };
}

/** The units a team reaches and how, as Gitea reports them: admin and owner teams reach all. */
export function unitsMapOf(team: TeamRow, units: TeamUnitRow[]): Map<string, string> {
  if (accessLevel(team.authorize) >= ADMIN) return new Map(UNITS.map((unit) => [unit, team.authorize]));
  const stored = new Map(units.map((u) => [u.unit, u.access_mode]));
  return new Map(UNITS.filter((unit) => stored.has(unit)).map((unit) => [unit, stored.get(unit) as string]));
}

/** Each unit at `mode`, external ones at read, as Gitea stores an admin or owner team. */
function allUnitsAt(mode: string): Map<string, string> {
  return new Map(UNITS.map((unit) => [unit, EXTERNAL_UNITS.has(unit) ? "read" : mode]));
}

function checkUnit(unit: string): string {
  if (!isUnit(unit)) throw new Invalid(`unit does not exist [key: ${unit}]: use one of ${UNITS.join(", ")}`);
  return unit;
}

function checkUnitsMap(unitsMap: Record<string, string>): Map<string, string> {
  return new Map(
    Object.entries(unitsMap).map(([unit, mode]) => {
      if (!UNIT_MODES.includes(mode))
        throw new Invalid(
          `invalid access mode [unit: ${unit}, mode: ${mode}]: use one of ${UNIT_MODES.join(", ")}`,
        );
      return [checkUnit(unit), mode];
    }),
  );
}

/** Gitea's MinUnitAccessMode: the weakest mode above none, external units left out. */
function minUnitMode(units: Map<string, string>): string {
  const levels = [...units]
    .filter(([unit, mode]) => !EXTERNAL_UNITS.has(unit) && accessLevel(mode) > 0)
    .map(([, mode]) => accessLevel(mode));
  return MODES[levels.length > 0 ? Math.min(...levels) : 0];
}

/** A team body's `permission`: read, write or admin (none or absent: the units decide). */
function checkPermission(permission: string | undefined): string {
  if (permission === undefined || permission === "") return "none";
  if (!["none", "read", "write", "admin"].includes(permission)) throw new Invalid("[Permission]: In");
  return permission;
}

interface UnitsInput {
  units?: string[];
  units_map?: Record<string, string>;
}

/**
 * The access a team gets from `permission` and a body's units, as Gitea derives it: below admin,
 * `units_map` sets each unit (and the team's mode becomes the weakest of them), else `units`
 * gives the listed units the team's mode; admin reaches every unit. No units: undefined.
 */
function resolveAccess(
  permission: string,
  input: UnitsInput,
): { authorize: string; units: Map<string, string> | undefined } {
  const unitsMap =
    input.units_map && Object.keys(input.units_map).length > 0 ? checkUnitsMap(input.units_map) : undefined;
  const units = input.units && input.units.length > 0 ? input.units.map(checkUnit) : undefined;
  let authorize = permission;
  if (accessLevel(authorize) < ADMIN && unitsMap) authorize = minUnitMode(unitsMap);
  if (accessLevel(authorize) >= ADMIN) return { authorize, units: allUnitsAt(authorize) };
  if (unitsMap) return { authorize, units: unitsMap };
  return { authorize, units: units && new Map(units.map((unit) => [unit, authorize])) };
}

function checkTeamName(name: string, maxLength: number): void {
  if (name === "") throw new Invalid("[Name]: Required");
  if (!TEAM_NAME.test(name)) throw new Invalid("[Name]: AlphaDashDot");
  if (name.length > maxLength) throw new Invalid("[Name]: MaxSize");
  if (name === "new") throw new Invalid(`name is reserved [name: ${name}]`);
}

function checkDescription(description: string | undefined): void {
  if (description !== undefined && description.length > MAX_DESCRIPTION)
    throw new Invalid("[Description]: MaxSize");
}

function duplicateTeam(org: { id: number }, name: string): Invalid {
  return new Invalid(`team already exists [org_id: ${org.id}, name: ${name}]`);
}

/** Makes a new organization's Owners team with its creator in it, inside the creating transaction. */
export async function addOwnersTeam(db: Kysely<ForgeTables>, orgId: number, ownerId: number): Promise<void> {
  const team = await insertTeam(db, {
    org_id: orgId,
    name: OWNERS_TEAM,
    lower_name: OWNERS_TEAM.toLowerCase(),
    authorize: OWNER,
    includes_all_repositories: true,
    can_create_org_repo: true,
  });
  await replaceTeamUnits(db, team.id, allUnitsAt(OWNER));
  await insertTeamMember(db, team.id, ownerId);
}

export interface NewTeam extends UnitsInput {
  name: string;
  description?: string;
  permission?: string;
  includes_all_repositories?: boolean;
  can_create_org_repo?: boolean;
}

export async function createTeam(database: ForgeDatabase, org: AccountRow, input: NewTeam): Promise<TeamRow> {
  checkTeamName(input.name, MAX_TEAM_NAME);
  checkDescription(input.description);
  const { authorize, units } = resolveAccess(checkPermission(input.permission), input);
  // Gitea answers 500 here; the caller can fix this, so it is told how.
  if (!units)
    throw new Invalid("units permission should not be empty: a team below admin needs units or units_map");
  try {
    return await database.db.transaction().execute(async (trx) => {
      const team = await insertTeam(trx, {
        org_id: org.id,
        name: input.name,
        lower_name: input.name.toLowerCase(),
        description: input.description ?? "",
        authorize,
        includes_all_repositories: input.includes_all_repositories ?? false,
        can_create_org_repo: input.can_create_org_repo ?? false,
      });
      await replaceTeamUnits(trx, team.id, units);
      return team;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateTeam(org, input.name);
    throw error;
  }
}

/** Gogs' admin team: one mode (read when absent) over every unit, names of at most 30 characters. */
export async function createGogsTeam(
  database: ForgeDatabase,
  org: AccountRow,
  input: { name: string; description?: string; permission?: string },
): Promise<TeamRow> {
  checkTeamName(input.name, MAX_GOGS_TEAM_NAME);
  const permission = input.permission || "read";
  if (!["read", "write", "admin"].includes(permission)) throw new Invalid("[Permission]: In");
  return createTeam(database, org, {
    name: input.name,
    description: input.description,
    permission,
    units: [...UNITS],
  });
}

export interface TeamEdit extends UnitsInput {
  name?: string;
  description?: string;
  permission?: string;
  includes_all_repositories?: boolean;
  can_create_org_repo?: boolean;
}

/**
 * Edits a team as Gitea does, except that `includes_all_repositories` counts without `permission`
 * too, and a new mode without units moves the team's units to it. The Owners team keeps its name,
 * mode, units and repositories, and can always create repositories.
 */
export async function editTeam(database: ForgeDatabase, team: TeamRow, edit: TeamEdit): Promise<TeamRow> {
  const owners = team.authorize === OWNER;
  const changes: TeamChanges = {};
  if (edit.name !== undefined && edit.name !== "" && edit.name !== team.name) {
    checkTeamName(edit.name, MAX_TEAM_NAME);
    if (owners) throw new Invalid(`the ${OWNERS_TEAM} team cannot be renamed`);
    changes.name = edit.name;
    changes.lower_name = edit.name.toLowerCase();
  }
  if (edit.description !== undefined) {
    checkDescription(edit.description);
    changes.description = edit.description;
  }
  if (edit.can_create_org_repo !== undefined)
    changes.can_create_org_repo = owners || edit.can_create_org_repo;
  let units: Map<string, string> | undefined;
  if (!owners) {
    if (edit.includes_all_repositories !== undefined)
      changes.includes_all_repositories = edit.includes_all_repositories;
    const permission = edit.permission ? checkPermission(edit.permission) : team.authorize;
    const access = resolveAccess(permission, edit);
    units = access.units;
    if (access.authorize !== team.authorize) {
      changes.authorize = access.authorize;
      if (!units) {
        const current = await listTeamUnits(database.db, [team.id]);
        units = resolveAccess(access.authorize, { units: current.map((u) => u.unit) }).units;
      }
    }
  }
  try {
    return await database.db.transaction().execute(async (trx) => {
      const updated = Object.keys(changes).length > 0 ? await updateTeam(trx, team.id, changes) : team;
      if (units) await replaceTeamUnits(trx, team.id, units);
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateTeam({ id: team.org_id }, edit.name ?? team.name);
    throw error;
  }
}

export async function deleteTeam(database: ForgeDatabase, team: TeamRow): Promise<void> {
  if (team.authorize === OWNER) throw new Invalid(`the ${OWNERS_TEAM} team cannot be deleted`);
  await deleteTeamRow(database.db, team.id);
}

function teamNotFound(id: string): NotFound {
  return new NotFound(`team does not exist [org_id 0, team_id ${id}, name: ]`);
}

/** A team by the id in a path; anything but a number names no team. */
export async function getTeam(database: ForgeDatabase, id: string): Promise<TeamRow> {
  const team = /^\d{1,15}$/.test(id) ? await findTeamById(database.db, Number(id)) : undefined;
  if (!team) throw teamNotFound(id);
  return team;
}

export interface TeamAccess {
  team: TeamRow;
  org: AccountRow;
  role: OrgRole;
}

/**
 * A team for `viewer`, as Gitea's /teams/{id} routes allow: site admins, the organization's owners
 * and the team's members. A member of the organization outside the team is told 403; anyone else
 * finds no team at all.
 */
export async function getTeamFor(
  database: ForgeDatabase,
  id: string,
  viewer: AccountRow,
): Promise<TeamAccess> {
  const team = await getTeam(database, id);
  const [org, role] = await Promise.all([
    findAccountById(database.db, team.org_id),
    roleIn(database, team.org_id, viewer),
  ]);
  if (!org) throw teamNotFound(id);
  if (isAdmin(viewer) || role.owner || role.teams.some((t) => t.id === team.id)) return { team, org, role };
  if (role.member) throw new Forbidden("Must be a team member");
  throw teamNotFound(id);
}

/** Gitea's owner check on /teams/{id} routes: without the organization in the path, a 404. */
export function requireTeamOwner(viewer: AccountRow, role: OrgRole): void {
  if (!isAdmin(viewer) && !role.owner) throw new NotFound(HIDDEN);
}

export function listOrganizationTeams(
  database: ForgeDatabase,
  org: AccountRow,
  window: { offset: number; limit: number },
) {
  return listTeams(database.db, database.dialect, { orgId: org.id, ...window });
}

/** The teams the user is in, across organizations (GET /user/teams). */
export function listUserTeams(
  database: ForgeDatabase,
  user: AccountRow,
  window: { offset: number; limit: number },
) {
  return listTeams(database.db, database.dialect, { memberId: user.id, ...window });
}

/**
 * Gitea's team search, by name and optionally description: only site admins find teams they are
 * not in.
 */
export function searchTeams(
  database: ForgeDatabase,
  org: AccountRow,
  viewer: AccountRow,
  query: { keyword?: string; includeDescription: boolean; offset: number; limit: number },
) {
  return listTeams(database.db, database.dialect, {
    orgId: org.id,
    memberId: isAdmin(viewer) ? undefined : viewer.id,
    ...query,
  });
}

/** Each team's stored units, by team id. */
export async function teamUnits(
  database: ForgeDatabase,
  teams: TeamRow[],
): Promise<Map<number, TeamUnitRow[]>> {
  const rows = await listTeamUnits(
    database.db,
    teams.map((t) => t.id),
  );
  const byTeam = new Map<number, TeamUnitRow[]>(teams.map((t) => [t.id, []]));
  for (const row of rows) byTeam.get(row.team_id)?.push(row);
  return byTeam;
}

export function listMembersOfTeam(
  database: ForgeDatabase,
  team: TeamRow,
  window: { offset: number; limit: number },
) {
  return listTeamMembers(database.db, { teamId: team.id, ...window });
}

export async function checkTeamMember(
  database: ForgeDatabase,
  team: TeamRow,
  user: AccountRow,
): Promise<void> {
  if (!(await isTeamMember(database.db, team.id, user.id))) throw new NotFound(HIDDEN);
}

/** Adds a user to a team, and so to its organization. */
export async function addTeamMember(database: ForgeDatabase, team: TeamRow, user: AccountRow): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    await insertMembership(trx, team.org_id, user.id);
    await insertTeamMember(trx, team.id, user.id);
  });
}

/** Refuses to take the last owner out of the (locked) Owners team. */
export async function refuseLastOwner(
  db: Kysely<ForgeTables>,
  owners: TeamRow,
  account: AccountRow,
): Promise<void> {
  if ((await isTeamMember(db, owners.id, account.id)) && (await countTeamMembers(db, owners.id)) === 1)
    throw new Invalid(`user is the last member of owner team [uid: ${account.id}]`);
}

/** Takes a user out of a team; they stay a member of the organization, as in Gitea. */
export async function removeTeamMember(
  database: ForgeDatabase,
  team: TeamRow,
  user: AccountRow,
): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    if (team.authorize === OWNER) {
      const owners = await findOwnersTeam(trx, team.org_id, database.dialect);
      if (owners) await refuseLastOwner(trx, owners, user);
    }
    await deleteTeamMember(trx, team.id, user.id);
  });
}

/** Whether the team's members may create repositories in its organization. */
export function canCreateOrgRepo(team: TeamRow): boolean {
  return readBool(team.can_create_org_repo);
}
