import type { Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { BranchProtectionTable, ForgeTables } from "../schemas/tables.ts";

export type BranchProtectionRow = Selectable<BranchProtectionTable>;

/** A repository's rules, in the order they are tried: priority, then age. */
export function listBranchProtections(
  db: Kysely<ForgeTables>,
  repoId: number,
): Promise<BranchProtectionRow[]> {
  return db
    .selectFrom("branch_protection")
    .selectAll()
    .where("repo_id", "=", repoId)
    .orderBy("priority")
    .orderBy("id")
    .execute();
}

export function findBranchProtection(
  db: Kysely<ForgeTables>,
  repoId: number,
  ruleName: string,
): Promise<BranchProtectionRow | undefined> {
  return db
    .selectFrom("branch_protection")
    .selectAll()
    .where("repo_id", "=", repoId)
    .where("rule_name", "=", ruleName)
    .executeTakeFirst();
}

export async function countBranchProtections(db: Kysely<ForgeTables>, repoId: number): Promise<number> {
  const row = await db
    .selectFrom("branch_protection")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("repo_id", "=", repoId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function maxBranchProtectionPriority(db: Kysely<ForgeTables>, repoId: number): Promise<number> {
  const row = await db
    .selectFrom("branch_protection")
    .select((eb) => eb.fn.max("priority").as("top"))
    .where("repo_id", "=", repoId)
    .executeTakeFirst();
  return Number(row?.top ?? 0);
}

export function insertBranchProtection(
  db: Kysely<ForgeTables>,
  row: Insertable<BranchProtectionTable>,
): Promise<BranchProtectionRow> {
  return db.insertInto("branch_protection").values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateBranchProtection(
  db: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<BranchProtectionTable>,
): Promise<BranchProtectionRow | undefined> {
  return db
    .updateTable("branch_protection")
    .set(changes)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteBranchProtection(db: Kysely<ForgeTables>, id: number): Promise<boolean> {
  const result = await db.deleteFrom("branch_protection").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Whether the account is in one of the teams. */
export async function inAnyTeam(
  db: Kysely<ForgeTables>,
  teamIds: number[],
  accountId: number,
): Promise<boolean> {
  if (teamIds.length === 0) return false;
  const row = await db
    .selectFrom("team_user")
    .select("id")
    .where("team_id", "in", teamIds)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The organization's teams with these ids, by id. */
export async function teamNamesByIds(db: Kysely<ForgeTables>, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("team")
    .select(["id", "name"])
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
