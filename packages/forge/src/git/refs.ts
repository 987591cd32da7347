import { COMMIT_LOG_FORMAT, type Commit, parseCommitLog } from "./commit.ts";
import { runGit } from "./run.ts";

// What a push changed, read from the repository itself: its branch and tag tips before and after
// (receive-pack's own commands stay inside git), and the commits and files a webhook lists.

/** Every branch and tag, by full ref name, with the object it points at. */
export async function refTips(repoPath: string): Promise<Map<string, string>> {
  // Ref names hold no NUL or newline (git check-ref-format).
  const { stdout } = await runGit([
    `--git-dir=${repoPath}`,
    "for-each-ref",
    "--format=%(objectname)%00%(refname)",
    "refs/heads/",
    "refs/tags/",
  ]);
  const tips = new Map<string, string>();
  for (const line of stdout.split("\n")) {
    if (line === "") continue;
    const [id, ref] = line.split("\0");
    tips.set(ref, id);
  }
  return tips;
}

/**
 * The commits a ref update brought, newest first, at most `limit` of them, and how many there are:
 * those reachable from `after` and not from `before`; for a new ref (no `before`), the last
 * `limit` commits of its history, as Gitea lists a new branch.
 */
export async function pushedCommits(
  repoPath: string,
  after: string,
  before: string | undefined,
  limit: number,
): Promise<{ commits: Commit[]; total: number }> {
  const range = before === undefined ? [after] : [after, `^${before}`];
  const gitDir = `--git-dir=${repoPath}`;
  const log = await runGit([
    gitDir,
    "log",
    ...COMMIT_LOG_FORMAT,
    `--max-count=${limit}`,
    "--end-of-options",
    ...range,
  ]);
  const commits = parseCommitLog(log.stdout);
  if (before === undefined || commits.length < limit) return { commits, total: commits.length };
  const count = await runGit([gitDir, "rev-list", "--count", "--end-of-options", ...range]);
  return { commits, total: Number(count.stdout.trim()) };
}

/** The paths a commit added, removed and modified against its first parent. */
export async function commitFileChanges(
  repoPath: string,
  id: string,
): Promise<{ added: string[]; removed: string[]; modified: string[] }> {
  const { stdout } = await runGit(
    [
      `--git-dir=${repoPath}`,
      "diff-tree",
      "-r",
      "--root",
      "--no-commit-id",
      "--no-renames",
      "--name-status",
      "-z",
      id,
    ],
    { maxOutputBytes: 1024 * 1024 },
  );
  const changes = { added: [] as string[], removed: [] as string[], modified: [] as string[] };
  const fields = stdout.split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [status, path] = [fields[i], fields[i + 1]];
    if (status === "A") changes.added.push(path);
    else if (status === "D") changes.removed.push(path);
    else changes.modified.push(path);
  }
  return changes;
}
