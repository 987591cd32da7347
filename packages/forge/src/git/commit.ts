import { runGit } from "./run.ts";

/** Who made a commit, and when. */
export interface Signature {
  name: string;
  email: string;
  /** ISO 8601 with the signer's own UTC offset, as git recorded it (`2024-05-01T12:00:00+02:00`). */
  date: string;
}

export interface Commit {
  id: string;
  tree: string;
  /** First parent first; empty for a root commit. */
  parents: string[];
  /** The whole message, trailing newline included, as Gitea returns it. */
  message: string;
  author: Signature;
  committer: Signature;
}

// NUL separates the fields and, with -z, the commits: git refuses a NUL in a name, an email or a
// commit message, while newlines and every other character may appear in a message.
const FIELDS = ["%H", "%T", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%cI", "%B"];

/** `git log` arguments that print commits in the form parseCommitLog reads. */
export const COMMIT_LOG_FORMAT: readonly string[] = ["-z", `--format=${FIELDS.join("%x00")}`];

export function parseCommitLog(output: string): Commit[] {
  const tokens = output.split("\0");
  const commits: Commit[] = [];
  for (let i = 0; i + FIELDS.length <= tokens.length; i += FIELDS.length) {
    const [id, tree, parents, an, ae, ad, cn, ce, cd, message] = tokens.slice(i, i + FIELDS.length);
    commits.push({
      id,
      tree,
      parents: parents === "" ? [] : parents.split(" "),
      message,
      author: { name: an, email: ae, date: ad },
      committer: { name: cn, email: ce, date: cd },
    });
  }
  return commits;
}

/** The commits with these ids, by id; one `git log` for all of them. */
export async function readCommits(repoPath: string, ids: readonly string[]): Promise<Map<string, Commit>> {
  if (ids.length === 0) return new Map();
  const { stdout } = await runGit([
    `--git-dir=${repoPath}`,
    "log",
    "--no-walk=unsorted",
    ...COMMIT_LOG_FORMAT,
    "--end-of-options",
    ...ids,
  ]);
  return new Map(parseCommitLog(stdout).map((commit) => [commit.id, commit]));
}
