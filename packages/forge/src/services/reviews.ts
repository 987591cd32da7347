import { Forbidden, Invalid, NotFound, readBool, toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import { toApiUser } from "../convert/user.ts";
import { isCommitId } from "../git/index.ts";
import { type AccountRow, findAccountByName, findAccountsByIds } from "../repositories/accounts.ts";
import { EVENT, insertTimelineEvent } from "../repositories/issue-events.ts";
import { type IssueRow, updateIssueRow } from "../repositories/issues.ts";
import {
  deleteReviewRequests,
  deleteReviewRow,
  findReview,
  insertReview,
  insertReviewComment,
  latestVerdicts,
  type PullRow,
  REVIEW,
  type ReviewCommentRow,
  type ReviewRow,
  requestedReviewersOf,
  reviewComments,
  reviewsOfIssue,
  updateReviewRow,
} from "../repositories/pulls.ts";
import { ACCOUNT_USER, type ForgeTables } from "../schemas/tables.ts";
import { ACCESS_ADMIN, ACCESS_READ, ACCESS_WRITE, accessTo, repositoryPermission } from "./access.ts";
import { type ForgeDatabase, isAdmin } from "./accounts.ts";
import { compileBranchFilter } from "./branch-filter.ts";
import {
  type BranchProtection,
  canMerge,
  isOfficialReviewer,
  protectionFor,
  statusCheckContexts,
} from "./branch-protection.ts";
import { combinedStatus } from "./commit-statuses.ts";
import { queuePullEvent } from "./pull-events.ts";
import type { PullInContext } from "./pulls.ts";
import type { RepositoryContext } from "./repositories.ts";
import { webhookUrls } from "./webhook-events.ts";

// Reviews of pull requests, as Gitea keeps them: a review row per review (a pending one is its
// reviewer's alone until submitted), and a request for a review as a row of type `request` that
// the requested reviewer's review replaces. Approvals count toward what branch protection asks.

/** How many reviewers one request may name, and code comments one review may carry. */
const MAX_NAMED = 100;
const MAX_BODY = 65_536;

function isReviewWriter(context: RepositoryContext): boolean {
  return accessTo(context.permission, "repo.pulls") >= ACCESS_WRITE;
}

/**
 * The users named as reviewers: each must exist (404, as Gitea) and read the repository's pulls,
 * and none may be the pull's poster (422, Gitea's invalid review request).
 */
export async function resolveReviewers(
  database: ForgeDatabase,
  context: RepositoryContext,
  poster: AccountRow,
  names: readonly string[],
): Promise<AccountRow[]> {
  const unique = [...new Map(names.filter((name) => name !== "").map((n) => [n.toLowerCase(), n])).values()];
  if (unique.length > MAX_NAMED) throw new Invalid("[Reviewers]: MaxSize");
  const accounts: AccountRow[] = [];
  for (const name of unique) {
    const account = await findAccountByName(database.db, name);
    if (!account || account.type !== ACCOUNT_USER) throw new NotFound(`User '${name}' not exist`);
    if (account.id === poster.id) throw new Invalid("poster of pr can't be reviewer");
    const permission = await repositoryPermission(database, context.repository, context.owner, account);
    if (accessTo(permission, "repo.pulls") < ACCESS_READ)
      throw new Invalid(
        `reviewer can't read [user_id: ${account.id}, repo_name: ${context.repository.name}]`,
      );
    accounts.push(account);
  }
  return accounts;
}

function reviewerJson(db: Kysely<ForgeTables>, account: AccountRow) {
  return toApiUser(account, undefined, webhookUrls(db).rootUrl);
}

/** Asks these reviewers for a review of the pull, in the caller's transaction; answers the new requests. */
export async function requestReviewsInTransaction(
  trx: Kysely<ForgeTables>,
  doer: AccountRow,
  issue: IssueRow,
  reviewers: readonly AccountRow[],
  now: string | Date,
): Promise<ReviewRow[]> {
  const existing = await reviewsOfIssue(trx, issue.id);
  const made: ReviewRow[] = [];
  for (const reviewer of reviewers) {
    const asked = existing.find(
      (review) => review.reviewer_id === reviewer.id && review.type === REVIEW.request,
    );
    if (asked) {
      made.push(asked);
      continue;
    }
    made.push(
      await insertReview(trx, {
        issue_id: issue.id,
        reviewer_id: reviewer.id,
        type: REVIEW.request,
        created_at: now,
        updated_at: now,
      }),
    );
    await insertTimelineEvent(
      trx,
      {
        issue_id: issue.id,
        repo_id: issue.repo_id,
        poster_id: doer.id,
        type: EVENT.reviewRequest,
        assignee_id: reviewer.id,
      },
      now,
    );
    await queuePullEvent(trx, doer, issue, "pull_request_review_request", "review_requested", {
      requested_reviewer: reviewerJson(trx, reviewer),
    });
  }
  return made;
}

/** Who may ask for or withdraw reviews: writers of pulls and the pull's poster (Gitea: 403 otherwise). */
function mayRequest(context: RepositoryContext, doer: AccountRow, issue: IssueRow): void {
  if (!isReviewWriter(context) && issue.poster_id !== doer.id)
    throw new Forbidden("user does not have permission to request a review");
}

/** POST /pulls/{index}/requested_reviewers: the review requests, made or already there. */
export async function requestReviewers(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  found: PullInContext,
  names: readonly string[],
): Promise<ReviewRow[]> {
  mayRequest(context, doer, found.issue);
  const poster = { id: found.issue.poster_id } as AccountRow;
  const reviewers = await resolveReviewers(database, context, poster, names);
  const now = toStoredTime(new Date(), database.dialect);
  return database.db
    .transaction()
    .execute((trx) => requestReviewsInTransaction(trx, doer, found.issue, reviewers, now));
}

/** DELETE /pulls/{index}/requested_reviewers: withdraws the requests of these reviewers. */
export async function removeReviewRequests(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  found: PullInContext,
  names: readonly string[],
): Promise<void> {
  mayRequest(context, doer, found.issue);
  const poster = { id: found.issue.poster_id } as AccountRow;
  const reviewers = await resolveReviewers(database, context, poster, names);
  const now = toStoredTime(new Date(), database.dialect);
  await database.db.transaction().execute(async (trx) => {
    for (const reviewer of reviewers) {
      if ((await deleteReviewRequests(trx, found.issue.id, reviewer.id)) === 0) continue;
      await insertTimelineEvent(
        trx,
        {
          issue_id: found.issue.id,
          repo_id: found.issue.repo_id,
          poster_id: doer.id,
          type: EVENT.reviewRequest,
          assignee_id: reviewer.id,
          removed_assignee: true,
        },
        now,
      );
      await queuePullEvent(trx, doer, found.issue, "pull_request_review_request", "review_request_removed", {
        requested_reviewer: reviewerJson(trx, reviewer),
      });
    }
  });
}

/** A review the caller may see: a pending one is its reviewer's (and site admins') alone. */
function visible(review: ReviewRow, viewer: AccountRow | undefined): boolean {
  return (
    review.type !== REVIEW.pending ||
    (viewer !== undefined && (viewer.id === review.reviewer_id || isAdmin(viewer)))
  );
}

export async function listReviews(
  database: ForgeDatabase,
  found: PullInContext,
  viewer: AccountRow | undefined,
): Promise<ReviewRow[]> {
  return (await reviewsOfIssue(database.db, found.issue.id)).filter((review) => visible(review, viewer));
}

const REVIEW_ID = /^\d{1,15}$/;

export async function getReview(
  database: ForgeDatabase,
  found: PullInContext,
  id: string,
  viewer: AccountRow | undefined,
): Promise<ReviewRow> {
  const review = REVIEW_ID.test(id) ? await findReview(database.db, found.issue.id, Number(id)) : undefined;
  if (!review || !visible(review, viewer)) throw new NotFound("review does not exist");
  return review;
}

export function commentsOfReview(database: ForgeDatabase, review: ReviewRow): Promise<ReviewCommentRow[]> {
  return reviewComments(database.db, review.id);
}

const EVENTS: Record<string, number> = {
  APPROVED: REVIEW.approve,
  REQUEST_CHANGES: REVIEW.reject,
  COMMENT: REVIEW.comment,
  PENDING: REVIEW.pending,
  "": REVIEW.pending,
};

/** The review type an event names, with Gitea's refusals; `hasContent`: a body or code comments. */
function reviewType(
  event: string | undefined,
  doer: AccountRow,
  issue: IssueRow,
  hasContent: boolean,
): number {
  const type = EVENTS[event ?? ""];
  if (type === undefined) throw new Invalid(`unknown review event: ${event}`);
  if (type === REVIEW.approve && issue.poster_id === doer.id)
    throw new Invalid("approve your own pull is not allowed");
  if (type === REVIEW.reject && issue.poster_id === doer.id)
    throw new Invalid("reject your own pull is not allowed");
  if ((type === REVIEW.reject || type === REVIEW.comment) && !hasContent)
    throw new Invalid(`review event ${event} requires a body or comment`);
  return type;
}

const HOOK_OF: Record<
  number,
  "pull_request_review_approved" | "pull_request_review_rejected" | "pull_request_review_comment"
> = {
  [REVIEW.approve]: "pull_request_review_approved",
  [REVIEW.reject]: "pull_request_review_rejected",
  [REVIEW.comment]: "pull_request_review_comment",
};

/** A submitted review's timeline event, the end of its reviewer's request, and its webhook. */
async function announceReview(
  trx: Kysely<ForgeTables>,
  doer: AccountRow,
  issue: IssueRow,
  review: ReviewRow,
  now: string | Date,
): Promise<void> {
  await deleteReviewRequests(trx, issue.id, review.reviewer_id);
  await insertTimelineEvent(
    trx,
    { issue_id: issue.id, repo_id: issue.repo_id, poster_id: doer.id, type: EVENT.review, body: review.body },
    now,
  );
  const changed = await updateIssueRow(trx, issue.id, { updated_at: now });
  const hook = HOOK_OF[review.type];
  await queuePullEvent(trx, doer, changed, hook, "reviewed", {
    review: { type: hook, content: review.body },
  });
}

export interface NewReview {
  body?: string;
  event?: string;
  commit_id?: string;
  comments?: Array<{ path?: string; body?: string; new_position?: number; old_position?: number }>;
}

/**
 * POST /pulls/{index}/reviews: a review by the caller (anyone who reads the pulls). A pending
 * one gathers the caller's comments until submitted (one per reviewer and pull); the others are
 * submitted at once. It is official when its reviewer may write the code.
 */
export async function createReview(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  found: PullInContext,
  input: NewReview,
): Promise<ReviewRow> {
  const body = input.body ?? "";
  if (body.length > MAX_BODY) throw new Invalid("[Body]: MaxSize");
  const comments = input.comments ?? [];
  if (comments.length > MAX_NAMED) throw new Invalid("[Comments]: MaxSize");
  for (const comment of comments) {
    if (!comment.path || comment.path.length > 4096 || comment.path.includes("\0"))
      throw new Invalid("[Path]: Required");
    if (!comment.body || comment.body.length > MAX_BODY) throw new Invalid("[Body]: Required");
  }
  const type = reviewType(input.event, doer, found.issue, body.trim() !== "" || comments.length > 0);
  const commitId = input.commit_id || found.pull.head_commit_id;
  if (!isCommitId(commitId)) throw new Invalid("[CommitID]: invalid commit id");
  const official = await isOfficial(database, context, doer, found.pull);
  const now = toStoredTime(new Date(), database.dialect);
  return database.db.transaction().execute(async (trx) => {
    const pending =
      type === REVIEW.pending
        ? (await reviewsOfIssue(trx, found.issue.id)).find(
            (review) => review.reviewer_id === doer.id && review.type === REVIEW.pending,
          )
        : undefined;
    const review =
      pending ??
      (await insertReview(trx, {
        issue_id: found.issue.id,
        reviewer_id: doer.id,
        type,
        body,
        commit_id: commitId,
        official: official && (type === REVIEW.approve || type === REVIEW.reject),
        created_at: now,
        updated_at: now,
      }));
    for (const comment of comments)
      await insertReviewComment(trx, {
        review_id: review.id,
        issue_id: found.issue.id,
        poster_id: doer.id,
        path: comment.path as string,
        body: comment.body as string,
        line: comment.new_position ? comment.new_position : -(comment.old_position ?? 0),
        commit_id: commitId,
        created_at: now,
        updated_at: now,
      });
    if (type !== REVIEW.pending) await announceReview(trx, doer, found.issue, review, now);
    return review;
  });
}

/** POST /reviews/{id}: submits the caller's pending review as APPROVED, REQUEST_CHANGES or COMMENT. */
export async function submitReview(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  found: PullInContext,
  review: ReviewRow,
  input: { event?: string; body?: string },
): Promise<ReviewRow> {
  if (review.type !== REVIEW.pending) throw new Invalid("only a pending review can be submitted");
  if (review.reviewer_id !== doer.id) throw new Forbidden("only the reviewer can submit a review");
  const body = input.body ?? review.body;
  if (body.length > MAX_BODY) throw new Invalid("[Body]: MaxSize");
  if (!input.event || input.event === "PENDING") throw new Invalid("review event PENDING is not allowed");
  const comments = await reviewComments(database.db, review.id);
  const type = reviewType(input.event, doer, found.issue, body.trim() !== "" || comments.length > 0);
  const official = await isOfficial(database, context, doer, found.pull);
  const now = toStoredTime(new Date(), database.dialect);
  return database.db.transaction().execute(async (trx) => {
    const submitted = await updateReviewRow(trx, review.id, {
      type,
      body,
      commit_id: found.pull.head_commit_id || review.commit_id,
      official: official && (type === REVIEW.approve || type === REVIEW.reject),
      created_at: now,
      updated_at: now,
    });
    await announceReview(trx, doer, found.issue, submitted, now);
    return submitted;
  });
}

/** DELETE /reviews/{id}: its reviewer or a site admin. */
export async function deleteReview(
  database: ForgeDatabase,
  doer: AccountRow,
  review: ReviewRow,
): Promise<void> {
  if (doer.id !== review.reviewer_id && !isAdmin(doer))
    throw new Forbidden("only admin and user itself can delete a review");
  await database.db.transaction().execute((trx) => deleteReviewRow(trx, review.id));
}

/** POST /reviews/{id}/dismissals and /undismissals: repository admins, approvals and change requests only. */
export async function dismissReview(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  found: PullInContext,
  review: ReviewRow,
  dismiss: boolean,
  message = "",
): Promise<ReviewRow> {
  if (context.permission.mode < ACCESS_ADMIN) throw new Forbidden("Must be repo admin");
  if (review.type !== REVIEW.approve && review.type !== REVIEW.reject)
    throw new Invalid("not allow to dismiss review (type is not request changes or approve)");
  if (readBool(found.pull.has_merged) || readBool(found.issue.is_closed))
    throw new Invalid("pull request is closed");
  if (message.length > MAX_BODY) throw new Invalid("[Message]: MaxSize");
  const now = toStoredTime(new Date(), database.dialect);
  return database.db.transaction().execute(async (trx) => {
    const changed = await updateReviewRow(trx, review.id, { dismissed: dismiss, updated_at: now });
    if (dismiss)
      await insertTimelineEvent(
        trx,
        {
          issue_id: found.issue.id,
          repo_id: found.issue.repo_id,
          poster_id: doer.id,
          type: EVENT.dismissReview,
          body: message,
          assignee_id: review.reviewer_id,
        },
        now,
      );
    return changed;
  });
}

/**
 * Why branch protection refuses the merge of the pull into its base branch now, in Gitea's words
 * (its 405 "not allowed to merge [reason: …]"), or nothing: the approvals it asks for (each
 * reviewer's latest verdict, official and not dismissed), and no official request for changes when
 * it blocks on them. A repository admin's force_merge passes, unless the rule forbids that.
 */
export async function protectionRefusal(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  issue: IssueRow,
  pull: PullRow,
  force: boolean,
): Promise<string | undefined> {
  const rule = await protectionFor(database.db, context.repository.id, pull.base_branch);
  if (!rule) return undefined;
  const ignoreStale = readBool(rule.ignore_stale_approvals);
  const verdicts = (await latestVerdicts(database.db, issue.id)).filter(
    (review) => readBool(review.official) && !readBool(review.dismissed),
  );
  let reason: string | undefined;
  const approvals = verdicts.filter(
    (review) => review.type === REVIEW.approve && !(ignoreStale && readBool(review.stale)),
  ).length;
  if (approvals < rule.required_approvals) reason = "Does not have enough approvals";
  else if (
    readBool(rule.block_on_rejected_reviews) &&
    verdicts.some((review) => review.type === REVIEW.reject)
  )
    reason = "There are requested changes";
  else if (
    readBool(rule.block_on_official_review_requests) &&
    (await officialRequestOpen(database, context, rule, issue))
  )
    reason = "There are official review requests";
  else if (readBool(rule.enable_status_check) && !(await requiredChecksPassed(database, rule, pull)))
    reason = "Not all required status checks successful";
  if (reason === undefined) return undefined;
  const admin = context.permission.mode >= ACCESS_ADMIN || isAdmin(doer);
  if (force && admin && !readBool(rule.block_admin_merge_override)) return undefined;
  return `not allowed to merge [reason: ${reason}]`;
}

/**
 * Whether the head commit's statuses satisfy the rule (Gitea's MergeRequiredContextsCommitStatus):
 * each required context (a glob) has its latest status a success; without contexts, the combined
 * state is a success. No status at all is pending.
 */
async function requiredChecksPassed(
  database: ForgeDatabase,
  rule: BranchProtection,
  pull: PullRow,
): Promise<boolean> {
  const combined = await combinedStatus(database.db, pull.base_repo_id, pull.head_commit_id);
  if (combined.statuses.length === 0) return false;
  const contexts = statusCheckContexts(rule);
  if (contexts.length === 0) return combined.state === "success";
  return contexts.every((pattern) => {
    const filter = compileBranchFilter(pattern);
    return combined.statuses.find((status) => filter?.matches(status.context))?.state === "success";
  });
}

/** Whether a review is still asked of someone whose verdict would count (an official reviewer). */
async function officialRequestOpen(
  database: ForgeDatabase,
  context: RepositoryContext,
  rule: BranchProtection,
  issue: IssueRow,
): Promise<boolean> {
  const requested = (await requestedReviewersOf(database.db, [issue.id])).get(issue.id) ?? [];
  const reviewers = await findAccountsByIds(database.db, requested);
  for (const reviewer of reviewers.values()) {
    const permission = await repositoryPermission(database, context.repository, context.owner, reviewer);
    if (await isOfficialReviewer(database.db, rule, reviewer, permission)) return true;
  }
  return false;
}

/** Whether the base branch's protection lets `doer` merge (its merge allow-list); code writers without one. */
export async function mayMergeInto(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  branch: string,
): Promise<boolean> {
  if (accessTo(context.permission, "repo.code") < ACCESS_WRITE) return false;
  const rule = await protectionFor(database.db, context.repository.id, branch);
  return rule ? canMerge(database.db, rule, doer, context.permission) : true;
}

/** Whether a verdict of `doer` counts toward approvals: the protection's official reviewers, else code writers. */
async function isOfficial(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  pull: PullRow,
): Promise<boolean> {
  const rule = await protectionFor(database.db, context.repository.id, pull.base_branch);
  if (rule) return isOfficialReviewer(database.db, rule, doer, context.permission);
  return accessTo(context.permission, "repo.code") >= ACCESS_WRITE;
}
