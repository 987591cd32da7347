import { EventEmitter } from "node:events";
import { type Logger, readBool, signalQueuedDeliveries } from "@anvil/core";
import {
  fetchRef,
  isAncestor,
  mergeBase,
  mergeTrees,
  resolveCommit,
  setRef,
  type TreeMerge,
} from "../git/index.ts";
import { findAccountById } from "../repositories/accounts.ts";
import {
  findIssueOfPull,
  markStaleVerdicts,
  PULL_STATUS,
  type PullRow,
  pullsToCheck,
  releaseAllMergeClaims,
  writeCheckResult,
} from "../repositories/pulls.ts";
import { findRepositoryById } from "../repositories/repos.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { protectionFor } from "./branch-protection.ts";
import { KeptAnswers } from "./kept.ts";
import { queuePullEvent } from "./pull-events.ts";
import { pathOf, registerPullStorage } from "./pull-views.ts";
import type { Storage } from "./repositories.ts";

// What merging two commits gives never changes, and git wrote its tree into the repository: the
// check's clean merge is kept, so a merge of the checked pull (merge or squash) commits that tree
// rather than working the merge out again.
const cleanMerges = new KeptAnswers<TreeMerge>(64 * 1024, 256);

/** The merge of `head` into `base` (commit ids) in the repository at `path`, kept when clean. */
export async function mergedTree(path: string, base: string, head: string): Promise<TreeMerge> {
  const key = `${path}\0${base}\0${head}`;
  const kept = cleanMerges.get(key);
  if (kept) return kept;
  const merged = await mergeTrees(path, base, head);
  if (merged.tree !== undefined) cleanMerges.keep(key, merged, key.length + merged.tree.length);
  return merged;
}

// Whether each open pull can be merged is worked out here, in the background, never in a request:
// a pull is marked `checking` when it is opened and whenever a push moves its base or head branch
// (markPullsForCheck), and the checker merges the two tips in memory (merge-tree) and writes the
// result only if the pull was not marked again meanwhile. A moved head is also brought into
// refs/pull/N/head and announced as `synchronized`.

const wake = new EventEmitter();

/** Wakes this process's checkers: some pull was marked (others notice within their poll). */
export function wakePullChecker(): void {
  wake.emit("marked");
}

/** How often a checker looks for pulls marked by another process. */
const POLL_MS = 2_000;
const BATCH = 20;

export interface PullChecker {
  stop(): Promise<void>;
}

/** Checks one pull and writes the result; answers whether it was written. */
export async function checkPull(database: ForgeDatabase, storage: Storage, pull: PullRow): Promise<boolean> {
  const baseRepository = await findRepositoryById(database.db, pull.base_repo_id);
  const baseOwner = baseRepository && (await findAccountById(database.db, baseRepository.owner_id));
  const issue = await findIssueOfPull(database.db, pull);
  if (!baseRepository || !baseOwner || !issue) return false;
  const basePath = pathOf(storage, { repository: baseRepository, owner: baseOwner });
  const headRef = `refs/pull/${issue.number}/head`;
  // The head branch as it is now; once it is gone, the head the base repository kept.
  let head: string | undefined;
  const headRepository =
    pull.head_repo_id === null ? undefined : await findRepositoryById(database.db, pull.head_repo_id);
  const headOwner = headRepository && (await findAccountById(database.db, headRepository.owner_id));
  if (headRepository && headOwner) {
    const headPath = pathOf(storage, { repository: headRepository, owner: headOwner });
    const branchRef = `refs/heads/${pull.head_branch}`;
    head = await resolveCommit(headPath, branchRef);
    if (head !== undefined && head !== (await resolveCommit(basePath, headRef))) {
      if (headRepository.id === baseRepository.id) await setRef(basePath, headRef, head);
      else await fetchRef(basePath, headPath, branchRef, headRef);
    }
  }
  head ??= await resolveCommit(basePath, headRef);
  const base = await resolveCommit(basePath, `refs/heads/${pull.base_branch}`);
  let status: string;
  let conflicts: string[] = [];
  let commonBase = pull.merge_base;
  if (base === undefined || head === undefined) status = PULL_STATUS.error;
  else {
    commonBase = (await mergeBase(basePath, base, head)) ?? "";
    if (await isAncestor(basePath, head, base)) status = PULL_STATUS.empty;
    else {
      const merged = await mergedTree(basePath, base, head);
      status = merged.tree === undefined ? PULL_STATUS.conflict : PULL_STATUS.mergeable;
      conflicts = merged.conflicts;
    }
  }
  const moved = head !== undefined && head !== pull.head_commit_id;
  const written = await database.db.transaction().execute(async (trx) => {
    const ok = await writeCheckResult(trx, pull, {
      status,
      conflicted_files: JSON.stringify(conflicts.slice(0, 100)),
      merge_base: commonBase,
      ...(moved ? { head_commit_id: head } : {}),
    });
    if (ok && moved) {
      const rule = await protectionFor(trx, baseRepository.id, pull.base_branch);
      await markStaleVerdicts(
        trx,
        issue.id,
        head as string,
        readBool(rule?.dismiss_stale_approvals ?? false),
      );
      // The pusher, as Gitea sends it; a head moved otherwise (a pull checked after a restart) by its repository's owner.
      const pusher =
        (pull.pusher_id !== null ? await findAccountById(trx, pull.pusher_id) : undefined) ??
        (headRepository && (await findAccountById(trx, headRepository.owner_id))) ??
        baseOwner;
      await queuePullEvent(trx, pusher, issue, "pull_request_sync", "synchronized");
    }
    return ok;
  });
  if (written && moved) signalQueuedDeliveries();
  return written;
}

/**
 * Starts the checker of one forge process: it checks the marked pulls in turns, when woken and
 * every POLL_MS; a claim a stopped process left mid-merge is given back first (and the check sees
 * whether that merge landed).
 */
export function startPullChecker(database: ForgeDatabase, storage: Storage, logger: Logger): PullChecker {
  registerPullStorage(database.db, storage);
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  const failed = new Set<number>();
  const round = async () => {
    do {
      again = false;
      const pulls = (await pullsToCheck(database.db, BATCH + failed.size)).filter(
        (pull) => !failed.has(pull.id),
      );
      for (const pull of pulls.slice(0, BATCH)) {
        if (stopped) return;
        try {
          await checkPull(database, storage, pull);
        } catch (error) {
          // A pull that cannot be checked (its repository gone from disk) is marked so, not tried
          // in a loop; a push marks it for a check again.
          logger.warn({ err: error, pull: pull.id }, "pull request check failed");
          const marked = await writeCheckResult(database.db, pull, { status: PULL_STATUS.error }).catch(
            () => false,
          );
          if (!marked) failed.add(pull.id);
        }
      }
      if (pulls.length > BATCH) again = true;
    } while (again && !stopped);
  };
  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round()
      .catch((error) => logger.warn({ err: error }, "pull request checks failed"))
      .finally(() => {
        running = undefined;
      });
  };
  const onMarked = () => run();
  wake.on("marked", onMarked);
  const timer = setInterval(() => {
    failed.clear();
    run();
  }, POLL_MS);
  timer.unref();
  releaseAllMergeClaims(database.db)
    .then(run)
    .catch((error) => logger.warn({ err: error }, "pull request claims were not released"));
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      wake.off("marked", onMarked);
      await running;
    },
  };
}
