import { countRows, type DialectName, forUpdate } from "@anvil/core";
import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from "kysely";
import type { ForgeTables, PullRequestTable, ReviewCommentTable, ReviewTable } from "../schemas/tables.ts";
import type { IssueRow } from "./issues.ts";

export type PullRow = Selectable<PullRequestTable>;
export type ReviewRow = Selectable<ReviewTable>;
export type ReviewCommentRow = Selectable<ReviewCommentTable>;

/** Gitea's PullRequestStatus, by the names this forge stores. */
export const PULL_STATUS = {
  checking: "checking",
  mergeable: "mergeable",
  conflict: "conflict",
  empty: "empty",
  error: "error",
  /** Claimed by a merge in progress (see claimMerge). */
  merging: "merging",
  manuallyMerged: "manually_merged",
} as const;

export function insertPull(trx: Kysely<ForgeTables>, pull: Insertable<PullRequestTable>): Promise<PullRow> {
  return trx.insertInto("pull_request").values(pull).returningAll().executeTakeFirstOrThrow();
}

export function findPullByIssueId(db: Kysely<ForgeTables>, issueId: number): Promise<PullRow | undefined> {
  return db.selectFrom("pull_request").selectAll().where("issue_id", "=", issueId).executeTakeFirst();
}

export function findPullById(db: Kysely<ForgeTables>, id: number): Promise<PullRow | undefined> {
  return db.selectFrom("pull_request").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findIssueOfPull(db: Kysely<ForgeTables>, pull: PullRow): Promise<IssueRow | undefined> {
  return db.selectFrom("issue").selectAll().where("id", "=", pull.issue_id).executeTakeFirst();
}

/** The pull rows of these issues, by issue id. */
export async function pullsOfIssues(
  db: Kysely<ForgeTables>,
  issueIds: readonly number[],
): Promise<Map<number, PullRow>> {
  if (issueIds.length === 0) return new Map();
  const rows = await db.selectFrom("pull_request").selectAll().where("issue_id", "in", issueIds).execute();
  return new Map(rows.map((row) => [row.issue_id, row]));
}

export function lockPull(
  trx: Kysely<ForgeTables>,
  dialect: DialectName,
  id: number,
): Promise<PullRow | undefined> {
  return trx
    .selectFrom("pull_request")
    .selectAll()
    .where("id", "=", id)
    .$call(forUpdate(dialect))
    .executeTakeFirst();
}

export function updatePullRow(
  trx: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<PullRequestTable>,
): Promise<PullRow> {
  return trx
    .updateTable("pull_request")
    .set(changes)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface PullTargets {
  baseRepoId: number;
  baseBranch: string;
  headRepoId: number;
  headBranch: string;
}

/** The open, unmerged pull from this head into this base (Gitea's GetUnmergedPullRequest). */
export function findOpenPull(
  db: Kysely<ForgeTables>,
  targets: PullTargets,
): Promise<(PullRow & { number: number }) | undefined> {
  return db
    .selectFrom("pull_request")
    .innerJoin("issue", "issue.id", "pull_request.issue_id")
    .selectAll("pull_request")
    .select("issue.number")
    .where("pull_request.base_repo_id", "=", targets.baseRepoId)
    .where("pull_request.base_branch", "=", targets.baseBranch)
    .where("pull_request.head_repo_id", "=", targets.headRepoId)
    .where("pull_request.head_branch", "=", targets.headBranch)
    .where("pull_request.has_merged", "=", false)
    .where("issue.is_closed", "=", false)
    .executeTakeFirst();
}

/** The newest pull from this head into this base, open ones first (GET /pulls/{base}/{head}). */
export function findPullByTargets(
  db: Kysely<ForgeTables>,
  targets: PullTargets,
): Promise<PullRow | undefined> {
  return db
    .selectFrom("pull_request")
    .innerJoin("issue", "issue.id", "pull_request.issue_id")
    .selectAll("pull_request")
    .where("pull_request.base_repo_id", "=", targets.baseRepoId)
    .where("pull_request.base_branch", "=", targets.baseBranch)
    .where("pull_request.head_repo_id", "=", targets.headRepoId)
    .where("pull_request.head_branch", "=", targets.headBranch)
    .orderBy("issue.is_closed")
    .orderBy("pull_request.id", "desc")
    .executeTakeFirst();
}

/** Whether an open pull other than `exceptId` still uses this head branch. */
export async function headInUse(
  db: Kysely<ForgeTables>,
  headRepoId: number,
  headBranch: string,
  exceptId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom("pull_request")
    .innerJoin("issue", "issue.id", "pull_request.issue_id")
    .select("pull_request.id")
    .where("pull_request.head_repo_id", "=", headRepoId)
    .where("pull_request.head_branch", "=", headBranch)
    .where("pull_request.id", "!=", exceptId)
    .where("pull_request.has_merged", "=", false)
    .where("issue.is_closed", "=", false)
    .executeTakeFirst();
  return row !== undefined;
}

// A pull claimed by a merge keeps its claim when marked; its moved version tells the merge, if it
// fails, that the status it had before is out of date (see releaseMerge).
const checkingUnlessClaimed = () =>
  sql<string>`case when status = ${PULL_STATUS.merging} then status else ${PULL_STATUS.checking} end`;

/**
 * Marks the open pulls whose base or head is in this repository for a mergeability check (a push
 * moved some branch there). Answers how many were marked.
 */
export async function markPullsForCheck(
  db: Kysely<ForgeTables>,
  repoId: number,
  branches?: readonly string[],
  pusherId?: number,
): Promise<number> {
  if (branches !== undefined && branches.length === 0) return 0;
  let update = db
    .updateTable("pull_request")
    .set((eb) => ({
      status: checkingUnlessClaimed(),
      check_version: eb("check_version", "+", 1),
      ...(pusherId === undefined ? {} : { pusher_id: pusherId }),
    }))
    .where("has_merged", "=", false)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("issue")
          .select("issue.id")
          .whereRef("issue.id", "=", "pull_request.issue_id")
          .where("issue.is_closed", "=", false),
      ),
    );
  update = update.where((eb) =>
    eb.or([
      branches === undefined
        ? eb("base_repo_id", "=", repoId)
        : eb.and([eb("base_repo_id", "=", repoId), eb("base_branch", "in", branches)]),
      branches === undefined
        ? eb("head_repo_id", "=", repoId)
        : eb.and([eb("head_repo_id", "=", repoId), eb("head_branch", "in", branches)]),
    ]),
  );
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Whether the repository is the base or the head of some open pull. */
export async function hasOpenPulls(db: Kysely<ForgeTables>, repoId: number): Promise<boolean> {
  const row = await db
    .selectFrom("pull_request")
    .innerJoin("issue", "issue.id", "pull_request.issue_id")
    .select("pull_request.id")
    .where((eb) =>
      eb.or([eb("pull_request.base_repo_id", "=", repoId), eb("pull_request.head_repo_id", "=", repoId)]),
    )
    .where("issue.is_closed", "=", false)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * After a push: marks the pulls whose base or head branch in this repository moved (every open
 * pull of the repository when the tips before are unknown); answers whether any was marked.
 */
export async function markPushedPulls(
  database: { db: Kysely<ForgeTables> },
  repoId: number,
  pusherId: number,
  before: ReadonlyMap<string, string> | undefined,
  after: ReadonlyMap<string, string> | undefined,
): Promise<boolean> {
  if (!before || !after) return (await markPullsForCheck(database.db, repoId, undefined, pusherId)) > 0;
  const moved = [...new Set([...before.keys(), ...after.keys()])]
    .filter((ref) => ref.startsWith("refs/heads/") && before.get(ref) !== after.get(ref))
    .map((ref) => ref.slice("refs/heads/".length));
  return (await markPullsForCheck(database.db, repoId, moved, pusherId)) > 0;
}

/** Marks one pull for a check. */
export async function markPullForCheck(db: Kysely<ForgeTables>, id: number): Promise<void> {
  await db
    .updateTable("pull_request")
    .set((eb) => ({ status: checkingUnlessClaimed(), check_version: eb("check_version", "+", 1) }))
    .where("id", "=", id)
    .where("has_merged", "=", false)
    .execute();
}

/** Pulls waiting for a check, oldest mark first. */
export function pullsToCheck(db: Kysely<ForgeTables>, limit: number): Promise<PullRow[]> {
  return db
    .selectFrom("pull_request")
    .selectAll()
    .where("status", "=", PULL_STATUS.checking)
    .where("has_merged", "=", false)
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** Writes a check's result unless the pull was marked again (or claimed) since the check began. */
export async function writeCheckResult(
  db: Kysely<ForgeTables>,
  pull: PullRow,
  changes: Updateable<PullRequestTable>,
): Promise<boolean> {
  const result = await db
    .updateTable("pull_request")
    .set(changes)
    .where("id", "=", pull.id)
    .where("check_version", "=", pull.check_version)
    .where("status", "=", PULL_STATUS.checking)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Claims the pull for one merge: only an unmerged pull in one of these statuses can be claimed,
 * and only once; the claim holds until the merge is recorded or released.
 */
export async function claimMerge(
  db: Kysely<ForgeTables>,
  pull: PullRow,
  statuses: readonly string[],
): Promise<boolean> {
  if (!statuses.includes(pull.status)) return false;
  const result = await db
    .updateTable("pull_request")
    .set({ status: PULL_STATUS.merging })
    .where("id", "=", pull.id)
    .where("has_merged", "=", false)
    .where("status", "=", pull.status)
    .where("check_version", "=", pull.check_version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Gives a claim back: the pull has the status it had when claimed, unless it was marked for a
 * check meanwhile (a push), or `recheck` says the merge found it out of date: then it is checked.
 */
export async function releaseMerge(
  db: Kysely<ForgeTables>,
  claimed: PullRow,
  recheck: boolean,
): Promise<void> {
  if (!recheck) {
    const restored = await db
      .updateTable("pull_request")
      .set({ status: claimed.status })
      .where("id", "=", claimed.id)
      .where("status", "=", PULL_STATUS.merging)
      .where("check_version", "=", claimed.check_version)
      .executeTakeFirst();
    if (Number(restored.numUpdatedRows) === 1) return;
  }
  await db
    .updateTable("pull_request")
    .set((eb) => ({ status: PULL_STATUS.checking, check_version: eb("check_version", "+", 1) }))
    .where("id", "=", claimed.id)
    .where("status", "=", PULL_STATUS.merging)
    .execute();
}

/** Claims left by a process that stopped mid-merge: checked again (the check notices a merge that landed). */
export async function releaseAllMergeClaims(db: Kysely<ForgeTables>): Promise<void> {
  await db
    .updateTable("pull_request")
    .set((eb) => ({ status: PULL_STATUS.checking, check_version: eb("check_version", "+", 1) }))
    .where("status", "=", PULL_STATUS.merging)
    .execute();
}

export interface PullQuery {
  repoId: number;
  isClosed?: boolean;
  labelIds?: readonly number[];
  milestoneId?: number;
  posterId?: number;
  baseBranch?: string;
  sort?: string;
  offset: number;
  limit: number;
}

/** A page of the repository's pulls (their issue rows) with Gitea's filters and orders, and the count. */
export async function listPullIssues(
  db: Kysely<ForgeTables>,
  query: PullQuery,
): Promise<{ rows: IssueRow[]; total: number }> {
  let selection = db
    .selectFrom("issue")
    .innerJoin("pull_request", "pull_request.issue_id", "issue.id")
    .where("issue.repo_id", "=", query.repoId)
    .where("issue.is_pull", "=", true);
  if (query.isClosed !== undefined) selection = selection.where("issue.is_closed", "=", query.isClosed);
  if (query.milestoneId !== undefined)
    selection = selection.where("issue.milestone_id", "=", query.milestoneId);
  if (query.posterId !== undefined) selection = selection.where("issue.poster_id", "=", query.posterId);
  if (query.baseBranch !== undefined)
    selection = selection.where("pull_request.base_branch", "=", query.baseBranch);
  for (const labelId of query.labelIds ?? [])
    selection = selection.where(({ exists, selectFrom }) =>
      exists(
        selectFrom("issue_label")
          .select("issue_label.label_id")
          .whereRef("issue_label.issue_id", "=", "issue.id")
          .where("issue_label.label_id", "=", labelId),
      ),
    );
  let ordered = selection.selectAll("issue");
  switch (query.sort) {
    case "oldest":
      ordered = ordered.orderBy("issue.created_at", "asc");
      break;
    case "recentupdate":
      ordered = ordered.orderBy("issue.updated_at", "desc");
      break;
    case "leastupdate":
      ordered = ordered.orderBy("issue.updated_at", "asc");
      break;
    case "recentclose":
      ordered = ordered.orderBy("issue.closed_at", "desc");
      break;
    case "mostcomment":
      ordered = ordered.orderBy("issue.num_comments", "desc");
      break;
    case "leastcomment":
      ordered = ordered.orderBy("issue.num_comments", "asc");
      break;
    case "priority":
      ordered = ordered.orderBy("issue.pin_order", "desc");
      break;
    default:
      ordered = ordered.orderBy("issue.created_at", "desc");
  }
  ordered = ordered.orderBy("issue.id", query.sort === "oldest" ? "asc" : "desc");
  const [rows, total] = await Promise.all([
    ordered.limit(query.limit).offset(query.offset).execute(),
    countRows(db, selection.select("issue.id")),
  ]);
  return { rows, total };
}

// --- Reviews ---------------------------------------------------------------------------------------

/** Gitea's ReviewType. */
export const REVIEW = { pending: 0, approve: 1, comment: 2, reject: 3, request: 4 } as const;

export function insertReview(trx: Kysely<ForgeTables>, review: Insertable<ReviewTable>): Promise<ReviewRow> {
  return trx.insertInto("review").values(review).returningAll().executeTakeFirstOrThrow();
}

export function updateReviewRow(
  trx: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<ReviewTable>,
): Promise<ReviewRow> {
  return trx.updateTable("review").set(changes).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteReviewRow(trx: Kysely<ForgeTables>, id: number): Promise<void> {
  await trx.deleteFrom("review").where("id", "=", id).execute();
}

export function findReview(
  db: Kysely<ForgeTables>,
  issueId: number,
  id: number,
): Promise<ReviewRow | undefined> {
  return db
    .selectFrom("review")
    .selectAll()
    .where("issue_id", "=", issueId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** The reviews of a pull (requests among them), oldest first. */
export function reviewsOfIssue(db: Kysely<ForgeTables>, issueId: number): Promise<ReviewRow[]> {
  return db.selectFrom("review").selectAll().where("issue_id", "=", issueId).orderBy("id").execute();
}

/** The reviewers whose review is requested and not yet given, per issue. */
export async function requestedReviewersOf(
  db: Kysely<ForgeTables>,
  issueIds: readonly number[],
): Promise<Map<number, number[]>> {
  if (issueIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("review")
    .select(["issue_id", "reviewer_id"])
    .where("issue_id", "in", issueIds)
    .where("type", "=", REVIEW.request)
    .orderBy("id")
    .execute();
  const map = new Map<number, number[]>();
  for (const row of rows) map.set(row.issue_id, [...(map.get(row.issue_id) ?? []), row.reviewer_id]);
  return map;
}

export async function deleteReviewRequests(
  trx: Kysely<ForgeTables>,
  issueId: number,
  reviewerId: number,
): Promise<number> {
  const result = await trx
    .deleteFrom("review")
    .where("issue_id", "=", issueId)
    .where("reviewer_id", "=", reviewerId)
    .where("type", "=", REVIEW.request)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function insertReviewComment(
  trx: Kysely<ForgeTables>,
  comment: Insertable<ReviewCommentTable>,
): Promise<ReviewCommentRow> {
  return trx.insertInto("review_comment").values(comment).returningAll().executeTakeFirstOrThrow();
}

export function reviewComments(db: Kysely<ForgeTables>, reviewId: number): Promise<ReviewCommentRow[]> {
  return db
    .selectFrom("review_comment")
    .selectAll()
    .where("review_id", "=", reviewId)
    .orderBy("id")
    .execute();
}

/** How many code comments each review has, by review id. */
export async function reviewCommentCounts(
  db: Kysely<ForgeTables>,
  reviewIds: readonly number[],
): Promise<Map<number, number>> {
  if (reviewIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("review_comment")
    .select(["review_id", db.fn.countAll<number>().as("n")])
    .where("review_id", "in", reviewIds)
    .groupBy("review_id")
    .execute();
  return new Map(rows.map((row) => [row.review_id, Number(row.n)]));
}

/** How many code comments of submitted reviews a pull has (PullRequest.review_comments). */
export async function countReviewComments(db: Kysely<ForgeTables>, issueId: number): Promise<number> {
  const row = await db
    .selectFrom("review_comment")
    .innerJoin("review", "review.id", "review_comment.review_id")
    .select(db.fn.countAll<number>().as("n"))
    .where("review_comment.issue_id", "=", issueId)
    .where("review.type", "!=", REVIEW.pending)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * After the head moved to `head`: the verdicts given on another commit are stale, and with
 * `dismiss` (the protection's dismiss_stale_approvals) dismissed too.
 */
export async function markStaleVerdicts(
  trx: Kysely<ForgeTables>,
  issueId: number,
  head: string,
  dismiss: boolean,
): Promise<void> {
  await trx
    .updateTable("review")
    .set(dismiss ? { stale: true, dismissed: true } : { stale: true })
    .where("issue_id", "=", issueId)
    .where("type", "in", [REVIEW.approve, REVIEW.reject])
    .where("commit_id", "!=", head)
    .execute();
}

/** Each reviewer's latest approving or rejecting review that is not dismissed (what approvals count). */
export async function latestVerdicts(db: Kysely<ForgeTables>, issueId: number): Promise<ReviewRow[]> {
  const rows = await db
    .selectFrom("review")
    .selectAll()
    .where("issue_id", "=", issueId)
    .where("type", "in", [REVIEW.approve, REVIEW.reject])
    .orderBy("id")
    .execute();
  const latest = new Map<number, ReviewRow>();
  for (const row of rows) latest.set(row.reviewer_id, row);
  return [...latest.values()];
}
