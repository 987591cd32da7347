import { runGit } from "./run.ts";

/** What a commit changed against its first parent (everything, for a root commit). */
export interface CommitChanges {
  additions: number;
  deletions: number;
  /** Each changed path with git's status letter (A, D, M, T…), in git's order. */
  files: { path: string; status: string }[];
}

// A page of commits that touch a great many files lists them all; past this much output the
// page is refused rather than held.
const MAX_CHANGES_BYTES = 64 * 1024 * 1024;

/**
 * The changes of each commit, by id, for a whole page in one `git log`: raw lines give each
 * path's status, numstat lines its added and deleted lines (a binary file counts none).
 */
export async function readCommitChanges(
  repoPath: string,
  ids: readonly string[],
): Promise<Map<string, CommitChanges>> {
  const changes = new Map<string, CommitChanges>();
  if (ids.length === 0) return changes;
  const { stdout } = await runGit(
    [
      `--git-dir=${repoPath}`,
      "log",
      "--no-walk=unsorted",
      "--format=%x01%H",
      "--raw",
      "--numstat",
      "-z",
      "--no-renames",
      "--no-abbrev",
      "--diff-merges=first-parent",
      "--end-of-options",
      ...ids,
    ],
    { maxOutputBytes: MAX_CHANGES_BYTES },
  );
  // -z ends every field with NUL: the commit line, each raw line and the path after it, each
  // numstat line (counts and path in one field). A path that follows a raw line is taken with it,
  // so no path is read as a line of its own.
  const fields = stdout.split("\0");
  let current: CommitChanges | undefined;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i].startsWith("\n") ? fields[i].slice(1) : fields[i];
    if (field.startsWith("\x01")) {
      current = { additions: 0, deletions: 0, files: [] };
      changes.set(field.slice(1), current);
      continue;
    }
    if (!current || field === "") continue;
    if (field.startsWith(":")) {
      current.files.push({ status: field.slice(field.lastIndexOf(" ") + 1), path: fields[++i] });
    } else {
      const [added, deleted] = field.split("\t", 2);
      current.additions += Number(added) || 0;
      current.deletions += Number(deleted) || 0;
    }
  }
  return changes;
}
