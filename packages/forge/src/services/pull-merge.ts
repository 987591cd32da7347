import { Conflict, Invalid, NotFound, readBool, signalQueuedDeliveries, toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import { isWorkInProgress } from "../convert/pull.ts";
import { NotAllowed } from "../errors.ts";
import {
  type CommitIdentity,
  commitTree,
  fetchRef,
  gitDate,
  isAncestor,
  isCommitId,
  mergeBase,
  moveRef,
  readCommits,
  replayCommits,
  resolveCommit,
  setRef,
  ZERO_ID,
} from "../git/index.ts";
import { type AccountRow, findAccountById } from "../repositories/accounts.ts";
import { EVENT } from "../repositories/issue-events.ts";
import { findIssueByNumber, type IssueRow, lockIssue } from "../repositories/issues.ts";
import {
  claimMerge,
  findPullById,
  headInUse,
  lockPull,
  markPullsForCheck,
  PULL_STATUS,
  type PullRow,
  releaseMerge,
  updatePullRow,
} from "../repositories/pulls.ts";
import { findRepositoryById } from "../repositories/repos.ts";
import { hooksHearing } from "../repositories/webhooks.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import { ACCESS_ADMIN, ACCESS_WRITE, accessTo, repositoryPermission } from "./access.ts";
import { type ForgeDatabase, isAdmin } from "./accounts.ts";
import { protectionFor } from "./branch-protection.ts";
import { changeState, type IssueAudience } from "./issues.ts";
import { checkPull, mergedTree, wakePullChecker } from "./pull-check.ts";
import { pathOf } from "./pull-views.ts";
import { type PullInContext, pullHeadRef } from "./pulls.ts";
import { announceRefChanges, type RepositoryContext, type Storage } from "./repositories.ts";
import { mayMergeInto, protectionRefusal } from "./reviews.ts";
import { queueRepositoryEvent, type RepositoryEvent } from "./webhook-events.ts";
import { pushEvents } from "./webhook-push.ts";

// Merging a pull in the bare base repository, without a work tree: the new base tip is made with
// merge-tree and commit-tree (rebase replays each commit the same way), and the base branch is
// moved with update-ref from the tip the merge was made on, so a push that moved it meanwhile makes
// the merge fail cleanly. One merge of a pull at a time: the pull is claimed in the database first.

export type MergeStyle =
  | "merge"
  | "rebase"
  | "rebase-merge"
  | "squash"
  | "fast-forward-only"
  | "manually-merged";

export interface MergeOptions {
  Do: MergeStyle;
  MergeTitleField?: string;
  MergeMessageField?: string;
  MergeCommitID?: string;
  delete_branch_after_merge?: boolean;
  head_commit_id?: string;
  force_merge?: boolean;
  merge_when_checks_succeed?: boolean;
}

/** Merge messages are bounded as issue bodies are. */
const MAX_MESSAGE = 65_536;

/** Gitea's default merge message (its title line), per style; `from` names the head. */
function defaultMessage(style: MergeStyle, issue: IssueRow, pull: PullRow, from: string): string {
  if (style === "squash") return `${issue.title} (#${issue.number})`;
  return `Merge pull request '${issue.title}' (#${issue.number}) from ${from} into ${pull.base_branch}`;
}

function signature(account: AccountRow, date: Date): CommitIdentity {
  return { name: account.full_name || account.name, email: account.email, date: gitDate(date) };
}

// Gitea's closing keywords (IssueCloseKeywords) before a reference to an issue of the same repository.
const CLOSING = /(?:^|[\s(])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s+#(\d{1,9})\b/gi;

/** The numbers of the issues a pull's title and body say it closes. */
export function closingReferences(text: string): number[] {
  return [...new Set([...text.matchAll(CLOSING)].map((match) => Number(match[1])))];
}

/**
 * Claims the pull for this merge (see claimMerge); a pull marked meanwhile (a push) is read again
 * and claimed if it still may be. 405 when it is merged, or is being checked or merged now.
 */
async function claim(database: ForgeDatabase, pull: PullRow, statuses: readonly string[]): Promise<PullRow> {
  let current: PullRow | undefined = pull;
  for (let attempt = 0; attempt < 3 && current; attempt++) {
    if (readBool(current.has_merged)) throw new NotAllowed("");
    if (!statuses.includes(current.status)) break;
    if (await claimMerge(database.db, current, statuses)) return current;
    current = await findPullById(database.db, pull.id);
  }
  if (current && readBool(current.has_merged)) throw new NotAllowed("");
  throw new NotAllowed("Please try again later");
}

/** Why the pull cannot be merged by `doer` now, in Gitea's words and statuses; nothing when it can. */
async function checkMergeable(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  found: PullInContext,
  options: MergeOptions,
): Promise<void> {
  const { issue, pull } = found;
  if (readBool(pull.has_merged)) throw new NotAllowed("");
  if (readBool(issue.is_closed)) throw new NotFound("pull request is closed");
  if (!(await mayMergeInto(database, context, doer, pull.base_branch)))
    throw new NotAllowed("User not allowed to merge PR");
  if (options.Do === "manually-merged") return;
  if (isWorkInProgress(issue.title)) throw new NotAllowed("Work in progress PRs cannot be merged");
  if (pull.status === PULL_STATUS.conflict)
    throw new Conflict(
      `merge conflict in ${JSON.parse(pull.conflicted_files).join(", ") || "the pull request"}`,
    );
  if (pull.status !== PULL_STATUS.mergeable && pull.status !== PULL_STATUS.empty)
    throw new NotAllowed("Please try again later");
  const refusal = await protectionRefusal(database, context, doer, issue, pull, options.force_merge === true);
  if (refusal) throw new NotAllowed(refusal);
}

/**
 * POST /pulls/{index}/merge: merges the pull in the style asked for, or records a merge made
 * outside (manually-merged). After the base branch moved, in one transaction: the pull is merged,
 * its issue closed (counters, event, `closed` webhook with merged set), the issues its title and body
 * close are closed, and the base's push webhook is queued. The head branch is deleted afterwards
 * when asked and nothing else uses it.
 */
export async function mergePull(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  found: PullInContext,
  options: MergeOptions,
  rootUrl: URL,
): Promise<void> {
  const style = options.Do || "merge";
  // A pull still waiting for its check (one just opened or pushed to) is checked here rather than
  // sent away with 405: the check is the merge's own first step anyway.
  if (found.pull.status === PULL_STATUS.checking && style !== "manually-merged") {
    // One that cannot be checked stays `checking`, and the merge answers 405 below.
    await checkPull(database, storage, found.pull).catch(() => false);
    const checked = await findPullById(database.db, found.pull.id);
    if (checked) found = { ...found, pull: checked };
  }
  await checkMergeable(database, context, doer, found, options);
  if (
    options.MergeCommitID !== undefined &&
    options.MergeCommitID !== "" &&
    !isCommitId(options.MergeCommitID)
  )
    throw new Invalid("[MergeCommitID]: invalid commit id");
  const manual = style === "manually-merged";
  const claimable = manual
    ? [
        PULL_STATUS.mergeable,
        PULL_STATUS.empty,
        PULL_STATUS.conflict,
        PULL_STATUS.checking,
        PULL_STATUS.error,
      ]
    : [PULL_STATUS.mergeable, PULL_STATUS.empty];
  const claimed = await claim(database, found.pull, claimable);
  let released = false;
  // A merge that failed on what a check would see differently (a head or base that moved) has the
  // pull checked again; any other failure leaves it as it was.
  let recheck = false;
  const release = async () => {
    if (released) return;
    released = true;
    await releaseMerge(database.db, claimed, recheck);
    if (recheck) wakePullChecker();
  };
  try {
    const basePath = pathOf(storage, context);
    const baseRef = `refs/heads/${found.pull.base_branch}`;
    const baseTip = await resolveCommit(basePath, baseRef);
    if (baseTip === undefined) throw new Conflict("base branch does not exist");
    const { id: head, label } = await currentHead(database, storage, context, found).catch((error) => {
      recheck = true;
      throw error;
    });
    if (options.head_commit_id && options.head_commit_id !== head) throw new Conflict("head out of date");
    if (
      !manual &&
      (await behindRefused(database, context, doer, found.pull, baseTip, head, basePath, options))
    )
      throw new NotAllowed("not allowed to merge [reason: The head branch is behind the base branch]");
    const now = new Date();
    // Recorded with the merge. A pull claimed as checked keeps the merge base its check found: a
    // base that moved since has it checked again (and claimed as such no longer), and moving
    // forward rarely changes a merge base anyway. Otherwise git is asked while the merge is made.
    const checked =
      claimed.merge_base !== "" &&
      (claimed.status === PULL_STATUS.mergeable || claimed.status === PULL_STATUS.empty);
    const base = checked ? Promise.resolve(claimed.merge_base) : mergeBase(basePath, baseTip, head);
    base.catch(() => undefined);
    let tip: string;
    let mergedCommit: string;
    if (manual) {
      const commit = options.MergeCommitID ?? "";
      if (!isCommitId(commit) || !(await readCommits(basePath, [commit]).catch(() => new Map())).has(commit))
        throw new Conflict("Wrong commit ID");
      if (!(await isAncestor(basePath, commit, baseTip)) || !(await isAncestor(basePath, head, commit)))
        throw new Conflict("Wrong commit ID");
      tip = baseTip;
      mergedCommit = commit;
    } else {
      const poster = await findAccountById(database.db, found.issue.poster_id);
      tip = await mergedTip(basePath, style, baseTip, { id: head, label }, doer, found, options, now, poster);
      mergedCommit = tip;
    }
    // The claim on the base branch: it moves only from the tip the merge was made on.
    if (tip !== baseTip && !(await moveRef(basePath, baseRef, tip, baseTip))) {
      recheck = true;
      throw new Conflict("merge push out of date");
    }
    // The base's push webhook is queued with the merge's rows; made only when some hook hears it.
    const heard = (await hooksHearing(database.db, context.repository.id, context.owner.id)).length > 0;
    const events =
      tip === baseTip || !heard
        ? []
        : await pushEvents(database.db, basePath, context.repository, context.owner, doer, {
            before: new Map([[baseRef, baseTip]]),
            after: new Map([[baseRef, tip]]),
          });
    try {
      await recordMerge(database, context, doer, found, {
        mergedCommit,
        mergeBase: (await base) ?? found.pull.merge_base,
        head,
        manual,
        events,
        rootUrl,
        at: now,
      });
      released = true;
    } catch (error) {
      // The rows did not change: the base branch goes back to where it was.
      if (tip !== baseTip) await moveRef(basePath, baseRef, baseTip, tip);
      throw error;
    }
    signalQueuedDeliveries();
  } finally {
    await release();
  }
  await markPullsForCheck(database.db, context.repository.id, [found.pull.base_branch]);
  wakePullChecker();
  if (options.delete_branch_after_merge && !manual)
    await deleteHeadBranch(database, storage, context, doer, found);
}

/**
 * The head to merge: the head branch's tip, which must be the one the pull was checked at (a head
 * pushed since is checked again first: 405); once the branch is gone, the head the pull kept.
 */
async function currentHead(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  found: PullInContext,
): Promise<{ id: string; label: string }> {
  const basePath = pathOf(storage, context);
  const kept = await resolveCommit(basePath, pullHeadRef(found.issue.number));
  let label = found.pull.head_branch;
  const branchRef = `refs/heads/${found.pull.head_branch}`;
  let tip = kept;
  let headPath: string | undefined;
  if (found.pull.head_repo_id === context.repository.id) headPath = basePath;
  else if (found.pull.head_repo_id !== null) {
    const repository = await findRepositoryById(database.db, found.pull.head_repo_id);
    const owner = repository && (await findAccountById(database.db, repository.owner_id));
    if (repository && owner) {
      headPath = pathOf(storage, { repository, owner });
      label = `${owner.name}/${repository.name}:${found.pull.head_branch}`;
    }
  }
  if (headPath !== undefined) tip = (await resolveCommit(headPath, branchRef)) ?? kept;
  if (tip === undefined) throw new Conflict("head branch does not exist");
  if (tip !== found.pull.head_commit_id) throw new NotAllowed("Please try again later");
  if (tip !== kept) {
    if (headPath === basePath || headPath === undefined)
      await setRef(basePath, pullHeadRef(found.issue.number), tip);
    else await fetchRef(basePath, headPath, branchRef, pullHeadRef(found.issue.number));
  }
  return { id: tip, label };
}

/** Whether the base's protection blocks an outdated head (block_on_outdated_branch) and the head lacks the base's tip. */
async function behindRefused(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  pull: PullRow,
  baseTip: string,
  head: string,
  path: string,
  options: MergeOptions,
): Promise<boolean> {
  const rule = await protectionFor(database.db, context.repository.id, pull.base_branch);
  if (!rule || !readBool(rule.block_on_outdated_branch)) return false;
  const admin = context.permission.mode >= ACCESS_ADMIN || isAdmin(doer);
  if (options.force_merge && admin && !readBool(rule.block_admin_merge_override)) return false;
  return !(await isAncestor(path, baseTip, head));
}

/** Makes the commits of the merge and answers the base's new tip; a conflict is a 409 and moves nothing. */
async function mergedTip(
  path: string,
  style: MergeStyle,
  baseTip: string,
  headCommit: { id: string; label: string },
  doer: AccountRow,
  found: PullInContext,
  options: MergeOptions,
  now: Date,
  poster: AccountRow | undefined,
): Promise<string> {
  const head = headCommit.id;
  const title =
    options.MergeTitleField?.trim() || defaultMessage(style, found.issue, found.pull, headCommit.label);
  const extra = options.MergeMessageField?.trim() ?? "";
  const message = `${extra ? `${title}\n\n${extra}` : title}\n`;
  if (message.length > MAX_MESSAGE) throw new Invalid("[MergeMessageField]: MaxSize");
  const committer = signature(doer, now);
  const conflict = (paths: string[]) =>
    new Conflict(`merge conflict in ${paths.length > 0 ? paths.join(", ") : "the pull request"}`);
  switch (style) {
    case "fast-forward-only":
      if (!(await isAncestor(path, baseTip, head)))
        throw new Conflict("the base branch has diverged: not a fast-forward");
      return head;
    case "rebase": {
      if (await isAncestor(path, baseTip, head)) return head;
      const replayed = await replayCommits(path, baseTip, head, committer);
      if (replayed.tip === undefined) throw conflict(replayed.conflicts);
      return replayed.tip;
    }
    case "rebase-merge": {
      let rebased = head;
      if (!(await isAncestor(path, baseTip, head))) {
        const replayed = await replayCommits(path, baseTip, head, committer);
        if (replayed.tip === undefined) throw conflict(replayed.conflicts);
        rebased = replayed.tip;
      }
      const tree = (await readCommits(path, [rebased])).get(rebased)?.tree as string;
      return commitTree(path, tree, [baseTip, rebased], message, committer, committer);
    }
    case "squash": {
      const merged = await mergedTree(path, baseTip, head);
      if (merged.tree === undefined) throw conflict(merged.conflicts);
      // The squashed commit is the poster's, as in Gitea.
      const author = poster ? signature(poster, now) : committer;
      return commitTree(path, merged.tree, [baseTip], message, author, committer);
    }
    default: {
      const merged = await mergedTree(path, baseTip, head);
      if (merged.tree === undefined) throw conflict(merged.conflicts);
      return commitTree(path, merged.tree, [baseTip, head], message, committer, committer);
    }
  }
}

interface MergeRecord {
  mergedCommit: string;
  mergeBase: string;
  head: string;
  manual: boolean;
  events: RepositoryEvent[];
  rootUrl: URL;
  at: Date;
}

async function recordMerge(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  found: PullInContext,
  record: MergeRecord,
): Promise<void> {
  const now = toStoredTime(record.at, database.dialect);
  const audience: IssueAudience = { where: context, rootUrl: record.rootUrl };
  await database.db.transaction().execute(async (trx) => {
    const pull = await lockPull(trx, database.dialect, found.pull.id);
    if (!pull || readBool(pull.has_merged) || pull.status !== PULL_STATUS.merging) throw new NotAllowed("");
    await updatePullRow(trx, pull.id, {
      has_merged: true,
      merged_by_id: doer.id,
      merged_at: now,
      merge_commit_sha: record.mergedCommit,
      merge_base: record.mergeBase,
      head_commit_id: record.head,
      status: record.manual ? PULL_STATUS.manuallyMerged : PULL_STATUS.mergeable,
    });
    for (const event of record.events) await queueRepositoryEvent(trx, event);
    const issue = (await lockIssue(trx, database.dialect, found.issue.id)) ?? found.issue;
    await changeState(trx, audience, doer, issue, true, now, EVENT.mergePull);
    await closeReferencedIssues(trx, database, audience, doer, issue, now);
  });
}

/** Closes the open issues of the repository that the pull's title and body name after a closing keyword. */
async function closeReferencedIssues(
  trx: Kysely<ForgeTables>,
  database: ForgeDatabase,
  audience: IssueAudience,
  doer: AccountRow,
  pull: IssueRow,
  now: string | Date,
): Promise<void> {
  for (const number of closingReferences(`${pull.title}\n${pull.body}`).slice(0, 100)) {
    const target = await findIssueByNumber(trx, pull.repo_id, number);
    if (!target || readBool(target.is_pull) || readBool(target.is_closed)) continue;
    const locked = (await lockIssue(trx, database.dialect, target.id)) ?? target;
    await changeState(trx, audience, doer, locked, true, now);
  }
}

/**
 * Deletes a merged pull's head branch (same repository only) when no open pull still uses it and
 * it is not the default branch; only if it still points where it was merged from. Its `delete`
 * webhook follows.
 */
async function deleteHeadBranch(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  found: PullInContext,
): Promise<void> {
  const pull = await findPullById(database.db, found.pull.id);
  if (!pull || pull.head_repo_id === null) return;
  // A fork's branch goes too when the merger may write its code (Gitea's CanDeleteBranch).
  const head = await headContext(database, context, pull.head_repo_id, doer);
  if (!head || accessTo(head.permission, "repo.code") < ACCESS_WRITE) return;
  // Neither the default branch nor a protected one is deleted.
  if (pull.head_branch === head.repository.default_branch) return;
  if (await protectionFor(database.db, head.repository.id, pull.head_branch)) return;
  if (await headInUse(database.db, head.repository.id, pull.head_branch, pull.id)) return;
  const path = pathOf(storage, head);
  const ref = `refs/heads/${pull.head_branch}`;
  const tip = await resolveCommit(path, ref);
  if (tip === undefined || tip !== pull.head_commit_id) return;
  if (!(await moveRef(path, ref, ZERO_ID, tip))) return;
  await announceRefChanges(database, path, head, doer, new Map([[ref, tip]]), new Map());
}

/** The head repository of a pull as `doer` may reach it: the base's own context, or the fork's. */
async function headContext(
  database: ForgeDatabase,
  base: RepositoryContext,
  headRepoId: number,
  doer: AccountRow,
): Promise<RepositoryContext | undefined> {
  if (headRepoId === base.repository.id) return base;
  const repository = await findRepositoryById(database.db, headRepoId);
  const owner = repository && (await findAccountById(database.db, repository.owner_id));
  if (!repository || !owner) return undefined;
  return { repository, owner, permission: await repositoryPermission(database, repository, owner, doer) };
}

/** GET /pulls/{index}/merge: whether the pull is merged. */
export function isMerged(found: PullInContext): boolean {
  return readBool(found.pull.has_merged);
}
