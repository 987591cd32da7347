import { Forbidden, Invalid, NotFound, readBool, toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import { type CommentPlace, toApiComment } from "../convert/comment.ts";
import { toApiIssue } from "../convert/issue.ts";
import { type AccountRow, findAccountsByIds } from "../repositories/accounts.ts";
import {
  COMMENT_TYPE_COMMENT,
  type CommentFilter,
  type CommentInIssue,
  countComment,
  deleteCommentRow,
  findComment,
  insertComment,
  listIssueComments,
  listRepositoryComments,
  updateCommentBody,
  type Window,
} from "../repositories/comments.ts";
import { findIssueByNumber, type IssueRow, milestonesByIds } from "../repositories/issues.ts";
import type { LabelRow } from "../repositories/labels.ts";
import type { MilestoneRow } from "../repositories/milestones.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import { ACCESS_READ, accessTo } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { canWriteIssue, checkBody, getIssue, issueUnit, issueView, parseApiTime } from "./issues.ts";
import { resolveIssueLabels } from "./labels.ts";
import type { RepositoryContext } from "./repositories.ts";
import { queueRepositoryEvent } from "./webhook-events.ts";

// Comments on issues, as Gitea's API has them: anyone who reads an issue may comment unless it is
// locked (then only its writers), the poster or a writer edits and deletes, and the issue's
// comment counter moves in the transaction that adds or removes one, with the `issue_comment`
// webhook event queued in it too. Only rows of type 0 are comments; the timeline shows them all.

/** Gitea's answer to a comment on a locked issue by someone who may not write to it. */
const LOCKED = "You cannot comment on a locked issue.";

/** The `since` and `before` of a list query, as times; Gitea answers 422 for a bad one. */
export function timeFilter(
  database: ForgeDatabase,
  query: { since?: string; before?: string },
): Pick<CommentFilter, "since" | "before"> {
  const stored = (value: string | undefined, field: string) =>
    value === undefined || value === ""
      ? undefined
      : toStoredTime(parseApiTime(value, field), database.dialect);
  return { since: stored(query.since, "since"), before: stored(query.before, "before") };
}

/** Comment rows with their posters, as the lists and the timeline render them. */
export interface CommentPage {
  rows: CommentInIssue[];
  posters: Map<number, AccountRow>;
  total: number;
}

async function withPosters(
  db: Kysely<ForgeTables>,
  page: { rows: CommentInIssue[]; total: number },
): Promise<CommentPage> {
  const posters = await findAccountsByIds(
    db,
    page.rows.map((row) => row.poster_id),
  );
  return { ...page, posters };
}

/** Where a comment's URLs point: its repository under the root URL. */
export function commentPlace(context: RepositoryContext, rootUrl: URL): CommentPlace {
  return { owner: context.owner.name, repo: context.repository.name, rootUrl };
}

/** A body a comment may have: Gitea's binding requires one; the issues' bound holds. */
function checkCommentBody(body: string): void {
  if (body.trim() === "") throw new Invalid("[Body]: Required");
  checkBody(body);
}

/** An issue's comments (type 0), oldest first. */
export async function issueComments(
  database: ForgeDatabase,
  issue: IssueRow,
  times: Pick<CommentFilter, "since" | "before">,
  window: Window,
): Promise<CommentPage> {
  const page = await listIssueComments(
    database.db,
    issue.id,
    { ...times, type: COMMENT_TYPE_COMMENT },
    window,
  );
  return withPosters(database.db, page);
}

/** A timeline page: its rows with their posters, and the labels, milestones and users they name. */
export interface TimelinePage extends CommentPage {
  labels: Map<number, LabelRow>;
  milestones: Map<number, MilestoneRow>;
  users: Map<number, AccountRow>;
}

/** Issue `index`'s timeline: every comment-table row of it, comments and events, oldest first. */
export async function issueTimeline(
  database: ForgeDatabase,
  context: RepositoryContext,
  index: string,
  times: Pick<CommentFilter, "since" | "before">,
  window: Window,
): Promise<TimelinePage> {
  const issue = await getIssue(database, context, index);
  const { db } = database;
  const page = await listIssueComments(db, issue.id, times, window);
  const ids = (pick: (row: CommentInIssue) => number | null) =>
    page.rows.flatMap((row) => {
      const id = pick(row);
      // Gitea writes 0 for "none" where a row names no milestone.
      return id === null || id === 0 ? [] : [id];
    });
  const [posters, labels, milestones, users] = await Promise.all([
    findAccountsByIds(
      db,
      page.rows.map((row) => row.poster_id),
    ),
    resolveIssueLabels(
      db,
      context.repository,
      context.owner,
      ids((row) => row.label_id),
    ),
    milestonesByIds(db, [...ids((row) => row.milestone_id), ...ids((row) => row.old_milestone_id)]),
    findAccountsByIds(
      db,
      ids((row) => row.assignee_id),
    ),
  ]);
  return {
    ...page,
    posters,
    labels: new Map(labels.map((label) => [label.id, label])),
    milestones,
    users,
  };
}

/**
 * The repository's comments, oldest first: of issues and pulls alike when the caller reads both,
 * of the one they read otherwise, and a 404 when they read neither.
 */
export async function repositoryComments(
  database: ForgeDatabase,
  context: RepositoryContext,
  times: Pick<CommentFilter, "since" | "before">,
  window: Window,
): Promise<CommentPage> {
  const issues = accessTo(context.permission, "repo.issues") >= ACCESS_READ;
  const pulls = accessTo(context.permission, "repo.pulls") >= ACCESS_READ;
  if (!issues && !pulls) throw new NotFound("repository does not exist");
  const page = await listRepositoryComments(
    database.db,
    context.repository.id,
    { ...times, type: COMMENT_TYPE_COMMENT, isPull: issues && pulls ? undefined : pulls },
    window,
  );
  return withPosters(database.db, page);
}

/** Queues the `issue_comment` webhook event of a change to `comment`, in the change's transaction. */
async function queueCommentEvent(
  trx: Kysely<ForgeTables>,
  context: RepositoryContext,
  doer: AccountRow,
  issue: IssueRow,
  comment: { row: CommentInIssue; poster: AccountRow },
  rootUrl: URL,
  action: "created" | "edited" | "deleted",
  from?: string,
): Promise<void> {
  // The issue as the change left it (its comment count).
  const current = (await findIssueByNumber(trx, issue.repo_id, issue.number)) ?? issue;
  await queueRepositoryEvent(trx, {
    repoId: issue.repo_id,
    senderId: doer.id,
    // A pull's comments are Gitea's pull_request_comment (delivered as X-Gitea-Event issue_comment).
    type: readBool(issue.is_pull) ? "pull_request_comment" : "issue_comment",
    fields: {
      action,
      issue: toApiIssue(await issueView(trx, current), context, doer, rootUrl),
      comment: toApiComment(comment.row, comment.poster, commentPlace(context, rootUrl)),
      ...(from === undefined ? {} : { changes: { body: { from } } }),
      is_pull: readBool(issue.is_pull),
    },
  });
}

/**
 * Adds a comment to issue `index` as `doer`: a reader may, unless the issue is locked and they
 * may not write to it (403). The issue's counter and time of last change move with it.
 */
export async function createComment(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  index: string,
  body: string,
  rootUrl: URL,
): Promise<{ row: CommentInIssue; poster: AccountRow }> {
  checkCommentBody(body);
  const issue = await getIssue(database, context, index);
  if (readBool(issue.is_locked) && !canWriteIssue(context, issue)) throw new Forbidden(LOCKED);
  const now = toStoredTime(new Date(), database.dialect);
  return database.db.transaction().execute(async (trx) => {
    const inserted = await insertComment(trx, {
      issue_id: issue.id,
      repo_id: issue.repo_id,
      poster_id: doer.id,
      type: COMMENT_TYPE_COMMENT,
      body,
      created_at: now,
      updated_at: now,
    });
    await countComment(trx, issue.id, 1, now);
    const comment = {
      row: { ...inserted, issue_number: issue.number, issue_is_pull: issue.is_pull },
      poster: doer,
    };
    await queueCommentEvent(trx, context, doer, issue, comment, rootUrl, "created");
    return comment;
  });
}

/**
 * What a request by comment id finds, as Gitea answers it: the comment, or a status Gitea sends
 * with no body (a comment of another repository, a change the caller may not make, a row that is
 * an event rather than a comment).
 */
export type CommentLookup =
  | { comment: { row: CommentInIssue; poster: AccountRow }; issue: IssueRow }
  | { bare: 204 | 403 | 404 };

function commentMissing(id: string): NotFound {
  return new NotFound(`comment does not exist [id: ${id}, conversation_id: 0]`);
}

/**
 * The comment (or event row) `id` with its issue, and whether it belongs to the repository; 404
 * (with a body) when no row has that id.
 */
export async function findCommentById(
  database: ForgeDatabase,
  context: RepositoryContext,
  id: string,
): Promise<{ row: CommentInIssue; issue: IssueRow } | { bare: 404 }> {
  const row = /^\d{1,15}$/.test(id) ? await findComment(database.db, Number(id)) : undefined;
  if (!row) throw commentMissing(id);
  if (row.repo_id !== context.repository.id) return { bare: 404 };
  const issue = await findIssueByNumber(database.db, row.repo_id, row.issue_number);
  if (!issue) throw commentMissing(id);
  return { row, issue };
}

async function posterOf(database: ForgeDatabase, row: CommentInIssue): Promise<AccountRow> {
  return (await findAccountsByIds(database.db, [row.poster_id])).get(row.poster_id) as AccountRow;
}

/** GET /issues/comments/{id}: the comment, when the caller reads its issue. */
export async function getComment(
  database: ForgeDatabase,
  context: RepositoryContext,
  id: string,
): Promise<CommentLookup> {
  const found = await findCommentById(database, context, id);
  if ("bare" in found) return found;
  if (accessTo(context.permission, issueUnit(found.issue)) < ACCESS_READ)
    throw new NotFound("issue does not exist");
  if (found.row.type !== COMMENT_TYPE_COMMENT) return { bare: 204 };
  return { comment: { row: found.row, poster: await posterOf(database, found.row) }, issue: found.issue };
}

/** The comment `id` when `doer` may change it: its poster, or a writer of its issue. */
async function changeableComment(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  id: string,
): Promise<CommentLookup> {
  const found = await findCommentById(database, context, id);
  if ("bare" in found) return found;
  if (doer.id !== found.row.poster_id && !canWriteIssue(context, found.issue)) return { bare: 403 };
  return { comment: { row: found.row, poster: await posterOf(database, found.row) }, issue: found.issue };
}

/** Replaces a comment's body; an unchanged body changes nothing, as in Gitea. */
export async function editComment(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  id: string,
  body: string,
  rootUrl: URL,
): Promise<CommentLookup> {
  checkCommentBody(body);
  const found = await changeableComment(database, context, doer, id);
  if ("bare" in found) return found;
  const { comment, issue } = found;
  // Events have no content to edit.
  if (comment.row.type !== COMMENT_TYPE_COMMENT) return { bare: 204 };
  if (body === comment.row.body) return found;
  const now = toStoredTime(new Date(), database.dialect);
  const edited = { row: { ...comment.row, body, updated_at: now }, poster: comment.poster };
  await database.db.transaction().execute(async (trx) => {
    if (!(await updateCommentBody(trx, comment.row.id, body, now))) throw commentMissing(id);
    await queueCommentEvent(trx, context, doer, issue, edited, rootUrl, "edited", comment.row.body);
  });
  return { comment: edited, issue };
}

/**
 * Deletes a comment (or, as Gitea allows, an event row) with its reactions; the issue's counter
 * moves when it was a comment.
 */
export async function deleteComment(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  id: string,
  rootUrl: URL,
): Promise<{ bare: 204 | 403 | 404 }> {
  const found = await changeableComment(database, context, doer, id);
  if ("bare" in found) return found;
  const { comment, issue } = found;
  await database.db.transaction().execute(async (trx) => {
    // Only the request that deleted the row moves the counter and tells the hooks.
    if (!(await deleteCommentRow(trx, comment.row)) || comment.row.type !== COMMENT_TYPE_COMMENT) return;
    await countComment(trx, issue.id, -1);
    await queueCommentEvent(trx, context, doer, issue, comment, rootUrl, "deleted");
  });
  return { bare: 204 };
}
