import { countRows, type DialectName, forUpdate, prepared } from "@anvil/core";
import type { ExpressionBuilder, Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { ForgeTables, IssueTable, LabelTable, MilestoneTable } from "../schemas/tables.ts";
import type { AccountRow } from "./accounts.ts";

export type IssueRow = Selectable<IssueTable>;
export type LabelRow = Selectable<LabelTable>;
export type MilestoneRow = Selectable<MilestoneTable>;

/**
 * Takes the repository's next issue (or pull) number: one conditional write on the repository
 * row, so two transactions, in one process or two, never get the same number.
 */
export async function allocateIssueNumber(trx: Kysely<ForgeTables>, repoId: number): Promise<number> {
  const row = await trx
    .updateTable("repository")
    .set((eb) => ({ last_issue_index: eb("last_issue_index", "+", 1) }))
    .where("id", "=", repoId)
    .returning("last_issue_index")
    .executeTakeFirstOrThrow();
  return row.last_issue_index;
}

export function insertIssue(trx: Kysely<ForgeTables>, issue: Insertable<IssueTable>): Promise<IssueRow> {
  return trx.insertInto("issue").values(issue).returningAll().executeTakeFirstOrThrow();
}

const issueByNumber = prepared((db: Kysely<ForgeTables>, repoId: number, number: number) =>
  db.selectFrom("issue").selectAll().where("repo_id", "=", repoId).where("number", "=", number),
);

export async function findIssueByNumber(
  db: Kysely<ForgeTables>,
  repoId: number,
  number: number,
): Promise<IssueRow | undefined> {
  return (await issueByNumber(db, repoId, number))[0];
}

/** The issue as it is now, locked until the transaction ends (see core's claims). */
export function lockIssue(
  trx: Kysely<ForgeTables>,
  dialect: DialectName,
  id: number,
): Promise<IssueRow | undefined> {
  return trx
    .selectFrom("issue")
    .selectAll()
    .where("id", "=", id)
    .$call(forUpdate(dialect))
    .executeTakeFirst();
}

export function updateIssueRow(
  trx: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<IssueTable>,
): Promise<IssueRow> {
  return trx.updateTable("issue").set(changes).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteIssueRow(trx: Kysely<ForgeTables>, id: number): Promise<void> {
  await trx.deleteFrom("issue").where("id", "=", id).execute();
}

/** How an issue's change moves the counters of its repository and milestone: +1, -1 or 0 each. */
export interface CounterChange {
  total: number;
  closed: number;
}

/** Moves the repository's issue (or pull) counters in the caller's transaction. */
export async function moveRepositoryCounters(
  trx: Kysely<ForgeTables>,
  repoId: number,
  isPull: boolean,
  change: CounterChange,
): Promise<void> {
  if (change.total === 0 && change.closed === 0) return;
  const total = isPull ? "num_pulls" : "num_issues";
  const closed = isPull ? "num_closed_pulls" : "num_closed_issues";
  await trx
    .updateTable("repository")
    .set((eb) => ({ [total]: eb(total, "+", change.total), [closed]: eb(closed, "+", change.closed) }))
    .where("id", "=", repoId)
    .execute();
}

/** Moves a milestone's issue counters in the caller's transaction. */
export async function moveMilestoneCounters(
  trx: Kysely<ForgeTables>,
  milestoneId: number,
  change: CounterChange,
): Promise<void> {
  if (change.total === 0 && change.closed === 0) return;
  await trx
    .updateTable("milestone")
    .set((eb) => ({
      num_issues: eb("num_issues", "+", change.total),
      num_closed_issues: eb("num_closed_issues", "+", change.closed),
    }))
    .where("id", "=", milestoneId)
    .execute();
}

/** The labels of each of these issues, by issue id, in name order. */
export async function labelsOfIssues(
  db: Kysely<ForgeTables>,
  issueIds: readonly number[],
): Promise<Map<number, LabelRow[]>> {
  const labels = new Map<number, LabelRow[]>(issueIds.map((id) => [id, []]));
  if (issueIds.length === 0) return labels;
  const rows = await db
    .selectFrom("issue_label")
    .innerJoin("label", "label.id", "issue_label.label_id")
    .selectAll("label")
    .select("issue_label.issue_id")
    .where("issue_label.issue_id", "in", issueIds)
    .orderBy("label.name")
    .orderBy("label.id")
    .execute();
  for (const { issue_id, ...label } of rows) labels.get(issue_id)?.push(label);
  return labels;
}

/** The assignees of each of these issues, by issue id, in name order. */
export async function assigneesOfIssues(
  db: Kysely<ForgeTables>,
  issueIds: readonly number[],
): Promise<Map<number, AccountRow[]>> {
  const assignees = new Map<number, AccountRow[]>(issueIds.map((id) => [id, []]));
  if (issueIds.length === 0) return assignees;
  const rows = await db
    .selectFrom("issue_assignee")
    .innerJoin("account", "account.id", "issue_assignee.account_id")
    .selectAll("account")
    .select("issue_assignee.issue_id")
    .where("issue_assignee.issue_id", "in", issueIds)
    .orderBy("account.lower_name")
    .execute();
  for (const { issue_id, ...account } of rows) assignees.get(issue_id)?.push(account);
  return assignees;
}

export async function milestonesByIds(
  db: Kysely<ForgeTables>,
  ids: readonly number[],
): Promise<Map<number, MilestoneRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("milestone")
    .selectAll()
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

export async function insertIssueLabels(
  trx: Kysely<ForgeTables>,
  issueId: number,
  labelIds: readonly number[],
): Promise<void> {
  if (labelIds.length === 0) return;
  await trx
    .insertInto("issue_label")
    .values(labelIds.map((label_id) => ({ issue_id: issueId, label_id })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function deleteIssueLabels(
  trx: Kysely<ForgeTables>,
  issueId: number,
  labelIds: readonly number[],
): Promise<void> {
  if (labelIds.length === 0) return;
  await trx
    .deleteFrom("issue_label")
    .where("issue_id", "=", issueId)
    .where("label_id", "in", labelIds)
    .execute();
}

export async function insertIssueAssignees(
  trx: Kysely<ForgeTables>,
  issueId: number,
  accountIds: readonly number[],
): Promise<void> {
  if (accountIds.length === 0) return;
  await trx
    .insertInto("issue_assignee")
    .values(accountIds.map((account_id) => ({ issue_id: issueId, account_id })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function deleteIssueAssignees(
  trx: Kysely<ForgeTables>,
  issueId: number,
  accountIds: readonly number[],
): Promise<void> {
  if (accountIds.length === 0) return;
  await trx
    .deleteFrom("issue_assignee")
    .where("issue_id", "=", issueId)
    .where("account_id", "in", accountIds)
    .execute();
}

/** Labels among `ids` that an issue of the repository may carry: its own, and its owner org's. */
export function usableLabels(
  db: Kysely<ForgeTables>,
  repository: { id: number; owner_id: number },
  ids: readonly number[],
): Promise<LabelRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("label")
    .selectAll()
    .where("id", "in", [...new Set(ids)])
    .where(usableIn(repository))
    .execute();
}

/** Labels of the repository or its owner org with these exact names, as Gitea matches them. */
export function usableLabelsNamed(
  db: Kysely<ForgeTables>,
  repository: { id: number; owner_id: number },
  names: readonly string[],
): Promise<LabelRow[]> {
  if (names.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("label")
    .selectAll()
    .where("name", "in", [...new Set(names)])
    .where(usableIn(repository))
    .execute();
}

function usableIn(repository: { id: number; owner_id: number }) {
  return (eb: ExpressionBuilder<ForgeTables, "label">) =>
    eb.or([eb("repo_id", "=", repository.id), eb("org_id", "=", repository.owner_id)]);
}

export function findMilestoneOf(
  db: Kysely<ForgeTables>,
  repoId: number,
  id: number,
): Promise<MilestoneRow | undefined> {
  return db
    .selectFrom("milestone")
    .selectAll()
    .where("repo_id", "=", repoId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** Milestones of the repository by name or id, for list filters. */
export async function milestoneIdsNamed(
  db: Kysely<ForgeTables>,
  repoIds: readonly number[] | undefined,
  names: readonly string[],
  ids: readonly number[],
): Promise<number[]> {
  if (names.length === 0 && ids.length === 0) return [];
  let query = db.selectFrom("milestone").select("id");
  if (repoIds !== undefined) query = query.where("repo_id", "in", repoIds);
  const rows = await query
    .where((eb) =>
      eb.or([
        ...(names.length > 0 ? [eb("name", "in", names)] : []),
        ...(ids.length > 0 ? [eb("id", "in", ids)] : []),
      ]),
    )
    .execute();
  return rows.map((row) => row.id);
}
