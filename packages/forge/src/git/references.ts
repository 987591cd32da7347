import { isBranchName } from "./ref-name.ts";
import { runGit } from "./run.ts";

/** A ref and the object it points at (a tag object for an annotated tag). */
export interface Reference {
  /** The full name: refs/heads/main, refs/tags/v1, refs/notes/commits. */
  name: string;
  id: string;
  /** commit, tag, tree or blob. */
  type: string;
}

// The API has no paging here; a repository whose refs list past this is refused rather than held.
const MAX_LIST_BYTES = 64 * 1024 * 1024;

/** The folder part of a prefix as a for-each-ref pattern, which matches by whole path segments. */
function folderPattern(prefix: string): string[] {
  const folder = prefix.slice(0, prefix.lastIndexOf("/") + 1);
  // A folder no ref could be in (a glob, a control character) stays out of git's arguments, where
  // the prefix matches nothing anyway (and a NUL could not even be passed).
  return folder.startsWith("refs/") && isBranchName(folder.slice(0, -1)) ? [folder] : [];
}

/**
 * Every ref whose full name starts with `prefix` (as text, not by path segment, as Gitea matches
 * it), sorted by name. The prefix never reaches git: it filters git's list here.
 */
export async function listReferences(repoPath: string, prefix: string): Promise<Reference[]> {
  // Ref names hold no NUL or newline (git check-ref-format).
  const { stdout } = await runGit(
    [
      `--git-dir=${repoPath}`,
      "for-each-ref",
      "--format=%(objectname)%00%(objecttype)%00%(refname)",
      ...folderPattern(prefix),
    ],
    { maxOutputBytes: MAX_LIST_BYTES },
  );
  const references: Reference[] = [];
  for (const line of stdout.split("\n")) {
    if (line === "") continue;
    const [id, type, name] = line.split("\0");
    if (name.startsWith(prefix)) references.push({ name, id, type });
  }
  return references;
}
