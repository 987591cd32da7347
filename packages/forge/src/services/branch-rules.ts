import { compileBranchFilter } from "./branch-filter.ts";

// Which branches a protection rule names, as Gitea matches them: a plain name (no glob character)
// is one branch in any case; a glob is compiled with `/` as the separator. Kept free of any other
// import: git's update hook (git/hooks/update) loads it for every ref a push changes.

// gobwas/glob's special characters: a rule name holding none of them is a plain branch name.
const GLOB_SPECIAL = /[*?[\]{}\\]/;

export function isRuleNameSpecial(ruleName: string): boolean {
  return GLOB_SPECIAL.test(ruleName);
}

export function ruleNameMatches(ruleName: string, branch: string): boolean {
  if (!isRuleNameSpecial(ruleName)) return ruleName.toLowerCase() === branch.toLowerCase();
  // A glob that does not compile protects the branch of exactly its name, as Gitea quotes it.
  return compileBranchFilter(ruleName, "/")?.matches(branch) ?? ruleName === branch;
}
