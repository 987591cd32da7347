import { Conflict, Invalid } from "@anvil/core";
import { defaultBranch } from "./branches.ts";
import { checkBranchName } from "./ref-name.ts";
import { runGit } from "./run.ts";
import { isEmpty } from "./storage.ts";

/** Who makes a new commit, and when. */
export interface NewSignature {
  name: string;
  email: string;
  date: Date;
}

export interface AutoInitOptions {
  /** The repository's name, the README's title. */
  name: string;
  description: string;
  author: NewSignature;
  /** The author by default. */
  committer?: NewSignature;
  /** HEAD's branch by default. */
  branch?: string;
}

// git would strip or refuse these in an identity, or end the header line early.
const UNSAFE_IDENTITY = /[<>\n\0]/;

/** The GIT_AUTHOR_* or GIT_COMMITTER_* variables of a new commit; Invalid for what git would mangle. */
export function identityEnvironment(
  role: "AUTHOR" | "COMMITTER",
  signature: NewSignature,
): Record<string, string> {
  const seconds = Math.floor(signature.date.getTime() / 1000);
  if (!Number.isSafeInteger(seconds)) throw new Invalid(`invalid ${role.toLowerCase()} date`);
  if (UNSAFE_IDENTITY.test(signature.name) || UNSAFE_IDENTITY.test(signature.email)) {
    throw new Invalid(`invalid ${role.toLowerCase()} identity`);
  }
  return {
    [`GIT_${role}_NAME`]: signature.name,
    [`GIT_${role}_EMAIL`]: signature.email,
    // Seconds since the epoch in UTC: no date format for git to misread.
    [`GIT_${role}_DATE`]: `@${seconds} +0000`,
  };
}

/**
 * Gitea's "Initialize repository": the first commit of an empty repository, holding a README.md
 * (`# <name>\n\n<description>\n`), made with plumbing so no work tree is needed. Returns the new
 * commit's id; Conflict when the repository already has commits.
 */
export async function autoInit(repoPath: string, options: AutoInitOptions): Promise<string> {
  const env = {
    ...identityEnvironment("AUTHOR", options.author),
    ...identityEnvironment("COMMITTER", options.committer ?? options.author),
  };
  const branch = options.branch ?? (await defaultBranch(repoPath));
  if (branch === undefined) throw new Invalid("the repository's HEAD names no branch");
  checkBranchName(branch);
  if (!(await isEmpty(repoPath))) throw new Conflict("repository is not empty");
  const git = (args: string[], input?: string) =>
    runGit([`--git-dir=${repoPath}`, ...args], { input, env }).then((result) => result.stdout.trim());
  const readme = await git(["hash-object", "-w", "--stdin"], `# ${options.name}\n\n${options.description}\n`);
  const tree = await git(["mktree"], `100644 blob ${readme}\tREADME.md\n`);
  const commit = await git(["commit-tree", tree, "-m", "Initial commit"]);
  // The empty old value makes the update fail if another writer created the branch meanwhile.
  await git(["update-ref", `refs/heads/${branch}`, commit, ""]);
  return commit;
}
