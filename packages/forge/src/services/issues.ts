import { BadRequest, Forbidden, Invalid, NotFound, readBool, readTime, toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import { type IssueRepository, type IssueView, toApiIssue } from "../convert/issue.ts";
import { PreconditionFailed } from "../errors.ts";
import {
  type AccountRow,
  findAccountById,
  findAccountByName,
  findAccountsByIds,
} from "../repositories/accounts.ts";
import { EVENT, insertTimelineEvent } from "../repositories/issue-events.ts";
import { indexIssues } from "../repositories/issue-search.ts";
import {
  allocateIssueNumber,
  assignableAccounts,
  assigneesOfIssues,
  countPinned,
  deleteIssueRow,
  findIssueByNumber,
  type IssueQuery,
  type IssueRow,
  insertIssue,
  labelIdsNamed,
  labelsOfIssues,
  linkIssue,
  listIssueRows,
  lockIssue,
  lockRepositoryRow,
  milestoneIdsNamed,
  milestonesByIds,
  moveMilestoneCounters,
  moveRepositoryCounters,
  pinnedIssueRows,
  shiftPins,
  unlinkIssue,
  updateIssueRow,
} from "../repositories/issues.ts";
import { findUsableLabelsNamed } from "../repositories/labels.ts";
import { pullsOfIssues } from "../repositories/pulls.ts";
import {
  findRepositoriesByIds,
  type RepositoryReader,
  type RepositoryRow,
  readableRepositoryIds,
} from "../repositories/repos.ts";
import { findTeamByName } from "../repositories/teams.ts";
import { ACCOUNT_ORGANIZATION, ACCOUNT_USER, type ForgeTables } from "../schemas/tables.ts";
import {
  ACCESS_ADMIN,
  ACCESS_READ,
  ACCESS_WRITE,
  accessTo,
  repositoriesPermission,
  repositoryPermission,
} from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { type LabelRow, labelsAfterAdding, oneLabelPerScope, resolveIssueLabels } from "./labels.ts";
import { findMilestoneForIssue, type MilestoneRow } from "./milestones.ts";
import { PULL_EVENT_OF, queuePullEvent } from "./pull-events.ts";
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
  const [labels, assignees, posters, milestones, pulls] = await Promise.all([
    labelsOfIssues(db, ids),
    assigneesOfIssues(db, ids),
    postersOf(db, issues),
    milestonesByIds(
      db,
      issues.flatMap((issue) => (issue.milestone_id === null ? [] : [issue.milestone_id])),
    ),
    pullsOfIssues(
      db,
      issues.filter((issue) => readBool(issue.is_pull)).map((issue) => issue.id),
    ),
  ]);
  return issues.map((issue) => ({
    issue,
    poster: posters.get(issue.poster_id) as AccountRow,
    labels: labels.get(issue.id) ?? [],
    milestone: issue.milestone_id === null ? undefined : milestones.get(issue.milestone_id),
    assignees: assignees.get(issue.id) ?? [],
    pull: pulls.get(issue.id),
  }));
}

/** The posters of these issues by id; one poster through the prepared look-up every request makes. */
async function postersOf(
  db: Kysely<ForgeTables>,
  issues: readonly IssueRow[],
): Promise<Map<number, AccountRow>> {
  if (issues.length !== 1)
    return findAccountsByIds(
      db,
      issues.map((issue) => issue.poster_id),
    );
  const poster = await findAccountById(db, issues[0].poster_id);
  return new Map(poster ? [[poster.id, poster]] : []);
}

/** One issue with what its answer shows. */
export async function issueView(db: Kysely<ForgeTables>, issue: IssueRow): Promise<IssueView> {
  return (await issueViews(db, [issue]))[0];
}

export function checkTitle(title: string): void {
  if (title.trim() === "") throw new Invalid("[Title]: Required");
  if (title.length > MAX_TITLE) throw new Invalid("[Title]: MaxSize");
}

/** Gitea's ref column is 255 wide. */
function checkRef(ref: string | undefined): void {
  if (ref !== undefined && ref.length > MAX_TITLE) throw new Invalid("[Ref]: MaxSize");
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
 * owner organization's, resolved as the label service resolves them). Gitea drops an id that names
 * none of them; here it is a 422, so that a typo is not silently lost.
 */
export async function resolveLabels(
  database: ForgeDatabase,
  context: RepositoryContext,
  ids: readonly number[],
): Promise<LabelRow[]> {
  const found = await resolveIssueLabels(database.db, context.repository, context.owner, [...ids]);
  const missing = ids.find((id) => !found.some((label) => label.id === id));
  if (missing !== undefined) throw new Invalid(`label does not exist [label_id: ${missing}]`);
  return oneLabelPerScope(found);
}

/** The repository's milestone `id`, or Gitea's milestone-not-found message as a 422. */
export async function resolveMilestone(
  database: ForgeDatabase,
  context: RepositoryContext,
  id: number,
): Promise<MilestoneRow> {
  const milestone = await findMilestoneForIssue(database.db, context.repository.id, id);
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

/**
 * Queues an `issues`-family webhook event about `issue` as it now is, in the transaction; for the
 * issue side of a pull, its `pull_request`-family event (see queuePullEvent), as Gitea sends them.
 */
export async function queueIssueEvent(
  trx: Kysely<ForgeTables>,
  audience: IssueAudience,
  doer: AccountRow,
  issue: IssueRow,
  type: "issues" | "issue_assign" | "issue_label" | "issue_milestone",
  action: string,
  changes?: Record<string, { from: string }>,
): Promise<void> {
  if (readBool(issue.is_pull))
    return queuePullEvent(trx, doer, issue, PULL_EVENT_OF[type], action, { changes });
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
  checkRef(input.ref);
  // A due date that is no time fails Gitea's binding, whoever sends it.
  const dueDate = input.due_date === undefined ? undefined : parseApiTime(input.due_date, "DueDate");
  const writer = accessTo(context.permission, "repo.issues") >= ACCESS_WRITE;
  const deadline = writer ? dueDate : undefined;
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
  return database.db.transaction().execute(async (trx) => {
    let issue = await insertNewIssue(trx, context.repository.id, doer, {
      fields: {
        title: input.title,
        body: input.body ?? "",
        ref: input.ref ?? "",
        deadline: deadline ? toStoredTime(deadline, database.dialect) : null,
      },
      labels,
      milestone,
      assignees,
      isPull: false,
      now,
    });
    await queueOpenedEvents(trx, audience, doer, issue, { labels, milestone, assignees });
    if (input.closed === true) issue = await changeState(trx, audience, doer, issue, true, now);
    return issue;
  });
}

/** What a new issue (or pull) starts with besides its own fields. */
export interface NewIssueLinks {
  labels: readonly LabelRow[];
  milestone: MilestoneRow | undefined;
  assignees: readonly AccountRow[];
}

/**
 * Inserts a new issue or pull in the caller's transaction: its number from the repository's
 * counter, the counters, its labels, milestone and assignees with their timeline events. Its
 * webhooks are the caller's (queueOpenedEvents), once what the events show exists.
 */
export async function insertNewIssue(
  trx: Kysely<ForgeTables>,
  repoId: number,
  doer: AccountRow,
  input: NewIssueLinks & {
    fields: { title: string; body: string; ref: string; deadline: string | Date | null };
    isPull: boolean;
    now: string | Date;
  },
): Promise<IssueRow> {
  const { labels, milestone, assignees, now } = input;
  const number = await allocateIssueNumber(trx, repoId);
  const issue = await insertIssue(trx, {
    repo_id: repoId,
    number,
    poster_id: doer.id,
    ...input.fields,
    is_pull: input.isPull,
    milestone_id: milestone?.id ?? null,
    created_at: now,
    updated_at: now,
  });
  await indexIssues(trx, [issue]);
  await moveRepositoryCounters(trx, repoId, input.isPull, { total: 1, closed: 0 });
  const event = { issue_id: issue.id, repo_id: repoId, poster_id: doer.id };
  await linkIssue(
    trx,
    "issue_label",
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
  await linkIssue(
    trx,
    "issue_assignee",
    issue.id,
    assignees.map((account) => account.id),
  );
  for (const account of assignees)
    await insertTimelineEvent(trx, { ...event, type: EVENT.assignees, assignee_id: account.id }, now);
  return issue;
}

/** The webhooks of a new issue or pull: `opened`, then those of what it was opened with, as Gitea sends them. */
export async function queueOpenedEvents(
  trx: Kysely<ForgeTables>,
  audience: IssueAudience,
  doer: AccountRow,
  issue: IssueRow,
  links: NewIssueLinks,
): Promise<void> {
  await queueIssueEvent(trx, audience, doer, issue, "issues", "opened");
  if (links.labels.length > 0)
    await queueIssueEvent(trx, audience, doer, issue, "issue_label", "label_updated");
  if (links.milestone) await queueIssueEvent(trx, audience, doer, issue, "issue_milestone", "milestoned");
  for (const _ of links.assignees)
    await queueIssueEvent(trx, audience, doer, issue, "issue_assign", "assigned");
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
  /** The timeline event of a close: a merged pull records merge_pull instead. */
  closeEvent: number = EVENT.close,
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
      type: close ? closeEvent : EVENT.reopen,
    },
    now,
  );
  await queueIssueEvent(trx, audience, doer, changed, "issues", close ? "closed" : "reopened");
  return changed;
}

export interface IssueEdit {
  title?: string;
  body?: string;
  ref?: string;
  assignee?: string;
  assignees?: string[];
  milestone?: number;
  state?: string;
  due_date?: string;
  unset_due_date?: boolean;
}

/** The day of a deadline as Gitea writes it in the deadline events' bodies. */
function dueDay(value: string | Date): string {
  return readTime(value).toISOString().slice(0, 10);
}

/**
 * Edits an issue as Gitea's PATCH does: its poster may change the title, body, ref and state; a
 * writer also the assignees (the list replaces them), milestone (0 clears it) and due date, which
 * other callers' requests silently leave as they are. Everything is checked before anything is
 * written; the changes, their events and webhooks are one transaction.
 */
export async function editIssue(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  issue: IssueRow,
  edit: IssueEdit,
  rootUrl: URL,
): Promise<IssueRow> {
  const writer = canWriteIssue(context, issue);
  if (!writer && issue.poster_id !== doer.id) throw new Forbidden("");
  if (edit.title) checkTitle(edit.title);
  if (edit.body !== undefined) checkBody(edit.body);
  checkRef(edit.ref);
  let close: boolean | undefined;
  if (edit.state !== undefined) {
    if (edit.state !== "open" && edit.state !== "closed")
      throw new PreconditionFailed(`unknown state: ${edit.state}`);
    close = edit.state === "closed";
  }
  const requested = requestedDeadline(edit);
  const deadline = writer ? requested : undefined;
  const assignees =
    writer && (edit.assignees !== undefined || edit.assignee !== undefined)
      ? await resolveAssignees(database, context, [
          ...(edit.assignee ? [edit.assignee] : []),
          ...(edit.assignees ?? []),
        ])
      : undefined;
  const milestoneId = writer && edit.milestone !== undefined ? Math.max(0, edit.milestone) : undefined;
  const milestone = milestoneId ? await resolveMilestone(database, context, milestoneId) : undefined;
  const audience = { where: context, rootUrl };
  const now = toStoredTime(new Date(), database.dialect);
  return database.db.transaction().execute(async (trx) => {
    let current = (await lockIssue(trx, database.dialect, issue.id)) ?? issue;
    const indexed = current;
    const event = { issue_id: issue.id, repo_id: issue.repo_id, poster_id: doer.id };
    if (edit.title && edit.title !== current.title) {
      const from = current.title;
      current = await updateIssueRow(trx, issue.id, { title: edit.title, updated_at: now });
      await insertTimelineEvent(
        trx,
        { ...event, type: EVENT.changeTitle, old_title: from, new_title: edit.title },
        now,
      );
      await queueIssueEvent(trx, audience, doer, current, "issues", "edited", { title: { from } });
    }
    if (edit.body !== undefined && edit.body !== current.body) {
      const from = current.body;
      current = await updateIssueRow(trx, issue.id, { body: edit.body, updated_at: now });
      await queueIssueEvent(trx, audience, doer, current, "issues", "edited", { body: { from } });
    }
    if (current.title !== indexed.title || current.body !== indexed.body) await indexIssues(trx, [current]);
    if (edit.ref !== undefined && edit.ref !== current.ref) {
      const from = current.ref;
      current = await updateIssueRow(trx, issue.id, { ref: edit.ref, updated_at: now });
      await queueIssueEvent(trx, audience, doer, current, "issues", "edited", { ref: { from } });
    }
    if (deadline !== undefined) current = await setDeadline(trx, database, doer, current, deadline, now);
    if (assignees !== undefined)
      current = await replaceAssignees(trx, audience, doer, current, assignees, now);
    if (milestoneId !== undefined && milestoneId !== (current.milestone_id ?? 0))
      current = await changeMilestone(trx, audience, doer, current, milestone, now);
    if (close !== undefined) current = await changeState(trx, audience, doer, current, close, now);
    return current;
  });
}

/** The deadline an edit asks for: a Date, null to remove it, undefined to leave it. */
function requestedDeadline(edit: IssueEdit): Date | null | undefined {
  if (edit.unset_due_date) return null;
  if (edit.due_date === undefined) return undefined;
  return endOfDueDay(edit.due_date);
}

/** Sets or removes the deadline, with Gitea's added, modified or removed deadline event. */
async function setDeadline(
  trx: Kysely<ForgeTables>,
  database: ForgeDatabase,
  doer: AccountRow,
  issue: IssueRow,
  deadline: Date | null,
  now: string | Date,
): Promise<IssueRow> {
  const before = issue.deadline === null ? null : readTime(issue.deadline);
  if ((before?.getTime() ?? null) === (deadline?.getTime() ?? null)) return issue;
  const changed = await updateIssueRow(trx, issue.id, {
    deadline: deadline ? toStoredTime(deadline, database.dialect) : null,
    updated_at: now,
  });
  const [type, body] =
    deadline === null
      ? [EVENT.removedDeadline, dueDay(before as Date)]
      : before === null
        ? [EVENT.addedDeadline, dueDay(deadline)]
        : [EVENT.modifiedDeadline, `${dueDay(deadline)}|${dueDay(before)}`];
  await insertTimelineEvent(
    trx,
    { issue_id: issue.id, repo_id: issue.repo_id, poster_id: doer.id, type, body },
    now,
  );
  return changed;
}

/** Makes `assignees` the issue's assignees: an event and a webhook for each one added or removed. */
async function replaceAssignees(
  trx: Kysely<ForgeTables>,
  audience: IssueAudience,
  doer: AccountRow,
  issue: IssueRow,
  assignees: readonly AccountRow[],
  now: string | Date,
): Promise<IssueRow> {
  const current = (await assigneesOfIssues(trx, [issue.id])).get(issue.id) ?? [];
  const wanted = new Set(assignees.map((account) => account.id));
  const removed = current.filter((account) => !wanted.has(account.id)).map((account) => account.id);
  const added = assignees.filter((account) => !current.some((had) => had.id === account.id)).map((a) => a.id);
  if (removed.length === 0 && added.length === 0) return issue;
  await unlinkIssue(trx, "issue_assignee", issue.id, removed);
  await linkIssue(trx, "issue_assignee", issue.id, added);
  const changed = await updateIssueRow(trx, issue.id, { updated_at: now });
  const event = { issue_id: issue.id, repo_id: issue.repo_id, poster_id: doer.id, type: EVENT.assignees };
  for (const id of removed) {
    await insertTimelineEvent(trx, { ...event, assignee_id: id, removed_assignee: true }, now);
    await queueIssueEvent(trx, audience, doer, changed, "issue_assign", "unassigned");
  }
  for (const id of added) {
    await insertTimelineEvent(trx, { ...event, assignee_id: id }, now);
    await queueIssueEvent(trx, audience, doer, changed, "issue_assign", "assigned");
  }
  return changed;
}

/** Moves the issue to `milestone` (undefined: none), with both milestones' counters. */
async function changeMilestone(
  trx: Kysely<ForgeTables>,
  audience: IssueAudience,
  doer: AccountRow,
  issue: IssueRow,
  milestone: MilestoneRow | undefined,
  now: string | Date,
): Promise<IssueRow> {
  const closed = readBool(issue.is_closed) ? 1 : 0;
  if (issue.milestone_id !== null)
    await moveMilestoneCounters(trx, issue.milestone_id, { total: -1, closed: -closed });
  if (milestone) await moveMilestoneCounters(trx, milestone.id, { total: 1, closed });
  const changed = await updateIssueRow(trx, issue.id, {
    milestone_id: milestone?.id ?? null,
    updated_at: now,
  });
  await insertTimelineEvent(
    trx,
    {
      issue_id: issue.id,
      repo_id: issue.repo_id,
      poster_id: doer.id,
      type: EVENT.milestone,
      milestone_id: milestone?.id ?? 0,
      old_milestone_id: issue.milestone_id ?? 0,
    },
    now,
  );
  await queueIssueEvent(
    trx,
    audience,
    doer,
    changed,
    "issue_milestone",
    milestone ? "milestoned" : "demilestoned",
  );
  return changed;
}

/** Deletes an issue (repository admins and site admins), with its counters and a `deleted` webhook. */
export async function deleteIssue(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  issue: IssueRow,
  rootUrl: URL,
): Promise<void> {
  if (context.permission.mode < ACCESS_ADMIN)
    throw new Forbidden("user should be an owner or a collaborator with admin write of a repository");
  await database.db.transaction().execute(async (trx) => {
    const current = await lockIssue(trx, database.dialect, issue.id);
    if (!current) throw new NotFound("issue does not exist");
    const step = { total: -1, closed: readBool(current.is_closed) ? -1 : 0 };
    await moveRepositoryCounters(trx, current.repo_id, readBool(current.is_pull), step);
    if (current.milestone_id !== null) await moveMilestoneCounters(trx, current.milestone_id, step);
    await queueIssueEvent(trx, { where: context, rootUrl }, doer, current, "issues", "deleted");
    await deleteIssueRow(trx, current.id);
  });
}

/** Locks or unlocks an issue (writers), with Gitea's lock or unlock event; the reason is the lock event's body. */
export async function setLocked(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  issue: IssueRow,
  locked: boolean,
  reason = "",
): Promise<void> {
  if (!canWriteIssue(context, issue))
    throw new Forbidden(`no permission to ${locked ? "lock" : "unlock"} this issue`);
  if (reason.length > MAX_TITLE) throw new Invalid("[LockReason]: MaxSize");
  const now = toStoredTime(new Date(), database.dialect);
  await database.db.transaction().execute(async (trx) => {
    const current = await lockIssue(trx, database.dialect, issue.id);
    if (!current || readBool(current.is_locked) === locked) return;
    await updateIssueRow(trx, issue.id, { is_locked: locked, updated_at: now });
    await insertTimelineEvent(
      trx,
      {
        issue_id: issue.id,
        repo_id: issue.repo_id,
        poster_id: doer.id,
        type: locked ? EVENT.lock : EVENT.unlock,
        body: locked ? reason : "",
      },
      now,
    );
  });
}

/** Gitea's MaxPinned default: pinned issues (and, apart, pulls) per repository. */
const MAX_PINNED = 3;

/**
 * Pins (position > 0 moves a pinned issue there) or unpins an issue, keeping the positions of the
 * repository's pinned issues 1..n; writers of the issue's unit only.
 */
export async function pinIssue(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  issue: IssueRow,
  action: { pin: true } | { pin: false } | { moveTo: number },
): Promise<void> {
  if (!canWriteIssue(context, issue)) throw new Forbidden("user should have a permission to write to a repo");
  const now = toStoredTime(new Date(), database.dialect);
  const isPull = readBool(issue.is_pull);
  const where = { repoId: issue.repo_id, isPull };
  await database.db.transaction().execute(async (trx) => {
    // The repository row is the lock that orders every change of its pins.
    await lockRepositoryRow(trx, database.dialect, issue.repo_id);
    const current = await lockIssue(trx, database.dialect, issue.id);
    if (!current) throw new NotFound("issue does not exist");
    const event = { issue_id: issue.id, repo_id: issue.repo_id, poster_id: doer.id };
    if ("moveTo" in action) {
      if (current.pin_order === 0) return;
      if (action.moveTo < 1) throw new Invalid("The Position can't be lower than 1");
      const position = Math.min(action.moveTo, await countPinned(trx, issue.repo_id, isPull));
      await shiftPins(trx, where, current.pin_order, -1);
      await shiftPins(trx, where, position, 1);
      await updateIssueRow(trx, issue.id, { pin_order: position });
    } else if (action.pin) {
      if (current.pin_order > 0) return;
      const pinned = await countPinned(trx, issue.repo_id, isPull);
      if (pinned >= MAX_PINNED) throw new BadRequest("You have reached the max number of pinned Issues");
      await updateIssueRow(trx, issue.id, { pin_order: pinned + 1 });
      await insertTimelineEvent(trx, { ...event, type: EVENT.pin }, now);
    } else {
      if (current.pin_order === 0) return;
      await shiftPins(trx, where, current.pin_order, -1);
      await updateIssueRow(trx, issue.id, { pin_order: 0 });
      await insertTimelineEvent(trx, { ...event, type: EVENT.unpin }, now);
    }
  });
}

export async function pinnedIssues(database: ForgeDatabase, context: RepositoryContext): Promise<IssueRow[]> {
  requireUnit(context, "repo.issues", ACCESS_READ);
  return pinnedIssueRows(database.db, context.repository.id, false);
}

/** Sets the deadline through POST …/deadline (writers): the end of the day it names. */
export async function updateDeadline(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  issue: IssueRow,
  dueDate: string,
): Promise<Date | null> {
  if (!canWriteIssue(context, issue)) throw new Forbidden("Not repo writer");
  const deadline = endOfDueDay(dueDate);
  const now = toStoredTime(new Date(), database.dialect);
  await database.db.transaction().execute(async (trx) => {
    const current = (await lockIssue(trx, database.dialect, issue.id)) ?? issue;
    await setDeadline(trx, database, doer, current, deadline, now);
  });
  return deadline;
}

/** An issue's labels (readers of the issue). */
export async function issueLabels(database: ForgeDatabase, issue: IssueRow): Promise<LabelRow[]> {
  return (await labelsOfIssues(database.db, [issue.id])).get(issue.id) ?? [];
}

/** The labels a label route names, by ids or by names (not both, as Gitea answers 400). */
async function labelsNamed(
  database: ForgeDatabase,
  context: RepositoryContext,
  issue: IssueRow,
  given: readonly (number | string)[],
): Promise<LabelRow[]> {
  const ids = given.filter((item): item is number => typeof item === "number");
  const names = given.filter((item): item is string => typeof item === "string");
  if (ids.length > 0 && names.length > 0)
    throw new BadRequest("labels should be an array of strings or integers");
  if (!canWriteIssue(context, issue)) throw new Forbidden("write permission is required");
  if (names.length === 0) return resolveLabels(database, context, ids);
  if (names.length > MAX_NAMED) throw new Invalid("[Labels]: MaxSize");
  const found = await findUsableLabelsNamed(database.db, context.repository, names);
  const missing = names.find((name) => !found.some((label) => label.name === name));
  if (missing !== undefined) throw new Invalid(`label does not exist [name: ${missing}]`);
  return oneLabelPerScope(found);
}

/**
 * Changes an issue's labels: `add` adds, `replace` makes them the issue's labels, `clear` removes
 * all, `remove` removes one. An exclusive label replaces the issue's others of its scope. Each
 * label added or removed is a timeline event; the webhook is label_updated (label_cleared for clear).
 */
export async function changeIssueLabels(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  issue: IssueRow,
  change:
    | { kind: "add" | "replace"; labels: readonly (number | string)[] }
    | { kind: "clear" }
    | { kind: "remove"; labelId: number },
  rootUrl: URL,
): Promise<LabelRow[]> {
  let wanted: LabelRow[] = [];
  if (change.kind === "add" || change.kind === "replace")
    wanted = await labelsNamed(database, context, issue, change.labels);
  else if (!canWriteIssue(context, issue)) throw new Forbidden("write permission is required");
  if (change.kind === "remove") await resolveLabels(database, context, [change.labelId]);
  const now = toStoredTime(new Date(), database.dialect);
  const audience = { where: context, rootUrl };
  return database.db.transaction().execute(async (trx) => {
    await lockIssue(trx, database.dialect, issue.id);
    const had = (await labelsOfIssues(trx, [issue.id])).get(issue.id) ?? [];
    const after =
      change.kind === "add"
        ? labelsAfterAdding(had, wanted)
        : change.kind === "remove"
          ? had.filter((label) => label.id !== change.labelId)
          : wanted;
    const remove = had.filter((label) => !after.some((kept) => kept.id === label.id));
    const add = after.filter((label) => !had.some((h) => h.id === label.id));
    const event = { issue_id: issue.id, repo_id: issue.repo_id, poster_id: doer.id, type: EVENT.label };
    await unlinkIssue(
      trx,
      "issue_label",
      issue.id,
      remove.map((label) => label.id),
    );
    await linkIssue(
      trx,
      "issue_label",
      issue.id,
      add.map((label) => label.id),
    );
    for (const label of remove)
      await insertTimelineEvent(trx, { ...event, label_id: label.id, body: "" }, now);
    for (const label of add) await insertTimelineEvent(trx, { ...event, label_id: label.id, body: "1" }, now);
    if (remove.length > 0 || add.length > 0) {
      const changed = await updateIssueRow(trx, issue.id, { updated_at: now });
      await queueIssueEvent(
        trx,
        audience,
        doer,
        changed,
        "issue_label",
        change.kind === "clear" ? "label_cleared" : "label_updated",
      );
    }
    return (await labelsOfIssues(trx, [issue.id])).get(issue.id) ?? [];
  });
}

/** Who may be assigned the repository's issues, in Gitea's order: by name, a user owner last. */
export async function assignees(database: ForgeDatabase, context: RepositoryContext): Promise<AccountRow[]> {
  const accounts = await assignableAccounts(database.db, context.repository);
  const owner = accounts.filter((account) => account.id === context.owner.id);
  return [...accounts.filter((account) => account.id !== context.owner.id), ...owner];
}

/** A list's filters as the query string gives them. */
export interface IssueFilters {
  state?: string;
  labels?: string;
  milestones?: string;
  q?: string;
  type?: string;
  since?: string;
  before?: string;
}

/** Gitea's `state`: open unless closed or all is asked for. */
function closedFilter(state: string | undefined): boolean | undefined {
  if (state === "closed") return true;
  if (state === "all") return undefined;
  return false;
}

function kindFilter(type: string | undefined): boolean | undefined {
  if (type === "pulls") return true;
  if (type === "issues") return false;
  return undefined;
}

/** Comma-separated names, without empty ones, bounded. */
function namesIn(list: string | undefined): string[] {
  const names = (list ?? "").split(",").filter((name) => name !== "");
  if (names.length > MAX_NAMED) throw new Invalid("too many names in a filter");
  return names;
}

/** `since` and `before` as stored times, or Gitea's 422 for a time that is not RFC 3339. */
function updatedWindow(database: ForgeDatabase, filters: IssueFilters) {
  const at = (value: string | undefined, field: string) =>
    value ? toStoredTime(parseApiTime(value, field), database.dialect) : undefined;
  return { updatedSince: at(filters.since, "since"), updatedBefore: at(filters.before, "before") };
}

async function userIdFor(database: ForgeDatabase, name: string | undefined): Promise<number | undefined> {
  if (!name) return undefined;
  const account = await findAccountByName(database.db, name);
  if (!account) throw new NotFound(`user does not exist [uid: 0, name: ${name}]`);
  return account.id;
}

/**
 * GET /repos/{o}/{r}/issues: a page of the repository's issues and pulls (pulls unless
 * type=issues, and only the kinds the caller may read), newest first, with Gitea's filters. A
 * label or milestone filter naming nothing that exists matches nothing.
 */
export async function listIssues(
  database: ForgeDatabase,
  context: RepositoryContext,
  filters: IssueFilters & { created_by?: string; assigned_by?: string; mentioned_by?: string },
  window: { offset: number; limit: number },
): Promise<{ rows: IssueRow[]; total: number }> {
  const readsIssues = accessTo(context.permission, "repo.issues") >= ACCESS_READ;
  const readsPulls = accessTo(context.permission, "repo.pulls") >= ACCESS_READ;
  let isPull = kindFilter(filters.type);
  if (isPull === undefined && readsIssues !== readsPulls) isPull = readsPulls;
  if (isPull === undefined ? !readsIssues && !readsPulls : !(isPull ? readsPulls : readsIssues))
    throw new NotFound();
  const repository = context.repository;
  const labelNames = namesIn(filters.labels);
  const labels = await findUsableLabelsNamed(database.db, repository, labelNames);
  const milestoneParts = namesIn(filters.milestones);
  const milestoneIds = await milestoneIdsNamed(
    database.db,
    [repository.id],
    milestoneParts,
    milestoneParts.filter((part) => INDEX.test(part)).map(Number),
  );
  if (
    (labelNames.length > 0 && labels.length === 0) ||
    (milestoneParts.length > 0 && milestoneIds.length === 0)
  )
    return { rows: [], total: 0 };
  const query: IssueQuery = {
    scope: { repoId: repository.id },
    isClosed: closedFilter(filters.state),
    isPull,
    allLabelIds: [...new Set(labels.map((label) => label.id))],
    milestoneIds: milestoneParts.length > 0 ? milestoneIds : undefined,
    keyword: filters.q || undefined,
    posterId: await userIdFor(database, filters.created_by),
    assigneeId: await userIdFor(database, filters.assigned_by),
    mentioned: filters.mentioned_by || undefined,
    ...updatedWindow(database, filters),
    ...window,
  };
  return listIssueRows(database.db, database.dialect, query, {
    knownTotal: countersTotal(query, repository),
    memoKey: listMemoKey(query, repository),
  });
}

/**
 * The number of matches when the repository's counters already say it (a list filtered by state
 * and kind alone), so that a list of a large repository does not count its issues on each page.
 */
function countersTotal(query: IssueQuery, repository: RepositoryRow): number | undefined {
  const only = (Object.keys(query) as (keyof IssueQuery)[]).every(
    (key) =>
      ["scope", "isClosed", "isPull", "offset", "limit"].includes(key) ||
      query[key] === undefined ||
      (Array.isArray(query[key]) && (query[key] as unknown[]).length === 0),
  );
  if (!only) return undefined;
  const count = (total: number, closed: number) =>
    query.isClosed === undefined ? total : query.isClosed ? closed : total - closed;
  const issues = count(repository.num_issues, repository.num_closed_issues);
  const pulls = count(repository.num_pulls, repository.num_closed_pulls);
  return query.isPull === undefined ? issues + pulls : query.isPull ? pulls : issues;
}

/**
 * The key a list's page boundaries and total are kept under (see listIssueRows): the repository's
 * issue_version and the filters. Lists whose matches move without that version moving are not
 * kept: text search (comments may count) and the updated-time window.
 */
function listMemoKey(query: IssueQuery, repository: RepositoryRow): string | undefined {
  if (query.keyword !== undefined || query.updatedSince !== undefined || query.updatedBefore !== undefined)
    return undefined;
  const { isClosed, isPull, allLabelIds, milestoneIds, posterId, assigneeId, mentioned } = query;
  return JSON.stringify([
    repository.id,
    repository.issue_version,
    isClosed,
    isPull,
    allLabelIds,
    milestoneIds,
    posterId,
    assigneeId,
    mentioned,
  ]);
}

export interface SearchFilters extends IssueFilters {
  priority_repo_id?: string;
  assigned?: string;
  created?: string;
  mentioned?: string;
  owner?: string;
  team?: string;
}

/**
 * GET /repos/issues/search: issues of every repository the caller may see (the repository list's
 * visibility rule), newest first; `owner` and `team` narrow the repositories, `assigned`,
 * `created` and `mentioned` the issues to the caller's. Labels and milestones match by name, any
 * of them.
 */
export async function searchIssues(
  database: ForgeDatabase,
  reader: RepositoryReader,
  viewer: AccountRow | undefined,
  filters: SearchFilters,
  window: { offset: number; limit: number },
): Promise<{ rows: IssueRow[]; total: number }> {
  const owner = filters.owner ? await findAccountByName(database.db, filters.owner) : undefined;
  if (filters.owner && !owner) throw new BadRequest(`user does not exist [uid: 0, name: ${filters.owner}]`);
  let teamId: number | undefined;
  if (filters.team) {
    if (!owner || owner.type !== ACCOUNT_ORGANIZATION)
      throw new BadRequest("Owner organisation is required for filtering on team");
    const team = await findTeamByName(database.db, owner.id, filters.team);
    if (!team) throw new BadRequest(`team does not exist [org_id: ${owner.id}, name: ${filters.team}]`);
    teamId = team.id;
  }
  const within = { ownerId: owner?.id, teamId };
  const scope = {
    readableIssues: readableRepositoryIds(database.db, reader, "repo.issues", within),
    readablePulls: readableRepositoryIds(database.db, reader, "repo.pulls", within),
  };
  const labelNames = namesIn(filters.labels);
  const milestoneNames = namesIn(filters.milestones);
  const [labelIds, milestoneIds] = await Promise.all([
    labelIdsNamed(database.db, labelNames),
    milestoneIdsNamed(database.db, undefined, milestoneNames, []),
  ]);
  const mine = (flag: string | undefined) => (viewer && flag === "true" ? viewer : undefined);
  const priority = Number(filters.priority_repo_id);
  return listIssueRows(database.db, database.dialect, {
    scope,
    isClosed: closedFilter(filters.state),
    isPull: kindFilter(filters.type),
    anyLabelIds: labelNames.length > 0 ? labelIds : undefined,
    milestoneIds: milestoneNames.length > 0 ? milestoneIds : undefined,
    keyword: filters.q || undefined,
    posterId: mine(filters.created)?.id,
    assigneeId: mine(filters.assigned)?.id,
    mentioned: mine(filters.mentioned)?.name,
    priorityRepoId: Number.isSafeInteger(priority) && priority > 0 ? priority : undefined,
    ...updatedWindow(database, filters),
    ...window,
  });
}

/** The repositories of a page of issues, with their owners and the caller's access, by repository id. */
export async function issueRepositories(
  database: ForgeDatabase,
  issues: readonly IssueRow[],
  viewer: AccountRow | undefined,
): Promise<Map<number, RepositoryContext>> {
  const repositories = await findRepositoriesByIds(database.db, [
    ...new Set(issues.map((issue) => issue.repo_id)),
  ]);
  const owners = await findAccountsByIds(
    database.db,
    repositories.map((repository) => repository.owner_id),
  );
  const rows = repositories.map((repository) => ({
    repository,
    owner: owners.get(repository.owner_id) as AccountRow,
  }));
  const permissions = await repositoriesPermission(database, rows, viewer);
  return new Map(rows.map((row, i) => [row.repository.id, { ...row, permission: permissions[i] }]));
}
