import { Invalid } from "@anvil/core";

// The one check of a branch name before it reaches git, without starting git: git's ref-name rules
// (`git check-ref-format`), a leading dash refused as git's porcelain does (a command would read
// it as an option), and Gitea's limit of 100 characters on every branch its API takes. Beyond
// that, a name would reach git as an argument the kernel refuses (E2BIG) or a file name too long.

/** Gitea's MaxSize(100) on default_branch, new_branch and the other branch fields. */
const MAX_BRANCH_NAME_LENGTH = 100;
/** Gitea's MaxSize(255) on a tag's name. */
const MAX_TAG_NAME_LENGTH = 255;

// Control characters and DEL are refused by code below; these anywhere.
const FORBIDDEN_CHARACTERS = " ~^:?*[\\";
const FORBIDDEN_SEQUENCES = ["..", "//", "/.", "@{", ".lock/"];

function hasForbiddenCharacter(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || FORBIDDEN_CHARACTERS.includes(name[i])) return true;
  }
  return false;
}

/** Which of Gitea's rules `name` breaks as a branch name, as its binding names them; undefined if none. */
function branchNameProblem(
  name: string,
  maxLength = MAX_BRANCH_NAME_LENGTH,
): "MaxSize" | "GitRefName" | undefined {
  // Counted in characters, as Gitea does; the UTF-16 length bounds the count before it is made.
  if (name.length > maxLength && [...name].length > maxLength) return "MaxSize";
  const valid =
    name !== "" &&
    name !== "@" &&
    !/^[-./]/.test(name) &&
    !/[./]$/.test(name) &&
    !name.endsWith(".lock") &&
    !hasForbiddenCharacter(name) &&
    !FORBIDDEN_SEQUENCES.some((sequence) => name.includes(sequence));
  return valid ? undefined : "GitRefName";
}

export function isBranchName(name: string): boolean {
  return branchNameProblem(name) === undefined;
}

/** Throws Invalid (`[DefaultBranch]: GitRefName`, `[DefaultBranch]: MaxSize`) unless `name` may name a branch. */
export function checkBranchName(name: string, field = "Branch"): void {
  const problem = branchNameProblem(name);
  if (problem !== undefined) {
    throw new Invalid(`[${field}]: ${problem}`, { [field]: [`is not a valid branch name (${problem})`] });
  }
}

/** Tags follow the rules of branch names, with Gitea's longer limit. */
export function isTagName(name: string): boolean {
  return branchNameProblem(name, MAX_TAG_NAME_LENGTH) === undefined;
}

/** Throws Invalid (`[TagName]: GitRefName`, `[TagName]: MaxSize`) unless `name` may name a tag. */
export function checkTagName(name: string, field = "TagName"): void {
  const problem = branchNameProblem(name, MAX_TAG_NAME_LENGTH);
  if (problem !== undefined) {
    throw new Invalid(`[${field}]: ${problem}`, { [field]: [`is not a valid tag name (${problem})`] });
  }
}

/**
 * Throws Invalid (Gitea's 422 `no valid ref or sha`) unless `revision` may name a ref or a commit
 * id: what git could read as an option or a range (`-x`, `a..b`), NUL and the like never reach it.
 */
export function checkRevision(revision: string): void {
  if (!isBranchName(revision)) throw new Invalid(`no valid ref or sha: ${revision.slice(0, 100)}`);
}
