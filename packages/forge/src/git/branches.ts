import { type Commit, readCommits } from "./commit.ts";
import { type PageRequest, pageOffset } from "./paging.ts";
import { isBranchName } from "./ref-name.ts";
import { runGit } from "./run.ts";

export interface Branch {
  name: string;
  commit: Commit;
}

export interface BranchPage {
  branches: Branch[];
  /** All branches, for X-Total-Count. */
  total: number;
}

interface BranchTip {
  name: string;
  id: string;
}

const HEADS = "refs/heads/";

// Branch names cannot contain NUL or newlines (git check-ref-format), so one tip per line is safe.
async function branchTips(repoPath: string, pattern = HEADS): Promise<BranchTip[]> {
  const { stdout } = await runGit([
    `--git-dir=${repoPath}`,
    "for-each-ref",
    "--sort=refname",
    "--format=%(objectname)%00%(refname:lstrip=2)",
    pattern,
  ]);
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [id, name] = line.split("\0");
      return { id, name };
    });
}

async function withCommits(repoPath: string, tips: BranchTip[]): Promise<Branch[]> {
  const commits = await readCommits(
    repoPath,
    tips.map((tip) => tip.id),
  );
  return tips.map((tip) => ({ name: tip.name, commit: commits.get(tip.id)! }));
}

/** One page of the branches, sorted by name, each with its head commit. */
export async function listBranches(repoPath: string, page: PageRequest): Promise<BranchPage> {
  const offset = pageOffset(page);
  const tips = await branchTips(repoPath);
  return {
    branches: await withCommits(repoPath, tips.slice(offset, offset + page.limit)),
    total: tips.length,
  };
}

/** The branch called `name`, or undefined when there is none. */
export async function getBranch(repoPath: string, name: string): Promise<Branch | undefined> {
  // No branch can have a name git would refuse; and for-each-ref reads its pattern as a glob (which
  // such names exclude) that also matches below a slash, so only the exact name counts.
  if (!isBranchName(name)) return undefined;
  const tip = (await branchTips(repoPath, HEADS + name)).find((candidate) => candidate.name === name);
  return tip === undefined ? undefined : (await withCommits(repoPath, [tip]))[0];
}

/** The branch HEAD names (it may not exist yet in an empty repository); undefined for a detached HEAD. */
export async function defaultBranch(repoPath: string): Promise<string | undefined> {
  const { stdout, exitCode } = await runGit([`--git-dir=${repoPath}`, "symbolic-ref", "--quiet", "HEAD"], {
    acceptExitCodes: [1],
  });
  const target = stdout.trim();
  return exitCode === 0 && target.startsWith(HEADS) ? target.slice(HEADS.length) : undefined;
}
