import type { Commit } from "./commit.ts";
import { type GitOutput, gitOutput } from "./git-output.ts";
import { spawnGit } from "./process.ts";

export type RawDiffType = "diff" | "patch";

/**
 * A commit's changes as text, streamed from git as it writes them (never held whole): a `diff`
 * against its first parent (`git show` of a root commit, with its header, as Gitea answers it),
 * or a `patch` as `git format-patch` mails it.
 */
export function rawDiff(repoPath: string, commit: Commit, type: RawDiffType): GitOutput {
  const gitDir = `--git-dir=${repoPath}`;
  const [parent] = commit.parents;
  const args =
    type === "patch"
      ? [gitDir, "format-patch", "--no-signature", "--stdout", "--root", "-1", commit.id]
      : parent === undefined
        ? [gitDir, "show", "--no-color", commit.id]
        : [gitDir, "diff", "--no-color", "-M", parent, commit.id];
  const git = spawnGit(args);
  git.stdin.end();
  return gitOutput(git, { abandoned: () => git.kill() });
}
