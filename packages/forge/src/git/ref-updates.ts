import { GitCommandError } from "./command-error.ts";
import { runGit } from "./run.ts";

// Ref changes the API makes (branches and tags created, renamed, deleted), each one `git
// update-ref --stdin` transaction: every ref is locked and checked against the value the caller
// expects (none, for a ref being created) before any is written, so two requests racing for the
// same ref cannot both win, and a rename never leaves one half behind.

/** git's id of "no object": a ref expected to be absent (SHA-1 repositories). */
export const ZERO_ID = "0000000000000000000000000000000000000000";

export type RefChange =
  | { ref: string; create: string }
  | { ref: string; update: string; expected: string }
  | { ref: string; delete: string };

/** The refs were not as expected (one exists, one moved, a name clashes with a directory of refs). */
export class RefUpdateRefused extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`ref update refused: ${reason}`);
    this.reason = reason;
  }
}

// What git says when a ref is not as the transaction expects, or another writer holds its lock.
const REFUSALS = [
  "cannot lock ref",
  "reference already exists",
  "Unable to create",
  "is at",
  "exists; cannot create",
];

function command(change: RefChange): string {
  // -z: each field ends with NUL; ref names cannot hold one (they are checked before they get here).
  if ("create" in change) return `create ${change.ref}\0${change.create}\0`;
  if ("update" in change) return `update ${change.ref}\0${change.update}\0${change.expected}\0`;
  return `delete ${change.ref}\0${change.delete}\0`;
}

/** Applies the changes all together or none of them; RefUpdateRefused when a ref was not as expected. */
export async function updateRefs(repoPath: string, changes: readonly RefChange[]): Promise<void> {
  try {
    await runGit([`--git-dir=${repoPath}`, "update-ref", "--stdin", "-z"], {
      input: changes.map(command).join(""),
    });
  } catch (error) {
    if (error instanceof GitCommandError && REFUSALS.some((text) => error.stderr.includes(text)))
      throw new RefUpdateRefused(error.stderr.trim());
    throw error;
  }
}
