import { resolveCommit } from "./commits.ts";
import { checkBranchName } from "./ref-name.ts";
import { runGit } from "./run.ts";

// The tags releases stand on: read, made lightweight when a release is published on a tag that is
// not there yet, and taken back when the release's row could not be written.

/** Refuses, with Gitea's 422 shape, a tag name git would refuse or read as an option. */
export function checkTagName(name: string): void {
  checkBranchName(name, "TagName");
}

/** The commit the tag points at (through an annotated tag), or undefined when there is no such tag. */
export function tagCommit(repoPath: string, tag: string): Promise<string | undefined> {
  return resolveCommit(repoPath, `refs/tags/${tag}`);
}

/**
 * Creates the lightweight tag `tag` at `commit`, only if no tag of that name exists (git's
 * update-ref with an empty old value): answers false when one does, made meanwhile by someone else.
 */
export async function createTagOnce(repoPath: string, tag: string, commit: string): Promise<boolean> {
  checkTagName(tag);
  const { exitCode } = await runGit([`--git-dir=${repoPath}`, "update-ref", `refs/tags/${tag}`, commit, ""], {
    acceptExitCodes: [128],
  });
  return exitCode === 0;
}

/** Removes the tag if it still points at `commit` (undoing createTagOnce); a moved tag is left alone. */
export async function removeTagAt(repoPath: string, tag: string, commit: string): Promise<void> {
  checkTagName(tag);
  await runGit([`--git-dir=${repoPath}`, "update-ref", "-d", `refs/tags/${tag}`, commit], {
    acceptExitCodes: [128],
  });
}
