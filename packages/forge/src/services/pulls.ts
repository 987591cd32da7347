import { Conflict, Forbidden, Invalid, NotFound, readBool, toStoredTime } from "@anvil/core";
import { PreconditionFailed } from "../errors.ts";
import {
  type Commit,
  changedFiles,
  commitsBetween,
  diffText,
  type FileChange,
  fetchRef,
  getBranch,
  isBranchName,
  MAX_PULL_COMMITS,
  mergeBase,
  readCommits,
  resolveCommit,
  setRef,
} from "../git/index.ts";
import { type AccountRow, findAccountByName } from "../repositories/accounts.ts";
import { findForkOf } from "../repositories/forks.ts";
import { type IssueRow, lockRepositoryRow, updateIssueRow } from "../repositories/issues.ts";
import {
  findIssueOfPull,
  findOpenPull,
  findPullByIssueId,
  findPullByTargets,
  insertPull,
  listPullIssues,
  lockPull,
  markPullForCheck,
  type PullRow,
  updatePullRow,
} from "../repositories/pulls.ts";
import { findRepository, findRepositoryById, type RepositoryRow } from "../repositories/repos.ts";
import { ACCESS_READ, ACCESS_WRITE, accessTo, repositoryPermission } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import {
  changeIssueLabels,
  checkBody,
  checkTitle,
  editIssue,
  getIssue,
  insertNewIssue,
  parseApiTime,
  queueOpenedEvents,
  resolveAssignees,
  resolveLabels,
  resolveMilestone,
} from "./issues.ts";
import { wakePullChecker } from "./pull-check.ts";
import { queuePullEvent } from "./pull-events.ts";
import { pathOf } from "./pull-views.ts";
import type { RepositoryContext, Storage } from "./repositories.ts";
import { requestReviewsInTransaction, resolveReviewers } from "./reviews.ts";

// Pull requests of a repository: an issue row (is_pull) that shares the issues' numbers and
// rules, and a pull_request row for its branches, merge state and mergeability. The head's commit
// is kept in the base repository as refs/pull/N/head, as Gitea keeps it.

/** The ref of the base repository that holds pull `number`'s head commit. */
export function pullHeadRef(number: number): string {
  return `refs/pull/${number}/head`;
}

/** A pull and its issue, found through the issue's number. */
export interface PullInContext {
  issue: IssueRow;
  pull: PullRow;
}

/** Pull `index` of the repository, when the caller may read pulls; a 404 otherwise (an issue too). */
export async function getPull(
  database: ForgeDatabase,
  context: RepositoryContext,
  index: string | number,
): Promise<PullInContext> {
  const issue = await getIssue(database, context, index).catch((error) => {
    if (error instanceof NotFound) return undefined;
    throw error;
  });
  const pull = issue && readBool(issue.is_pull) ? await findPullByIssueId(database.db, issue.id) : undefined;
  if (!issue || !pull) throw new NotFound("pull request does not exist");
  return { issue, pull };
}

/** Where a head is: a repository and a branch in it. */
export interface HeadTarget {
  context: RepositoryContext;
  branch: string;
}

/**
 * The repository and branch a `head` names, as Gitea's compare info reads it: `branch` is in the
 * base repository; `owner:branch` (or `owner/repo:branch` for a look-up) in the base repository
 * when `owner` owns it, else in their fork of it, else in its parent when the base is a fork of
 * `owner`'s repository. The viewer must read the head's code; anything else is a 404.
 */
async function resolveHead(
  database: ForgeDatabase,
  base: RepositoryContext,
  head: string,
  viewer: AccountRow | undefined,
): Promise<HeadTarget> {
  const parts = head.split(":");
  if (parts.length > 2) throw new NotFound("head does not exist");
  if (parts.length === 1) return { context: base, branch: head };
  const [where, branch] = parts;
  const [ownerName, repoName] = where.split("/", 2);
  const owner = await findAccountByName(database.db, ownerName);
  if (!owner) throw new NotFound(`user does not exist [uid: 0, name: ${ownerName}]`);
  let repository: RepositoryRow | undefined;
  if (repoName !== undefined) repository = await findRepository(database.db, owner.id, repoName);
  else if (owner.id === base.owner.id) return { context: base, branch };
  else {
    repository = await findForkOf(database.db, base.repository.id, owner.id);
    if (!repository && base.repository.fork_id !== null) {
      const parent = await findRepositoryById(database.db, base.repository.fork_id);
      if (parent?.owner_id === owner.id) repository = parent;
    }
  }
  if (!repository) throw new NotFound("head repository does not exist");
  if (repository.id === base.repository.id) return { context: base, branch };
  const permission = await repositoryPermission(database, repository, owner, viewer);
  if (accessTo(permission, "repo.code") < ACCESS_READ) throw new NotFound("head repository does not exist");
  return { context: { repository, owner, permission }, branch };
}

export interface NewPull {
  head: string;
  base: string;
  title?: string;
  body?: string;
  assignee?: string;
  assignees?: string[];
  labels?: number[];
  milestone?: number;
  due_date?: string;
  reviewers?: string[];
  team_reviewers?: string[];
}

function alreadyExists(pull: PullRow & { number: number }): Conflict {
  return new Conflict(
    `pull request already exists for these targets [id: ${pull.id}, issue_id: ${pull.number}, head_repo_id: ${pull.head_repo_id}, base_repo_id: ${pull.base_repo_id}, head_branch: ${pull.head_branch}, base_branch: ${pull.base_branch}]`,
  );
}

/**
 * Opens a pull request (POST /pulls): anyone who may read the base repository's code and pulls;
 * labels, milestone, assignees, reviewers and due date only from writers of its pulls (silently
 * dropped for others, as for issues). The issue and pull rows, counters, events and webhooks are
 * one transaction, under the base repository's row lock so that one open pull per head and base
 * exists; refs/pull/N/head is written once the rows are, and the mergeability check is queued.
 */
export async function createPull(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  input: NewPull,
  rootUrl: URL,
): Promise<IssueRow> {
  if (
    accessTo(context.permission, "repo.pulls") < ACCESS_READ ||
    accessTo(context.permission, "repo.code") < ACCESS_READ
  )
    throw new NotFound("Can't read pulls or can't read UnitTypeCode");
  if (input.head === input.base)
    throw new Invalid("Invalid PullRequest: There are no changes between the head and the base");
  const title = input.title ?? "";
  checkTitle(title);
  checkBody(input.body ?? "");
  const head = await resolveHead(database, context, input.head, doer);
  if (
    accessTo(head.context.permission, "repo.code") < ACCESS_READ ||
    !isBranchName(input.base) ||
    !isBranchName(head.branch)
  )
    throw new NotFound("branch does not exist");
  const basePath = pathOf(storage, context);
  const headPath = pathOf(storage, head.context);
  const [baseBranch, headBranch] = await Promise.all([
    getBranch(basePath, input.base),
    getBranch(headPath, head.branch),
  ]);
  if (!baseBranch) throw new NotFound(`base branch does not exist [name: ${input.base}]`);
  if (!headBranch) throw new NotFound(`head branch does not exist [name: ${head.branch}]`);
  const sameRepository = head.context.repository.id === context.repository.id;
  if (sameRepository && baseBranch.name === headBranch.name)
    throw new Invalid("Invalid PullRequest: There are no changes between the head and the base");
  const targets = {
    baseRepoId: context.repository.id,
    baseBranch: baseBranch.name,
    headRepoId: head.context.repository.id,
    headBranch: headBranch.name,
  };
  const existing = await findOpenPull(database.db, targets);
  if (existing) throw alreadyExists(existing);
  // A fork's head commits are brought into the base repository first (unreferenced until
  // refs/pull/N/head names them), so that the two histories can be compared there.
  if (!sameRepository) await fetchRef(basePath, headPath, `refs/heads/${headBranch.name}`);
  const base = await mergeBase(basePath, baseBranch.commit.id, headBranch.commit.id);
  if (base === undefined)
    throw new Invalid("Invalid PullRequest: the head and the base have no history in common");
  const dueDate = input.due_date === undefined ? undefined : parseApiTime(input.due_date, "DueDate");
  const writer = accessTo(context.permission, "repo.pulls") >= ACCESS_WRITE;
  const assignees = writer
    ? await resolveAssignees(database, context, [
        ...(input.assignee ? [input.assignee] : []),
        ...(input.assignees ?? []),
      ])
    : [];
  const labels = writer ? await resolveLabels(database, context, input.labels ?? []) : [];
  const milestone =
    writer && input.milestone ? await resolveMilestone(database, context, input.milestone) : undefined;
  const reviewers = writer ? await resolveReviewers(database, context, doer, input.reviewers ?? []) : [];
  const now = toStoredTime(new Date(), database.dialect);
  const audience = { where: context, rootUrl };
  const issue = await database.db.transaction().execute(async (trx) => {
    await lockRepositoryRow(trx, database.dialect, context.repository.id);
    const racing = await findOpenPull(trx, targets);
    if (racing) throw alreadyExists(racing);
    const links = { labels, milestone, assignees };
    const issue = await insertNewIssue(trx, context.repository.id, doer, {
      ...links,
      fields: {
        title,
        body: input.body ?? "",
        ref: "",
        deadline: writer && dueDate ? toStoredTime(dueDate, database.dialect) : null,
      },
      isPull: true,
      now,
    });
    await insertPull(trx, {
      issue_id: issue.id,
      base_repo_id: targets.baseRepoId,
      head_repo_id: targets.headRepoId,
      base_branch: targets.baseBranch,
      head_branch: targets.headBranch,
      merge_base: base,
      head_commit_id: headBranch.commit.id,
    });
    await queueOpenedEvents(trx, audience, doer, issue, links);
    await requestReviewsInTransaction(trx, doer, issue, reviewers, now);
    return issue;
  });
  // A ref that could not be written now is written by the check, which compares it with the head.
  await setRef(basePath, pullHeadRef(issue.number), headBranch.commit.id).catch(() => undefined);
  wakePullChecker();
  return issue;
}

export interface PullFilters {
  state?: string;
  sort?: string;
  labels?: string | string[];
  milestone?: string;
  poster?: string;
  base_branch?: string;
}

/** GET /pulls: a page of the repository's pulls with Gitea's filters (labels by id, poster by name). */
export async function listPulls(
  database: ForgeDatabase,
  context: RepositoryContext,
  filters: PullFilters,
  window: { offset: number; limit: number },
): Promise<{ rows: IssueRow[]; total: number }> {
  if (accessTo(context.permission, "repo.pulls") < ACCESS_READ) throw new NotFound();
  const labels = [filters.labels ?? []].flat().filter((label) => label !== "");
  if (labels.length > 100) throw new Invalid("too many labels in a filter");
  if (labels.some((label) => !/^\d{1,15}$/.test(label))) throw new Invalid("labels must be ids");
  let posterId: number | undefined;
  if (filters.poster) {
    const poster = await findAccountByName(database.db, filters.poster);
    if (!poster) throw new Invalid(`user does not exist [uid: 0, name: ${filters.poster}]`);
    posterId = poster.id;
  }
  const milestone = filters.milestone && /^\d{1,15}$/.test(filters.milestone) ? Number(filters.milestone) : 0;
  return listPullIssues(database.db, {
    repoId: context.repository.id,
    isClosed: filters.state === "closed" ? true : filters.state === "all" ? undefined : false,
    labelIds: labels.map(Number),
    milestoneId: milestone > 0 ? milestone : undefined,
    posterId,
    baseBranch: filters.base_branch || undefined,
    sort: filters.sort,
    ...window,
  });
}

/** GET /pulls/{base}/{head}: the pull from `head` (`branch` or `owner:branch`) into `base`. */
export async function getPullByBaseHead(
  database: ForgeDatabase,
  context: RepositoryContext,
  baseBranch: string,
  head: string,
  viewer: AccountRow | undefined,
): Promise<PullInContext> {
  if (accessTo(context.permission, "repo.pulls") < ACCESS_READ) throw new NotFound();
  const target = await resolveHead(database, context, head, viewer);
  const pull = await findPullByTargets(database.db, {
    baseRepoId: context.repository.id,
    baseBranch,
    headRepoId: target.context.repository.id,
    headBranch: target.branch,
  });
  const issue = pull && (await findIssueOfPull(database.db, pull));
  if (!pull || !issue) throw new NotFound("pull request does not exist");
  return { issue, pull };
}

export interface PullEdit {
  title?: string;
  body?: string;
  base?: string;
  assignee?: string;
  assignees?: string[];
  milestone?: number;
  labels?: number[];
  state?: string;
  due_date?: string;
  unset_due_date?: boolean;
  allow_maintainer_edit?: boolean;
}

/**
 * PATCH /pulls/{index}, as Gitea edits a pull: its poster or a writer of pulls; the issue side
 * through the issue edit (a merged pull's state is fixed: 412), then labels (writers), the base
 * branch (404 when it does not exist, 409 when an open pull of the same head already targets
 * it) and allow_maintainer_edit (its poster only).
 */
export async function editPull(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  found: PullInContext,
  edit: PullEdit,
  rootUrl: URL,
): Promise<void> {
  const { issue, pull } = found;
  const writer = accessTo(context.permission, "repo.pulls") >= ACCESS_WRITE;
  if (!writer && issue.poster_id !== doer.id) throw new Forbidden("");
  const merged = readBool(pull.has_merged);
  if (edit.state !== undefined && merged)
    throw new PreconditionFailed("cannot change state of this pull request, it was already merged");
  if (edit.allow_maintainer_edit !== undefined && issue.poster_id !== doer.id)
    throw new Forbidden("SetAllowEdits: no permission");
  // Reopened, a pull must not join the branches of another open pull, and is checked again.
  const reopen = edit.state === "open" && readBool(issue.is_closed);
  if (reopen && pull.head_repo_id !== null) {
    const other = await findOpenPull(database.db, {
      baseRepoId: pull.base_repo_id,
      baseBranch: pull.base_branch,
      headRepoId: pull.head_repo_id,
      headBranch: pull.head_branch,
    });
    if (other) throw alreadyExists(other);
  }
  const basePath = pathOf(storage, context);
  const newBase =
    !merged && edit.base !== undefined && edit.base !== "" && edit.base !== pull.base_branch
      ? edit.base
      : undefined;
  let newMergeBase: string | undefined;
  if (newBase !== undefined) {
    const branch = isBranchName(newBase) ? await getBranch(basePath, newBase) : undefined;
    if (!branch) throw new NotFound(`new base '${newBase}' not exist`);
    if (readBool(issue.is_closed)) throw new Invalid(`issue is closed [id: ${issue.id}]`);
    const clash = await findOpenPull(database.db, {
      baseRepoId: pull.base_repo_id,
      baseBranch: newBase,
      headRepoId: pull.head_repo_id ?? 0,
      headBranch: pull.head_branch,
    });
    if (clash) throw alreadyExists(clash);
    newMergeBase = await mergeBase(basePath, branch.commit.id, pull.head_commit_id);
  }
  await editIssue(
    database,
    context,
    doer,
    issue,
    {
      title: edit.title,
      body: edit.body,
      assignee: edit.assignee,
      assignees: edit.assignees,
      // Gitea's pull edit leaves the milestone for 0.
      milestone: edit.milestone ? edit.milestone : undefined,
      state: edit.state,
      due_date: edit.due_date,
      unset_due_date: edit.unset_due_date,
    },
    rootUrl,
  );
  if (reopen) await recheckPull(database, pull);
  if (writer && edit.labels !== undefined)
    await changeIssueLabels(
      database,
      context,
      doer,
      issue,
      { kind: "replace", labels: edit.labels },
      rootUrl,
    );
  if (newBase !== undefined || edit.allow_maintainer_edit !== undefined) {
    const now = toStoredTime(new Date(), database.dialect);
    await database.db.transaction().execute(async (trx) => {
      const current = await lockPull(trx, database.dialect, pull.id);
      if (!current || readBool(current.has_merged)) throw new Conflict("pull request has been merged");
      const changed = await updatePullRow(trx, pull.id, {
        ...(newBase !== undefined
          ? {
              base_branch: newBase,
              merge_base: newMergeBase ?? "",
              status: "checking",
              check_version: current.check_version + 1,
            }
          : {}),
        ...(edit.allow_maintainer_edit !== undefined
          ? { allow_maintainer_edit: edit.allow_maintainer_edit }
          : {}),
      });
      if (newBase !== undefined) {
        const row = await updateIssueRow(trx, issue.id, { updated_at: now });
        await queuePullEvent(trx, doer, row, "pull_request", "edited", {
          changes: { ref: { from: pull.base_branch } },
        });
      }
      return changed;
    });
    if (newBase !== undefined) wakePullChecker();
  }
}

/** The commit a pull's changes are measured from: where its head left the base (merged: as it was). */
async function comparison(storage: Storage, context: RepositoryContext, found: PullInContext) {
  const path = pathOf(storage, context);
  const head = (await resolveCommit(path, pullHeadRef(found.issue.number))) ?? found.pull.head_commit_id;
  let from = found.pull.merge_base;
  if (!readBool(found.pull.has_merged)) {
    const baseTip = await resolveCommit(path, `refs/heads/${found.pull.base_branch}`);
    if (baseTip) from = (await mergeBase(path, baseTip, head)) ?? from;
  }
  if (!from || !head) throw new NotFound("pull request has no commits to compare");
  return { path, from, head };
}

/** Raw diffs are bounded as a push's are: a larger one is refused rather than cut. */
const MAX_DIFF_BYTES = 32 * 1024 * 1024;

/** GET /pulls/{index}.diff or .patch. */
export async function pullDiff(
  storage: Storage,
  context: RepositoryContext,
  found: PullInContext,
  patch: boolean,
): Promise<string> {
  const { path, from, head } = await comparison(storage, context, found);
  return diffText(path, from, head, patch, MAX_DIFF_BYTES);
}

/** GET /pulls/{index}/commits: the pull's commits, newest first as git log lists them, and how many. */
export async function pullCommits(
  storage: Storage,
  context: RepositoryContext,
  found: PullInContext,
  window: { offset: number; limit: number },
): Promise<{ rows: Commit[]; total: number }> {
  const { path, from, head } = await comparison(storage, context, found);
  const ids = (await commitsBetween(path, from, head)).reverse();
  if (ids.length > MAX_PULL_COMMITS) throw new Invalid(`a pull of more than ${MAX_PULL_COMMITS} commits`);
  const page = ids.slice(window.offset, window.offset + window.limit);
  const commits = await readCommits(path, page);
  return { rows: page.flatMap((id) => commits.get(id) ?? []), total: ids.length };
}

/** GET /pulls/{index}/files: the files the pull changes, from where it left the base to its head. */
export async function pullFiles(
  storage: Storage,
  context: RepositoryContext,
  found: PullInContext,
  window: { offset: number; limit: number },
): Promise<{ rows: FileChange[]; total: number }> {
  const { path, from, head } = await comparison(storage, context, found);
  const files = await changedFiles(path, from, head);
  return { rows: files.slice(window.offset, window.offset + window.limit), total: files.length };
}

/** Marks a pull for a check (a view of it, as Gitea's StartPullRequestCheckOnView, when a check was lost). */
export async function recheckPull(database: ForgeDatabase, pull: PullRow): Promise<void> {
  await markPullForCheck(database.db, pull.id);
  wakePullChecker();
}
