import { type GitProcess, spawnGit } from "./process.ts";

/** The archive formats Gitea serves, by the suffix that asks for them. */
export const ARCHIVE_FORMATS = { ".zip": "zip", ".tar.gz": "tar.gz" } as const;

export type ArchiveFormat = (typeof ARCHIVE_FORMATS)[keyof typeof ARCHIVE_FORMATS];

/**
 * Starts `git archive` of `commit`'s tree, every path under `prefix` (Gitea: `<repo>/`); its stdout
 * is the archive as git writes it, never held whole. tar.gz is compressed by git's own gzip.
 */
export function startArchive(
  repoPath: string,
  commit: string,
  format: ArchiveFormat,
  prefix: string,
): GitProcess {
  const git = spawnGit([
    `--git-dir=${repoPath}`,
    "archive",
    `--format=${format}`,
    `--prefix=${prefix}`,
    "--end-of-options",
    commit,
  ]);
  git.stdin.end();
  return git;
}
