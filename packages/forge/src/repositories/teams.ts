import { containsText, countRows, type DialectName, forUpdate } from "@anvil/core";
import type { Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { ForgeTables, TeamTable, TeamUnitTable } from "../schemas/tables.ts";
import type { AccountRow } from "./accounts.ts";

export type TeamRow = Selectable<TeamTable>;
export type TeamUnitRow = Selectable<TeamUnitTable>;
export type TeamChanges = Updateable<TeamTable>;

export const OWNER = "owner";

export function insertTeam(db: Kysely<ForgeTables>, team: Insertable<TeamTable>): Promise<TeamRow> {
  return db.insertInto("team").values(team).returningAll().executeTakeFirstOrThrow();
}

export function findTeamById(db: Kysely<ForgeTables>, id: number): Promise<TeamRow | undefined> {
  return db.selectFrom("team").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * The organization's Owners team, locked until the transaction ends when `lock` names the
 * database: whoever changes its membership decides "is this the last owner?" alone.
 */
/** The organization's team with this name, in any case. */
export function findTeamByName(
  db: Kysely<ForgeTables>,
  orgId: number,
  name: string,
): Promise<TeamRow | undefined> {
  return db
    .selectFrom("team")
    .selectAll()
    .where("org_id", "=", orgId)
    .where("lower_name", "=", name.toLowerCase())
    .executeTakeFirst();
}

export function findOwnersTeam(
  db: Kysely<ForgeTables>,
  orgId: number,
  lock?: DialectName,
): Promise<TeamRow | undefined> {
  const query = db.selectFrom("team").selectAll().where("org_id", "=", orgId).where("authorize", "=", OWNER);
  return (lock ? query.$call(forUpdate(lock)) : query).executeTakeFirst();
}

export function updateTeam(db: Kysely<ForgeTables>, id: number, changes: TeamChanges): Promise<TeamRow> {
  return db.updateTable("team").set(changes).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteTeam(db: Kysely<ForgeTables>, id: number): Promise<void> {
  await db.deleteFrom("team").where("id", "=", id).execute();
}

/** Sets the team's units to exactly these (unit key → access mode). */
export async function replaceTeamUnits(
  db: Kysely<ForgeTables>,
  teamId: number,
  units: ReadonlyMap<string, string>,
): Promise<void> {
  await db.deleteFrom("team_unit").where("team_id", "=", teamId).execute();
  if (units.size === 0) return;
  await db
    .insertInto("team_unit")
    .values([...units].map(([unit, access_mode]) => ({ team_id: teamId, unit, access_mode })))
    .execute();
}

export function listTeamUnits(db: Kysely<ForgeTables>, teamIds: number[]): Promise<TeamUnitRow[]> {
  if (teamIds.length === 0) return Promise.resolve([]);
  return db.selectFrom("team_unit").selectAll().where("team_id", "in", teamIds).execute();
}

export interface TeamQuery {
  /** Only this organization's teams; every organization's when left out. */
  orgId?: number;
  /** Only the teams this account is in. */
  memberId?: number;
  /** Case-insensitive part of the name (or of the description, with `includeDescription`). */
  keyword?: string;
  includeDescription?: boolean;
  offset: number;
  limit: number;
}

/** A page of teams in name order (then by organization), and how many match in all. */
export async function listTeams(
  db: Kysely<ForgeTables>,
  dialect: DialectName,
  query: TeamQuery,
): Promise<{ rows: TeamRow[]; total: number }> {
  let selection = db.selectFrom("team").selectAll();
  const { orgId, memberId, keyword } = query;
  if (orgId !== undefined) selection = selection.where("org_id", "=", orgId);
  if (memberId !== undefined) {
    selection = selection.where(
      "id",
      "in",
      db.selectFrom("team_user").select("team_id").where("account_id", "=", memberId),
    );
  }
  if (keyword) {
    selection = selection.where((eb) => {
      const matches = [containsText(dialect, eb.ref("lower_name"), keyword)];
      if (query.includeDescription) matches.push(containsText(dialect, eb.ref("description"), keyword));
      return eb.or(matches);
    });
  }
  const [rows, total] = await Promise.all([
    selection.orderBy("lower_name").orderBy("org_id").limit(query.limit).offset(query.offset).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

/** The teams of the organization that the account is in. */
export function teamsOfMember(db: Kysely<ForgeTables>, orgId: number, accountId: number): Promise<TeamRow[]> {
  return db
    .selectFrom("team")
    .innerJoin("team_user", "team_user.team_id", "team.id")
    .selectAll("team")
    .where("team.org_id", "=", orgId)
    .where("team_user.account_id", "=", accountId)
    .execute();
}

export async function isTeamMember(db: Kysely<ForgeTables>, teamId: number, accountId: number) {
  const row = await db
    .selectFrom("team_user")
    .select("id")
    .where("team_id", "=", teamId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function countTeamMembers(db: Kysely<ForgeTables>, teamId: number): Promise<number> {
  return countRows(db, db.selectFrom("team_user").select("id").where("team_id", "=", teamId));
}

/** Adds the account to the team; nothing when it is already in. */
export async function insertTeamMember(db: Kysely<ForgeTables>, teamId: number, accountId: number) {
  await db
    .insertInto("team_user")
    .values({ team_id: teamId, account_id: accountId })
    .onConflict((oc) => oc.columns(["team_id", "account_id"]).doNothing())
    .execute();
}

export async function deleteTeamMember(db: Kysely<ForgeTables>, teamId: number, accountId: number) {
  await db
    .deleteFrom("team_user")
    .where("team_id", "=", teamId)
    .where("account_id", "=", accountId)
    .execute();
}

/** Takes the account out of every team of the organization. */
export async function deleteTeamMemberships(db: Kysely<ForgeTables>, orgId: number, accountId: number) {
  await db
    .deleteFrom("team_user")
    .where("account_id", "=", accountId)
    .where("team_id", "in", db.selectFrom("team").select("id").where("org_id", "=", orgId))
    .execute();
}

/** A page of a team's members in name order, and how many there are. */
export async function listTeamMembers(
  db: Kysely<ForgeTables>,
  query: { teamId: number; offset: number; limit: number },
): Promise<{ rows: AccountRow[]; total: number }> {
  const selection = db
    .selectFrom("account")
    .innerJoin("team_user", "team_user.account_id", "account.id")
    .selectAll("account")
    .where("team_user.team_id", "=", query.teamId);
  const [rows, total] = await Promise.all([
    selection.orderBy("account.lower_name").limit(query.limit).offset(query.offset).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

/** The owners of each of these organizations, in name order. */
export function listOwners(
  db: Kysely<ForgeTables>,
  orgIds: number[],
): Promise<Array<AccountRow & { owner_of: number }>> {
  if (orgIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("account")
    .innerJoin("team_user", "team_user.account_id", "account.id")
    .innerJoin("team", "team.id", "team_user.team_id")
    .selectAll("account")
    .select("team.org_id as owner_of")
    .where("team.authorize", "=", OWNER)
    .where("team.org_id", "in", orgIds)
    .orderBy("account.lower_name")
    .execute();
}
