import { Conflict, Invalid, NotFound } from "@anvil/core";
import { COMMIT_LOG_FORMAT, type Commit, parseCommitLog, readCommits } from "./commit.ts";
import { type PageRequest, pageOffset } from "./paging.ts";
import { runGit } from "./run.ts";
import { isEmpty } from "./storage.ts";
import { commitsOf } from "./tree.ts";

/** Asking for the history of a repository that has none: Gitea answers 409 with this message. */
export class EmptyRepository extends Conflict {
  constructor() {
    super("Git Repository is empty.");
  }
}

export interface CommitQuery extends PageRequest {
  /** A branch, tag or commit id (anything `git rev-parse` resolves to a commit); HEAD by default. */
  ref?: string;
  /** Only commits that touch this path (taken literally, no pathspec magic). */
  path?: string;
  /** Only commits committed at or after this time. */
  since?: Date;
  /** Only commits committed at or before this time. */
  until?: Date;
  /** Leaves out the commits this revision reaches (git's `--not`). */
  not?: string;
}

export interface CommitPage {
  commits: Commit[];
  /** All commits that match, for X-Total-Count. */
  total: number;
}

/** A time as git's date parser reads it exactly: `2024-05-01 12:00:00 +0000`. */
function gitTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace("T", " ")} +0000`;
}

/**
 * The commit `ref` names, or undefined. Asked of the repository's kept `cat-file` process
 * (tree.ts's commitsOf), which takes names one a line: a merge reads several refs, and a process
 * each was most of its time.
 */
export async function resolveCommit(repoPath: string, ref: string): Promise<string | undefined> {
  if (ref === "" || ref.includes("\0") || ref.includes("\n")) return undefined;
  const [commit] = await commitsOf(repoPath, [ref]);
  return commit;
}

/** The commit `ref` names (a branch, tag or commit id), or undefined when it names none. */
export async function getCommit(repoPath: string, ref: string): Promise<Commit | undefined> {
  const id = await resolveCommit(repoPath, ref);
  return id === undefined ? undefined : (await readCommits(repoPath, [id])).get(id);
}

/**
 * One page of the history of `ref`, newest first as `git log` orders it, and the total count.
 * Throws EmptyRepository when the repository has no commits, NotFound when `ref` names none.
 */
export async function listCommits(repoPath: string, query: CommitQuery): Promise<CommitPage> {
  const offset = pageOffset(query);
  if (query.path?.includes("\0")) throw new Invalid("invalid path", { path: ["contains a NUL character"] });
  if (await isEmpty(repoPath)) throw new EmptyRepository();
  const ref = query.ref ?? "HEAD";
  const id = await resolveCommit(repoPath, ref);
  if (id === undefined) throw new NotFound(`commit does not exist [id: ${ref}]`);
  const excluded = query.not === undefined ? undefined : await resolveCommit(repoPath, query.not);
  if (query.not !== undefined && excluded === undefined)
    throw new NotFound(`commit does not exist [id: ${query.not}]`);
  const gitDir = [`--git-dir=${repoPath}`, "--literal-pathspecs"];
  const limits = [
    ...(query.since ? [`--since=${gitTime(query.since)}`] : []),
    ...(query.until ? [`--until=${gitTime(query.until)}`] : []),
  ];
  const revisions = [id, ...(excluded ? [`^${excluded}`] : []), "--", ...(query.path ? [query.path] : [])];
  const [count, log] = await Promise.all([
    runGit([...gitDir, "rev-list", "--count", ...limits, ...revisions]),
    runGit([
      ...gitDir,
      "log",
      ...COMMIT_LOG_FORMAT,
      ...limits,
      `--skip=${offset}`,
      `--max-count=${query.limit}`,
      ...revisions,
    ]),
  ]);
  return { commits: parseCommitLog(log.stdout), total: Number(count.stdout.trim()) };
}

export interface Comparison {
  /** What head has that base lacks, newest first, at most the limit asked for. */
  commits: Commit[];
  /** All of them. */
  total: number;
}

/**
 * The commits reachable from `head` and not from `base` (those since their merge base), as
 * Gitea's compare lists them; NotFound when either names no commit.
 */
export async function compareCommits(
  repoPath: string,
  base: string,
  head: string,
  limit: number,
): Promise<Comparison> {
  if (await isEmpty(repoPath)) throw new EmptyRepository();
  const [baseId, headId] = await Promise.all([resolveCommit(repoPath, base), resolveCommit(repoPath, head)]);
  if (baseId === undefined) throw new NotFound(`commit does not exist [id: ${base}]`);
  if (headId === undefined) throw new NotFound(`commit does not exist [id: ${head}]`);
  const gitDir = `--git-dir=${repoPath}`;
  const range = [headId, `^${baseId}`];
  const [count, log] = await Promise.all([
    runGit([gitDir, "rev-list", "--count", ...range]),
    runGit([gitDir, "log", ...COMMIT_LOG_FORMAT, `--max-count=${limit}`, ...range]),
  ]);
  return { commits: parseCommitLog(log.stdout), total: Number(count.stdout.trim()) };
}
