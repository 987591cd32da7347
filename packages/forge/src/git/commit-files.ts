import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { identityEnvironment, type NewSignature } from "./auto-init.ts";
import { ZERO_ID } from "./ref-updates.ts";
import { runGit } from "./run.ts";

// A commit made from a list of file changes without a work tree, as Gitea's web editor and
// contents API do: the parent's tree is read into an index of our own (GIT_INDEX_FILE in a
// temporary directory), changed there, written as a tree and committed; the branch then moves
// with `update-ref <ref> <new> <old>`, which fails if anyone moved it meanwhile. Until that last
// step nothing anyone can see changed: the objects written before are unreachable, for gc.

/** A file the commit holds: new bytes, or an existing blob kept under another path (a rename). */
export interface FileWrite {
  path: string;
  /** 100644, 100755 or 120000. */
  mode: string;
  content?: Buffer;
  blob?: string;
}

export interface NewCommit {
  /** The commit the new one follows; none for the first commit of an empty repository. */
  parent?: string;
  removals: readonly string[];
  writes: readonly FileWrite[];
  message: string;
  author: NewSignature;
  committer: NewSignature;
  /** The full name of the ref to move (`refs/heads/main`). */
  ref: string;
  /** Where the ref must point for the update to happen; undefined: it must not exist yet. */
  expected?: string;
}

/**
 * Makes the commit and moves the ref to it. Answers the new commit's id, or undefined when the ref
 * was no longer at `expected` (another change won; nothing was changed).
 */
export async function commitFiles(repoPath: string, change: NewCommit): Promise<string | undefined> {
  const work = await mkdtemp(join(tmpdir(), "anvil-commit-"));
  try {
    const env = {
      GIT_INDEX_FILE: join(work, "index"),
      ...identityEnvironment("AUTHOR", change.author),
      ...identityEnvironment("COMMITTER", change.committer),
    };
    const git = (args: string[], input?: string) =>
      runGit([`--git-dir=${repoPath}`, ...args], { input, env }).then((result) => result.stdout);
    if (change.parent) await git(["read-tree", "--end-of-options", change.parent]);
    const fresh = change.writes.filter((write) => write.content !== undefined);
    // The new contents go through files, so one hash-object stores them all.
    const files = await Promise.all(
      fresh.map(async (write, i) => {
        const file = join(work, `blob-${i}`);
        await writeFile(file, write.content as Buffer);
        return file;
      }),
    );
    const ids =
      files.length === 0
        ? []
        : (await git(["hash-object", "-w", "--no-filters", "--stdin-paths"], `${files.join("\n")}\n`))
            .trim()
            .split("\n");
    const idOf = new Map(fresh.map((write, i) => [write, ids[i]]));
    const records = [
      ...change.removals.map((path) => `0 ${ZERO_ID}\t${path}\0`),
      ...change.writes.map((write) => `${write.mode} ${idOf.get(write) ?? write.blob}\t${write.path}\0`),
    ];
    if (records.length > 0) await git(["update-index", "-z", "--index-info"], records.join(""));
    const tree = (await git(["write-tree"])).trim();
    const parents = change.parent ? ["-p", change.parent] : [];
    const message = change.message.endsWith("\n") ? change.message : `${change.message}\n`;
    const commit = (await git(["commit-tree", ...parents, "-F", "-", tree], message)).trim();
    const moved = await runGit(
      [`--git-dir=${repoPath}`, "update-ref", "--no-deref", change.ref, commit, change.expected ?? ""],
      { acceptExitCodes: [1, 128] },
    );
    if (moved.exitCode === 0) return commit;
    // Refused because the ref moved (or came to be): the race is lost. Anything else is a failure.
    const now = await runGit([`--git-dir=${repoPath}`, "rev-parse", "--verify", "--quiet", change.ref], {
      acceptExitCodes: [1],
    });
    if (now.stdout.trim() !== (change.expected ?? "")) return undefined;
    throw new Error(`git update-ref ${change.ref} failed`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
