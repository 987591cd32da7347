import { GitCommandError } from "./command-error.ts";
import { resolveObject } from "./objects.ts";
import { spawnGit } from "./process.ts";

/** One entry of a tree listing, as `git ls-tree -l` shows it. */
export interface TreeEntry {
  /** The path below the listed tree (a name, or a whole path when recursive). */
  path: string;
  /** Six octal digits: 100644, 100755, 120000, 040000, 160000. */
  mode: string;
  /** blob, tree or commit (a submodule). */
  type: string;
  id: string;
  /** Bytes of a blob; 0 for a tree or a submodule. */
  size: number;
}

export interface TreePage {
  /** The tree listed (a commit or tag named is peeled to its tree). */
  id: string;
  entries: TreeEntry[];
  /** Every entry of the listing, counted as it streams past. */
  total: number;
}

export interface TreeQuery {
  recursive: boolean;
  /** 1-based. */
  page: number;
  perPage: number;
}

export function parseEntry(record: string): TreeEntry {
  // <mode> SP <type> SP <id> SP+ <size> TAB <path>; the size is padded, and "-" for a tree.
  const tab = record.indexOf("\t");
  const [mode, type, id, size] = record.slice(0, tab).split(/ +/);
  return { path: record.slice(tab + 1), mode, type, id, size: size === "-" ? 0 : Number(size) };
}

/**
 * One page of the tree that `revision` names, in git's order, read from `git ls-tree` as it
 * streams: the entries before the page are skipped and those after it only counted, so a tree of
 * any size costs one page of memory. Undefined when `revision` names no tree.
 */
export async function listTreePage(
  repoPath: string,
  revision: string,
  query: TreeQuery,
): Promise<TreePage | undefined> {
  const id = await resolveObject(repoPath, revision, "tree");
  if (id === undefined) return undefined;
  const git = spawnGit([
    `--git-dir=${repoPath}`,
    "ls-tree",
    "-l",
    "-z",
    ...(query.recursive ? ["-r", "-t"] : []),
    id,
  ]);
  git.stdin.end();
  const first = (query.page - 1) * query.perPage;
  const end = first + query.perPage;
  const entries: TreeEntry[] = [];
  let total = 0;
  // Only the record being read is kept: paths hold no NUL, which ends each record.
  let partial: Buffer | undefined;
  try {
    for await (const chunk of git.stdout as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nul = chunk.indexOf(0, start); nul !== -1; nul = chunk.indexOf(0, start)) {
        if (total >= first && total < end) {
          const piece = chunk.subarray(start, nul);
          const record = partial ? Buffer.concat([partial, piece]) : piece;
          entries.push(parseEntry(record.toString("utf8")));
        }
        partial = undefined;
        total++;
        start = nul + 1;
      }
      if (start < chunk.length) {
        // Past the page, a record's bytes are not needed, only its end.
        if (total >= first && total < end) {
          const rest = chunk.subarray(start);
          partial = partial ? Buffer.concat([partial, rest]) : Buffer.from(rest);
        } else partial = undefined;
      }
    }
  } catch (error) {
    // Stopped early: git must not be left blocked on a pipe nobody reads.
    git.kill();
    throw error;
  }
  const exit = await git.exited;
  if (exit.code !== 0) throw new GitCommandError(git.args, exit);
  return { id, entries, total };
}
