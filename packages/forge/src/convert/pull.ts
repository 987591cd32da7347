import { readBool } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import {
  PULL_STATUS,
  type PullRow,
  REVIEW,
  type ReviewCommentRow,
  type ReviewRow,
} from "../repositories/pulls.ts";
import type { RepositoryRow } from "../repositories/repos.ts";
import type { Permission } from "../services/access.ts";
import { type IssueView, toApiIssue, WIP_PREFIXES } from "./issue.ts";
import { link } from "./link.ts";
import { type CloneUrls, toApiRepository } from "./repository.ts";
import { apiTime } from "./time.ts";
import { toApiUser } from "./user.ts";

/** One side of a pull: its repository as the viewer may see it (absent once a fork is gone), its branch and tip. */
export interface PullSide {
  repository?: { repository: RepositoryRow; owner: AccountRow; permission: Permission; topics: string[] };
  branch: string;
  sha: string;
}

/** A pull request with what its answer shows besides its rows. */
export interface PullView {
  issue: IssueView;
  pull: PullRow;
  base: PullSide & { repository: NonNullable<PullSide["repository"]> };
  head: PullSide;
  mergedBy: AccountRow | undefined;
  requestedReviewers: readonly AccountRow[];
  reviewComments: number;
}

export function isWorkInProgress(title: string): boolean {
  const upper = title.toUpperCase();
  return WIP_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** Gitea's PullRequest.Mergeable: a pull is mergeable unless checked as not, still checked, or a draft. */
export function isMergeable(pull: PullRow, title: string): boolean {
  if (readBool(pull.has_merged)) return false;
  return (
    pull.status !== PULL_STATUS.checking &&
    pull.status !== PULL_STATUS.conflict &&
    pull.status !== PULL_STATUS.error &&
    pull.status !== PULL_STATUS.merging &&
    !isWorkInProgress(title)
  );
}

function branchInfo(side: PullSide, viewer: AccountRow | undefined, urls: CloneUrls) {
  const where = side.repository;
  return {
    label: side.branch,
    ref: side.branch,
    sha: side.sha,
    repo_id: where?.repository.id ?? 0,
    repo: where
      ? toApiRepository(where.repository, where.owner, viewer, where.permission, urls, where.topics)
      : null,
  };
}

/** A pull request as Gitea's API renders it. */
export function toApiPullRequest(view: PullView, viewer: AccountRow | undefined, urls: CloneUrls) {
  const issue = toApiIssue(view.issue, view.base.repository, viewer, urls.rootUrl);
  const { pull } = view;
  const merged = readBool(pull.has_merged);
  return {
    id: pull.id,
    url: issue.html_url,
    number: issue.number,
    user: issue.user,
    title: issue.title,
    body: issue.body,
    labels: issue.labels,
    milestone: issue.milestone,
    assignee: issue.assignee,
    assignees: issue.assignees,
    requested_reviewers: view.requestedReviewers.map((account) => toApiUser(account, viewer, urls.rootUrl)),
    requested_reviewers_teams: [],
    state: issue.state,
    draft: isWorkInProgress(issue.title),
    is_locked: issue.is_locked,
    comments: issue.comments,
    review_comments: view.reviewComments,
    html_url: issue.html_url,
    diff_url: `${issue.html_url}.diff`,
    patch_url: `${issue.html_url}.patch`,
    mergeable: isMergeable(pull, issue.title),
    merged,
    merged_at: merged && pull.merged_at ? apiTime(pull.merged_at) : null,
    // Gitea's nil string pointer until merged: absent here, as the swagger types it a string.
    ...(merged ? { merge_commit_sha: pull.merge_commit_sha ?? "" } : {}),
    merged_by: merged && view.mergedBy ? toApiUser(view.mergedBy, viewer, urls.rootUrl) : null,
    allow_maintainer_edit: readBool(pull.allow_maintainer_edit),
    base: branchInfo(view.base, viewer, urls),
    head: branchInfo(view.head, viewer, urls),
    merge_base: pull.merge_base,
    due_date: issue.due_date,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    pin_order: issue.pin_order,
  };
}

export type ApiPullRequest = ReturnType<typeof toApiPullRequest>;

/** Gitea's ReviewStateType of a review row. */
export function reviewState(review: ReviewRow): string {
  switch (review.type) {
    case REVIEW.pending:
      return "PENDING";
    case REVIEW.approve:
      return "APPROVED";
    case REVIEW.reject:
      return "REQUEST_CHANGES";
    case REVIEW.request:
      return "REQUEST_REVIEW";
    default:
      return "COMMENT";
  }
}

/** Where a review's links point: its pull. */
export interface ReviewPlace {
  rootUrl: URL;
  /** `owner/repo`, URL-encoded. */
  path: string;
  number: number;
}

export function toApiReview(
  review: ReviewRow,
  reviewer: AccountRow,
  commentsCount: number,
  place: ReviewPlace,
  viewer: AccountRow | undefined,
) {
  const pullUrl = link(place.rootUrl, `${place.path}/pulls/${place.number}`);
  return {
    id: review.id,
    user: toApiUser(reviewer, viewer, place.rootUrl),
    team: null,
    state: reviewState(review),
    body: review.body,
    commit_id: review.commit_id,
    stale: readBool(review.stale),
    official: readBool(review.official),
    dismissed: readBool(review.dismissed),
    comments_count: commentsCount,
    submitted_at: apiTime(review.created_at),
    updated_at: apiTime(review.updated_at),
    html_url: `${pullUrl}#issuecomment-${review.id}`,
    pull_request_url: pullUrl,
  };
}

export function toApiReviewComment(
  comment: ReviewCommentRow,
  poster: AccountRow,
  place: ReviewPlace,
  viewer: AccountRow | undefined,
) {
  const pullUrl = link(place.rootUrl, `${place.path}/pulls/${place.number}`);
  return {
    id: comment.id,
    body: comment.body,
    user: toApiUser(poster, viewer, place.rootUrl),
    resolver: null,
    pull_request_review_id: comment.review_id,
    created_at: apiTime(comment.created_at),
    updated_at: apiTime(comment.updated_at),
    path: comment.path,
    commit_id: comment.commit_id,
    original_commit_id: comment.commit_id,
    diff_hunk: "",
    position: Math.max(comment.line, 0),
    original_position: comment.line < 0 ? -comment.line : 0,
    html_url: `${pullUrl}/files#issuecomment-${comment.id}`,
    pull_request_url: pullUrl,
  };
}
