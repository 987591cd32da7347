import { readBool } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import type { IssueRow } from "../repositories/issues.ts";
import type { LabelRow } from "../repositories/labels.ts";
import type { MilestoneRow } from "../repositories/milestones.ts";
import type { RepositoryRow } from "../repositories/repos.ts";
import { type LabelPlace, toApiLabel } from "./label.ts";
import { link } from "./link.ts";
import { toApiMilestone } from "./milestone.ts";
import { apiTime } from "./time.ts";
import { toApiUser } from "./user.ts";

/** An issue with what its answer shows besides its own row. */
export interface IssueView {
  issue: IssueRow;
  poster: AccountRow;
  labels: readonly LabelRow[];
  milestone: MilestoneRow | undefined;
  assignees: readonly AccountRow[];
  /** The pull side of a pull request, for `pull_request.merged`. */
  pull?: { has_merged: boolean | number; merged_at: string | Date | null };
}

/** The repository an issue belongs to, and its owner, for the issue's URLs and `repository`. */
export interface IssueRepository {
  repository: RepositoryRow;
  owner: AccountRow;
}

function repositoryPath(where: IssueRepository): string {
  return `${encodeURIComponent(where.owner.name)}/${encodeURIComponent(where.repository.name)}`;
}

/** Where an issue's labels are shown: on its repository. */
export function labelPlace(where: IssueRepository, rootUrl: URL): LabelPlace {
  return { rootUrl, owner: where.owner.name, repository: where.repository.name };
}

/**
 * An issue (or the issue side of a pull request) as Gitea's API renders it: the poster as the
 * caller may see them, assignees as anyone may (Gitea renders them without a viewer), null for
 * what is not set.
 */
export function toApiIssue(
  view: IssueView,
  where: IssueRepository,
  viewer: AccountRow | undefined,
  rootUrl: URL,
) {
  const { issue } = view;
  const fullName = `${where.owner.name}/${where.repository.name}`;
  const path = repositoryPath(where);
  const isPull = readBool(issue.is_pull);
  const htmlUrl = link(rootUrl, `${path}/${isPull ? "pulls" : "issues"}/${issue.number}`);
  const assignees = view.assignees.map((account) => toApiUser(account, undefined, rootUrl));
  return {
    id: issue.id,
    url: link(rootUrl, `api/v1/repos/${path}/issues/${issue.number}`),
    html_url: htmlUrl,
    number: issue.number,
    user: toApiUser(view.poster, viewer, rootUrl),
    original_author: "",
    original_author_id: 0,
    title: issue.title,
    body: issue.body,
    ref: issue.ref,
    assets: [],
    labels: view.labels.map((label) => toApiLabel(label, labelPlace(where, rootUrl))),
    milestone: view.milestone ? toApiMilestone(view.milestone) : null,
    assignee: assignees[0] ?? null,
    assignees: assignees.length > 0 ? assignees : null,
    state: readBool(issue.is_closed) ? "closed" : "open",
    is_locked: readBool(issue.is_locked),
    comments: issue.num_comments,
    created_at: apiTime(issue.created_at),
    updated_at: apiTime(issue.updated_at),
    closed_at: issue.closed_at ? apiTime(issue.closed_at) : null,
    due_date: issue.deadline ? apiTime(issue.deadline) : null,
    time_estimate: 0,
    pull_request: isPull ? pullRequestMeta(view, htmlUrl) : null,
    repository: {
      id: where.repository.id,
      name: where.repository.name,
      owner: where.owner.name,
      full_name: fullName,
    },
    pin_order: issue.pin_order,
  };
}

/** Gitea's PullRequestMeta of a pull's issue side. */
function pullRequestMeta(view: IssueView, htmlUrl: string) {
  const merged = view.pull !== undefined && readBool(view.pull.has_merged);
  return {
    merged,
    merged_at: merged && view.pull?.merged_at ? apiTime(view.pull.merged_at) : null,
    draft: WIP_PREFIXES.some((prefix) => view.issue.title.toUpperCase().startsWith(prefix)),
    html_url: htmlUrl,
  };
}

// Gitea's WorkInProgressPrefixes: a pull whose title starts with one is a draft.
export const WIP_PREFIXES = ["WIP:", "[WIP]"];

export type ApiIssue = ReturnType<typeof toApiIssue>;
