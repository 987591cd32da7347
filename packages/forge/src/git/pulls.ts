import { Conflict } from "@anvil/core";
import { readCommits } from "./commit.ts";
import { ZERO_ID } from "./ref-updates.ts";
import { runGit } from "./run.ts";

// The git side of pull requests, on the bare base repository only, with plumbing (no work tree):
// merges are computed by `merge-tree --write-tree`, commits made by `commit-tree`, and every ref
// moved by `update-ref <ref> <new> <old>`, which fails when the ref moved meanwhile.

const SHA = /^[0-9a-f]{40}$/;

export function isCommitId(value: string): boolean {
  return SHA.test(value);
}

const gitDir = (repoPath: string) => `--git-dir=${repoPath}`;

/** The best common ancestor of two commits, or undefined for unrelated histories. */
export async function mergeBase(repoPath: string, a: string, b: string): Promise<string | undefined> {
  const { stdout, exitCode } = await runGit([gitDir(repoPath), "merge-base", "--end-of-options", a, b], {
    acceptExitCodes: [1],
  });
  return exitCode === 0 ? stdout.trim() : undefined;
}

/** Whether `ancestor` is `descendant` or one of its ancestors. */
export async function isAncestor(repoPath: string, ancestor: string, descendant: string): Promise<boolean> {
  const { exitCode } = await runGit(
    [gitDir(repoPath), "merge-base", "--is-ancestor", "--end-of-options", ancestor, descendant],
    { acceptExitCodes: [1] },
  );
  return exitCode === 0;
}

export type TreeMerge = { tree: string; conflicts: [] } | { tree: undefined; conflicts: string[] };

/**
 * The tree of merging `theirs` into `ours` (their merge base found by git), or the paths that
 * conflict; unrelated histories count as a conflict of no path.
 */
export async function mergeTrees(repoPath: string, ours: string, theirs: string): Promise<TreeMerge> {
  const { stdout, exitCode } = await runGit(
    [gitDir(repoPath), "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs],
    { acceptExitCodes: [1, 128], maxOutputBytes: 4 * 1024 * 1024 },
  );
  if (exitCode === 128) return { tree: undefined, conflicts: [] };
  const [tree, ...paths] = stdout.split("\0").filter((part) => part !== "");
  if (exitCode === 0) return { tree, conflicts: [] };
  return { tree: undefined, conflicts: [...new Set(paths)] };
}

export interface CommitIdentity {
  name: string;
  email: string;
  /** Anything git's date parser takes: `@seconds +0000`, or ISO 8601 as git printed it. */
  date: string;
}

const UNSAFE_IDENTITY = /[<>\n\0]/;

function identity(role: "AUTHOR" | "COMMITTER", who: CommitIdentity): Record<string, string> {
  // A name git would strip or refuse is replaced rather than allowed to end the header early.
  const clean = (value: string) => (UNSAFE_IDENTITY.test(value) ? value.replace(/[<>\n\0]/g, "") : value);
  return {
    [`GIT_${role}_NAME`]: clean(who.name),
    [`GIT_${role}_EMAIL`]: clean(who.email),
    [`GIT_${role}_DATE`]: who.date,
  };
}

/** `@seconds +0000` for a time: no format for git to misread. */
export function gitDate(date: Date): string {
  return `@${Math.floor(date.getTime() / 1000)} +0000`;
}

/** Writes a commit of `tree` with these parents and returns its id. */
export async function commitTree(
  repoPath: string,
  tree: string,
  parents: readonly string[],
  message: string,
  author: CommitIdentity,
  committer: CommitIdentity,
): Promise<string> {
  const { stdout } = await runGit(
    [gitDir(repoPath), "commit-tree", ...parents.flatMap((parent) => ["-p", parent]), tree],
    { input: message, env: { ...identity("AUTHOR", author), ...identity("COMMITTER", committer) } },
  );
  return stdout.trim();
}

/**
 * Moves `ref` from `old` (ZERO_ID: it must not exist) to `next` (ZERO_ID: deletes it); false when
 * the ref was not at `old`, so that a racing writer is noticed and nothing is overwritten.
 */
export async function moveRef(repoPath: string, ref: string, next: string, old: string): Promise<boolean> {
  const args =
    next === ZERO_ID
      ? [gitDir(repoPath), "update-ref", "-d", ref, old]
      : [gitDir(repoPath), "update-ref", ref, next, old === ZERO_ID ? "" : old];
  const { exitCode } = await runGit(args, { acceptExitCodes: [1, 128] });
  return exitCode === 0;
}

/** Points `ref` at `next` whatever it held (refs the forge alone keeps, such as refs/pull/N/head). */
export async function setRef(repoPath: string, ref: string, next: string): Promise<void> {
  await runGit([gitDir(repoPath), "update-ref", ref, next]);
}

/**
 * Brings `sourceRef` of another repository on this disk into `ref` of this one (a fork's head
 * into refs/pull/N/head); without `ref`, only its commits.
 */
export async function fetchRef(
  repoPath: string,
  sourcePath: string,
  sourceRef: string,
  ref?: string,
): Promise<void> {
  const refspec = ref === undefined ? sourceRef : `+${sourceRef}:${ref}`;
  await runGit([
    gitDir(repoPath),
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    "--",
    sourcePath,
    refspec,
  ]);
}

/** How many commits a pull may bring at most: more is refused rather than replayed or listed. */
export const MAX_PULL_COMMITS = 10_000;

/** The ids of the commits `head` has and `base` has not, oldest first; merges left out when asked. */
export async function commitsBetween(
  repoPath: string,
  base: string,
  head: string,
  options: { noMerges?: boolean } = {},
): Promise<string[]> {
  const { stdout } = await runGit([
    gitDir(repoPath),
    "rev-list",
    "--reverse",
    "--topo-order",
    ...(options.noMerges ? ["--no-merges"] : []),
    `--max-count=${MAX_PULL_COMMITS + 1}`,
    "--end-of-options",
    head,
    `^${base}`,
  ]);
  return stdout.split("\n").filter((line) => line !== "");
}

/**
 * Replays the commits `head` has over `onto` one by one, as `git rebase` does (merges dropped),
 * keeping each author and message; the committer is `committer`. Each step is a three-way merge
 * whose base is the replayed commit's parent: git 2.39's merge-tree takes no merge base, so a
 * throw-away commit of the current tree on that parent gives it exactly that one.
 * Answers the new tip, or the conflicting paths of the first commit that does not apply.
 */
export async function replayCommits(
  repoPath: string,
  onto: string,
  head: string,
  committer: CommitIdentity,
): Promise<{ tip: string; conflicts?: undefined } | { tip?: undefined; conflicts: string[] }> {
  const ids = await commitsBetween(repoPath, onto, head, { noMerges: true });
  if (ids.length > MAX_PULL_COMMITS) throw new Conflict(`more than ${MAX_PULL_COMMITS} commits to replay`);
  const commits = await readCommits(repoPath, ids);
  let tip = onto;
  let tipTree = (await readCommits(repoPath, [onto])).get(onto)?.tree as string;
  for (const id of ids) {
    const commit = commits.get(id);
    const parent = commit?.parents[0];
    // Only a root commit has no parent, and a pull's commits all descend from the merge base.
    if (!commit || parent === undefined) return { conflicts: [] };
    const parentTree = (await readCommits(repoPath, [parent])).get(parent)?.tree;
    let tree = commit.tree;
    if (parentTree !== tipTree) {
      const stand = await commitTree(repoPath, tipTree, [parent], "replay\n", committer, committer);
      const merged = await mergeTrees(repoPath, stand, id);
      if (merged.tree === undefined) return { conflicts: merged.conflicts };
      tree = merged.tree;
    }
    // A commit whose change is already there is dropped, as git rebase drops it.
    if (tree === tipTree) continue;
    tip = await commitTree(
      repoPath,
      tree,
      [tip],
      commit.message,
      { name: commit.author.name, email: commit.author.email, date: commit.author.date },
      committer,
    );
    tipTree = tree;
  }
  return { tip };
}

/** The repository's diff between two commits (`patch`: one mail per commit, as format-patch). */
export async function diffText(
  repoPath: string,
  from: string,
  to: string,
  patch: boolean,
  maxBytes: number,
): Promise<string> {
  const args = patch
    ? ["format-patch", "--stdout", "--binary", "--end-of-options", `${from}..${to}`]
    : ["diff", "--full-index", "--binary", "--end-of-options", from, to];
  const { stdout } = await runGit([gitDir(repoPath), ...args], { maxOutputBytes: maxBytes });
  return stdout;
}

export interface FileChange {
  filename: string;
  previous_filename: string;
  /** added, deleted, modified, renamed, copied (Gitea's words). */
  status: string;
  additions: number;
  deletions: number;
}

const STATUS_WORDS: Record<string, string> = {
  A: "added",
  D: "deleted",
  M: "modified",
  R: "renamed",
  C: "copied",
  T: "modified",
};

/** The files changed between two commits, with their line counts (binary files count 0). */
export async function changedFiles(repoPath: string, from: string, to: string): Promise<FileChange[]> {
  const options = { maxOutputBytes: 8 * 1024 * 1024 };
  const [status, numstat] = await Promise.all([
    runGit([gitDir(repoPath), "diff", "--name-status", "-M", "-z", "--end-of-options", from, to], options),
    runGit([gitDir(repoPath), "diff", "--numstat", "-M", "-z", "--end-of-options", from, to], options),
  ]);
  const files: FileChange[] = [];
  const fields = status.stdout.split("\0");
  for (let i = 0; i < fields.length && fields[i] !== ""; ) {
    const code = fields[i][0];
    if (code === "R" || code === "C") {
      files.push({
        filename: fields[i + 2],
        previous_filename: fields[i + 1],
        status: STATUS_WORDS[code],
        additions: 0,
        deletions: 0,
      });
      i += 3;
    } else {
      files.push({
        filename: fields[i + 1],
        previous_filename: "",
        status: STATUS_WORDS[code] ?? "modified",
        additions: 0,
        deletions: 0,
      });
      i += 2;
    }
  }
  // --numstat -z: "added\tdeleted\tpath\0", or "added\tdeleted\t\0old\0new\0" for a rename.
  const counts = numstat.stdout.split("\0");
  let file = 0;
  for (let i = 0; i < counts.length && counts[i] !== "" && file < files.length; file++) {
    const [added, deleted] = counts[i].split("\t");
    files[file].additions = Number(added) || 0;
    files[file].deletions = Number(deleted) || 0;
    i += counts[i].endsWith("\t") ? 3 : 1;
  }
  return files;
}
