import { Invalid, NotFound, readBool, toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import { type IssueRepository, type IssueView, toApiIssue } from "../convert/issue.ts";
import { type AccountRow, findAccountByName, findAccountsByIds } from "../repositories/accounts.ts";
import { EVENT, insertTimelineEvent } from "../repositories/issue-events.ts";
import {
  allocateIssueNumber,
  assigneesOfIssues,
  findIssueByNumber,
  findMilestoneOf,
  type IssueRow,
  insertIssue,
  insertIssueAssignees,
  insertIssueLabels,
  type LabelRow,
  labelsOfIssues,
  type MilestoneRow,
  milestonesByIds,
  moveMilestoneCounters,
  moveRepositoryCounters,
  updateIssueRow,
  usableLabels,
} from "../repositories/issues.ts";
import { ACCOUNT_USER, type ForgeTables } from "../schemas/tables.ts";
import { ACCESS_READ, ACCESS_WRITE, accessTo, repositoryPermission } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { type RepositoryContext, requireUnit } from "./repositories.ts";
import type { Unit } from "./units.ts";
import { queueRepositoryEvent } from "./webhook-events.ts";

// Issues of a repository (and the issue side of its pull requests, which share their numbers):
// Gitea's rules for who may see, open and change them, with the counters of the repository and
// the milestone kept in the transaction of each change, a timeline event for each change, and the
// webhook events queued in that same transaction.

/** Gitea's title column is 255 wide. */
const MAX_TITLE = 255;
/** Bodies are bounded as GitHub bounds them: a 1 MB body is refused, never stored. */
export const MAX_BODY = 65_536;
/** How many labels or assignees one request may name. */
export const MAX_NAMED = 100;

/** The unit that decides an issue: issues, or pull requests for the issue side of a pull. */
export function issueUnit(issue: Pick<IssueRow, "is_pull">): Unit {
  return readBool(issue.is_pull) ? "repo.pulls" : "repo.issues";
}

export function canWriteIssue(context: RepositoryContext, issue: Pick<IssueRow, "is_pull">): boolean {
  return accessTo(context.permission, issueUnit(issue)) >= ACCESS_WRITE;
}

const INDEX = /^\d{1,15}$/;

/**
 * Issue number `index` of the repository, when the caller may read it; a 404 otherwise (also for
 * an index that is not a number), as Gitea answers both.
 */
export async function getIssue(
  database: ForgeDatabase,
  context: RepositoryContext,
  index: string | number,
): Promise<IssueRow> {
  const number = typeof index === "number" ? index : INDEX.test(index) ? Number(index) : Number.NaN;
  const issue = Number.isSafeInteger(number)
    ? await findIssueByNumber(database.db, context.repository.id, number)
    : undefined;
  if (!issue || accessTo(context.permission, issueUnit(issue)) < ACCESS_READ)
    throw new NotFound("issue does not exist");
  return issue;
}

/** The issues with what their answers show, in the order given; `db` may be a transaction. */
export async function issueViews(db: Kysely<ForgeTables>, issues: readonly IssueRow[]): Promise<IssueView[]> {
  const ids = issues.map((issue) => issue.id);
  const [labels, assignees, posters, milestones] = await Promise.all([
    labelsOfIssues(db, ids),
    assigneesOfIssues(db, ids),
    findAccountsByIds(
      db,
      issues.map((issue) => issue.poster_id),
    ),
    milestonesByIds(
      db,
      issues.flatMap((issue) => (issue.milestone_id === null ? [] : [issue.milestone_id])),
    ),
  ]);
  return issues.map((issue) => ({
    issue,
    poster: posters.get(issue.poster_id) as AccountRow,
    labels: labels.get(issue.id) ?? [],
    milestone: issue.milestone_id === null ? undefined : milestones.get(issue.milestone_id),
    assignees: assignees.get(issue.id) ?? [],
  }));
}

/** One issue with what its answer shows. */
export async function issueView(db: Kysely<ForgeTables>, issue: IssueRow): Promise<IssueView> {
  return (await issueViews(db, [issue]))[0];
}

export function checkTitle(title: string): void {
  if (title.trim() === "") throw new Invalid("[Title]: Required");
  if (title.length > MAX_TITLE) throw new Invalid("[Title]: MaxSize");
}

export function checkBody(body: string): void {
  if (body.length > MAX_BODY) throw new Invalid("[Body]: MaxSize");
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** A time as Go's encoding/json reads it (RFC 3339), or Gitea's binding 422. */
export function parseApiTime(value: string, field: string): Date {
  const match = RFC3339.exec(value);
  const date = match ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw new Invalid(`[${field}]: parsing time "${value}" failed`);
  return date;
}

/**
 * The end (23:59:59) of the day a due date names, in its own offset, as Gitea stores the
 * deadlines set by an edit or by the deadline route.
 */
export function endOfDueDay(value: string): Date {
  parseApiTime(value, "DueDate");
  const [, day, offset] = RFC3339.exec(value) as RegExpExecArray;
  return new Date(`${day}T23:59:59${offset.toUpperCase()}`);
}

/**
 * The accounts named as assignees, checked as Gitea checks them: each must be a user (422
 * otherwise) who can be assigned, that is has write access to the code, issues or pulls of the
 * repository (Gitea's CanBeAssigned).
 */
export async function resolveAssignees(
  database: ForgeDatabase,
  context: RepositoryContext,
  names: readonly string[],
): Promise<AccountRow[]> {
  const unique = [...new Map(names.filter((name) => name !== "").map((n) => [n.toLowerCase(), n])).values()];
  if (unique.length > MAX_NAMED) throw new Invalid("[Assignees]: MaxSize");
  const accounts: AccountRow[] = [];
  for (const name of unique) {
    const account = await findAccountByName(database.db, name);
    if (!account || account.type !== ACCOUNT_USER)
      throw new Invalid(`Assignee does not exist: [name: user does not exist [uid: 0, name: ${name}]]`);
    if (!(await canBeAssigned(database, context, account)))
      throw new Invalid(
        `user doesn't have access to repo [user_id: ${account.id}, repo_name: ${context.repository.name}]`,
      );
    accounts.push(account);
  }
  return accounts;
}

async function canBeAssigned(
  database: ForgeDatabase,
  context: RepositoryContext,
  account: AccountRow,
): Promise<boolean> {
  if (!readBool(account.is_active)) return false;
  const permission = await repositoryPermission(database, context.repository, context.owner, account);
  return (["repo.code", "repo.issues", "repo.pulls"] as const).some(
    (unit) => accessTo(permission, unit) >= ACCESS_WRITE,
  );
}

/**
 * The labels with these ids that an issue of the repository may carry (the repository's and its
 * owner organization's); an id that names none of them is a 422.
 */
export async function resolveLabels(
  database: ForgeDatabase,
  context: RepositoryContext,
  ids: readonly number[],
): Promise<LabelRow[]> {
  if (ids.length > MAX_NAMED) throw new Invalid("[Labels]: MaxSize");
  const found = await usableLabels(database.db, context.repository, ids);
  const missing = ids.find((id) => !found.some((label) => label.id === id));
  if (missing !== undefined) throw new Invalid(`label does not exist [label_id: ${missing}]`);
  return withoutExclusiveClashes(found, ids);
}

/** Gitea's exclusive scope of a label: the name up to its last '/', for exclusive labels only. */
export function exclusiveScope(label: Pick<LabelRow, "name" | "exclusive">): string {
  if (!readBool(label.exclusive)) return "";
  const slash = label.name.lastIndexOf("/");
  if (slash <= 0 || slash === label.name.length - 1) return "";
  return label.name.slice(0, slash);
}

/** Of several exclusive labels of one scope, only the last one named stays, as in Gitea. */
function withoutExclusiveClashes(labels: readonly LabelRow[], order: readonly number[]): LabelRow[] {
  const byId = new Map(labels.map((label) => [label.id, label]));
  const kept = new Map<string, LabelRow>();
  for (const id of order) {
    const label = byId.get(id);
    if (!label) continue;
    const scope = exclusiveScope(label);
    kept.set(scope === "" ? `#${label.id}` : `scope:${scope}`, label);
  }
  return [...kept.values()];
}

export async function resolveMilestone(
  database: ForgeDatabase,
  context: RepositoryContext,
  id: number,
): Promise<MilestoneRow> {
  const milestone = await findMilestoneOf(database.db, context.repository.id, id);
  if (!milestone)
    throw new Invalid(`milestone does not exist [id: ${id}, repo_id: ${context.repository.id}]`);
  return milestone;
}

export interface NewIssue {
  title: string;
  body?: string;
  assignee?: string;
  assignees?: string[];
  labels?: number[];
  milestone?: number;
  closed?: boolean;
  due_date?: string;
  ref?: string;
}

/** Where an issue's webhook events and answers are rendered: its repository, for a viewer. */
export interface IssueAudience {
  where: IssueRepository;
  rootUrl: URL;
}

/** Queues an `issues`-family webhook event about `issue` as it now is, in the transaction. */
export async function queueIssueEvent(
  trx: Kysely<ForgeTables>,
  audience: IssueAudience,
  doer: AccountRow,
  issue: IssueRow,
  type: "issues" | "issue_assign" | "issue_label" | "issue_milestone",
  action: string,
  changes?: Record<string, { from: string }>,
): Promise<void> {
  const view = await issueView(trx, issue);
  await queueRepositoryEvent(trx, {
    repoId: issue.repo_id,
    senderId: doer.id,
    type,
    fields: {
      action,
      number: issue.number,
      ...(changes ? { changes } : {}),
      issue: toApiIssue(view, audience.where, doer, audience.rootUrl),
      commit_id: "",
    },
  });
}

/**
 * Opens an issue. Labels, milestone, assignees and due date are taken only from writers of the
 * issues unit and silently dropped for others, as in Gitea; the number comes from the repository's
 * counter in the same transaction as the row, the counters and the events.
 */
export async function createIssue(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  input: NewIssue,
  rootUrl: URL,
): Promise<IssueRow> {
  requireUnit(context, "repo.issues", ACCESS_READ);
  checkTitle(input.title);
  checkBody(input.body ?? "");
  const writer = accessTo(context.permission, "repo.issues") >= ACCESS_WRITE;
  const deadline =
    writer && input.due_date !== undefined ? parseApiTime(input.due_date, "DueDate") : undefined;
  const assignees = writer
    ? await resolveAssignees(database, context, [
        ...(input.assignee ? [input.assignee] : []),
        ...(input.assignees ?? []),
      ])
    : [];
  const labels = writer ? await resolveLabels(database, context, input.labels ?? []) : [];
  const milestone =
    writer && input.milestone ? await resolveMilestone(database, context, input.milestone) : undefined;
  const now = toStoredTime(new Date(), database.dialect);
  const audience = { where: context, rootUrl };
  const repoId = context.repository.id;
  return database.db.transaction().execute(async (trx) => {
    const number = await allocateIssueNumber(trx, repoId);
    const closed = input.closed === true;
    let issue = await insertIssue(trx, {
      repo_id: repoId,
      number,
      poster_id: doer.id,
      title: input.title,
      body: input.body ?? "",
      ref: input.ref ?? "",
      milestone_id: milestone?.id ?? null,
      deadline: deadline ? toStoredTime(deadline, database.dialect) : null,
      created_at: now,
      updated_at: now,
    });
    await moveRepositoryCounters(trx, repoId, false, { total: 1, closed: 0 });
    const event = { issue_id: issue.id, repo_id: repoId, poster_id: doer.id };
    await insertIssueLabels(
      trx,
      issue.id,
      labels.map((label) => label.id),
    );
    for (const label of labels)
      await insertTimelineEvent(trx, { ...event, type: EVENT.label, label_id: label.id, body: "1" }, now);
    if (milestone) {
      await moveMilestoneCounters(trx, milestone.id, { total: 1, closed: 0 });
      await insertTimelineEvent(
        trx,
        { ...event, type: EVENT.milestone, milestone_id: milestone.id, old_milestone_id: 0 },
        now,
      );
    }
    await insertIssueAssignees(
      trx,
      issue.id,
      assignees.map((account) => account.id),
    );
    for (const account of assignees)
      await insertTimelineEvent(trx, { ...event, type: EVENT.assignees, assignee_id: account.id }, now);
    await queueIssueEvent(trx, audience, doer, issue, "issues", "opened");
    for (const _ of assignees) await queueIssueEvent(trx, audience, doer, issue, "issue_assign", "assigned");
    if (closed) issue = await changeState(trx, audience, doer, issue, true, now);
    return issue;
  });
}

/**
 * Closes or reopens an issue in the caller's transaction: the row, the counters of its repository
 * and milestone, the timeline event and the webhook event.
 */
export async function changeState(
  trx: Kysely<ForgeTables>,
  audience: IssueAudience,
  doer: AccountRow,
  issue: IssueRow,
  close: boolean,
  now: string | Date,
): Promise<IssueRow> {
  if (readBool(issue.is_closed) === close) return issue;
  const changed = await updateIssueRow(trx, issue.id, {
    is_closed: close,
    closed_at: close ? now : null,
    updated_at: now,
  });
  const step = { total: 0, closed: close ? 1 : -1 };
  await moveRepositoryCounters(trx, issue.repo_id, readBool(issue.is_pull), step);
  if (issue.milestone_id !== null) await moveMilestoneCounters(trx, issue.milestone_id, step);
  await insertTimelineEvent(
    trx,
    {
      issue_id: issue.id,
      repo_id: issue.repo_id,
      poster_id: doer.id,
      type: close ? EVENT.close : EVENT.reopen,
    },
    now,
  );
  await queueIssueEvent(trx, audience, doer, changed, "issues", close ? "closed" : "reopened");
  return changed;
}
