import { readBool } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import type { CommentInIssue } from "../repositories/comments.ts";
import type { ReactionRow } from "../repositories/reactions.ts";
import { link } from "./link.ts";
import { apiTime } from "./time.ts";
import { type ApiUser, toApiUser } from "./user.ts";

/** Gitea's CommentType names, by number: what a TimelineComment's `type` says. */
const COMMENT_TYPE_NAMES = [
  "comment",
  "reopen",
  "close",
  "issue_ref",
  "commit_ref",
  "comment_ref",
  "pull_ref",
  "label",
  "milestone",
  "assignees",
  "change_title",
  "delete_branch",
  "start_tracking",
  "stop_tracking",
  "add_time_manual",
  "cancel_tracking",
  "added_deadline",
  "modified_deadline",
  "removed_deadline",
  "add_dependency",
  "remove_dependency",
  "code",
  "review",
  "lock",
  "unlock",
  "change_target_branch",
  "delete_time_manual",
  "review_request",
  "merge_pull",
  "pull_push",
  "project",
  "project_board",
  "dismiss_review",
  "change_issue_ref",
  "pull_scheduled_merge",
  "pull_cancel_scheduled_merge",
  "pin",
  "unpin",
  "change_time_estimate",
  "change_flow_type",
] as const;

/** The repository a comment's URLs are under: its owner's and its own name. */
export interface CommentPlace {
  owner: string;
  repo: string;
  rootUrl: URL;
}

/** The web page of an issue or a pull, which Gitea's comment URLs point into. */
function issuePage(place: CommentPlace, comment: CommentInIssue): string {
  const kind = readBool(comment.issue_is_pull) ? "pulls" : "issues";
  return link(
    place.rootUrl,
    `${encodeURIComponent(place.owner)}/${encodeURIComponent(place.repo)}/${kind}/${comment.issue_number}`,
  );
}

/** The fields a Comment and a TimelineComment share, in Gitea's order. */
function commentHead(comment: CommentInIssue, poster: AccountRow, place: CommentPlace) {
  const page = issuePage(place, comment);
  const isPull = readBool(comment.issue_is_pull);
  return {
    id: comment.id,
    html_url: `${page}#issuecomment-${comment.id}`,
    pull_request_url: isPull ? page : "",
    issue_url: isPull ? "" : page,
    // Gitea renders a comment's poster as an anonymous caller would see them, whoever asks.
    user: toApiUser(poster, undefined, place.rootUrl),
  };
}

/** A comment as Gitea's Comment: the body as written, no attachments (the forge has none). */
export function toApiComment(comment: CommentInIssue, poster: AccountRow, place: CommentPlace) {
  return {
    ...commentHead(comment, poster, place),
    original_author: "",
    original_author_id: 0,
    body: comment.body,
    assets: [],
    created_at: apiTime(comment.created_at),
    updated_at: apiTime(comment.updated_at),
  };
}

/** What a timeline event names beyond its row, rendered by the caller (labels, milestones, users). */
export interface TimelineParts {
  label?: unknown;
  milestone?: unknown;
  oldMilestone?: unknown;
  assignee?: ApiUser;
}

/**
 * Any comment-table row as Gitea's TimelineComment, its `type` named; what a row does not name is
 * null (Gitea's nil pointers) or zero.
 */
export function toTimelineComment(
  comment: CommentInIssue,
  poster: AccountRow,
  place: CommentPlace,
  parts: TimelineParts,
) {
  const { id, html_url, pull_request_url, issue_url, user } = commentHead(comment, poster, place);
  return {
    id,
    type: COMMENT_TYPE_NAMES[comment.type] ?? "",
    html_url,
    pull_request_url,
    issue_url,
    user,
    body: comment.body,
    created_at: apiTime(comment.created_at),
    updated_at: apiTime(comment.updated_at),
    old_project_id: 0,
    project_id: 0,
    old_milestone: parts.oldMilestone ?? null,
    milestone: parts.milestone ?? null,
    tracked_time: null,
    old_title: comment.old_title,
    new_title: comment.new_title,
    old_ref: "",
    new_ref: "",
    ref_issue: null,
    ref_comment: null,
    ref_action: "",
    ref_commit_sha: "",
    review_id: 0,
    label: parts.label ?? null,
    assignee: parts.assignee ?? null,
    assignee_team: null,
    resolve_doer: null,
    dependent_issue: null,
    removed_assignee: readBool(comment.removed_assignee),
  };
}

/** A reaction as Gitea's Reaction: who, what, when. */
export function toApiReaction(
  reaction: Pick<ReactionRow, "content" | "created_at">,
  user: AccountRow,
  viewer: AccountRow | undefined,
  rootUrl: URL,
) {
  return {
    user: toApiUser(user, viewer, rootUrl),
    content: reaction.content,
    created_at: apiTime(reaction.created_at),
  };
}
