import { containsText, countRows, type DialectName } from "@anvil/core";
import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from "kysely";
import type { ForgeTables, MilestoneTable } from "../schemas/tables.ts";

export type MilestoneRow = Selectable<MilestoneTable>;

export interface MilestoneQuery {
  /** Closed ones (true), open ones (false), or both (undefined). */
  closed?: boolean;
  /** A case-insensitive part of the title. */
  name?: string;
  offset: number;
  limit: number;
}

export function insertMilestone(
  db: Kysely<ForgeTables>,
  milestone: Insertable<MilestoneTable>,
): Promise<MilestoneRow> {
  return db.insertInto("milestone").values(milestone).returningAll().executeTakeFirstOrThrow();
}

export function findMilestone(
  db: Kysely<ForgeTables>,
  repoId: number,
  id: number,
): Promise<MilestoneRow | undefined> {
  return db
    .selectFrom("milestone")
    .selectAll()
    .where("id", "=", id)
    .where("repo_id", "=", repoId)
    .executeTakeFirst();
}

export function findMilestoneByName(
  db: Kysely<ForgeTables>,
  repoId: number,
  name: string,
): Promise<MilestoneRow | undefined> {
  return db
    .selectFrom("milestone")
    .selectAll()
    .where("repo_id", "=", repoId)
    .where("name", "=", name)
    .orderBy("id")
    .executeTakeFirst();
}

/** A page of the repository's milestones, soonest due first and those without a due date last (Gitea's order). */
export async function listMilestones(
  db: Kysely<ForgeTables>,
  dialect: DialectName,
  repoId: number,
  query: MilestoneQuery,
): Promise<{ rows: MilestoneRow[]; total: number }> {
  let selection = db.selectFrom("milestone").selectAll().where("repo_id", "=", repoId);
  if (query.closed !== undefined) selection = selection.where("is_closed", "=", query.closed);
  const name = query.name;
  if (name) selection = selection.where((eb) => containsText(dialect, eb.ref("name"), name));
  const [rows, total] = await Promise.all([
    selection
      .orderBy(sql`case when due_on is null then 1 else 0 end`)
      .orderBy("due_on")
      .orderBy("id")
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

export function updateMilestone(
  db: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<MilestoneTable>,
): Promise<MilestoneRow | undefined> {
  return db.updateTable("milestone").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
}

/** Deletes the milestone; its issues lose it (the foreign key sets their milestone_id to null). */
export async function deleteMilestone(db: Kysely<ForgeTables>, repoId: number, id: number): Promise<void> {
  await db.deleteFrom("milestone").where("id", "=", id).where("repo_id", "=", repoId).execute();
}
