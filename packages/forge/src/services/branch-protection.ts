import {
  BadRequest,
  Forbidden,
  Invalid,
  isUniqueViolation,
  NotFound,
  readBool,
  toStoredTime,
} from "@anvil/core";
import type { Kysely, Updateable } from "kysely";
import { type PushRule, pushRulesEnvironment } from "../git/index.ts";
import { type AccountRow, findAccountByName, findAccountsByIds } from "../repositories/accounts.ts";
import {
  type BranchProtectionRow,
  deleteBranchProtection as deleteRow,
  findBranchProtection,
  inAnyTeam,
  insertBranchProtection,
  listBranchProtections,
  maxBranchProtectionPriority,
  teamNamesByIds,
  updateBranchProtection,
} from "../repositories/branch-protections.ts";
import { findTeamByName } from "../repositories/teams.ts";
import {
  ACCOUNT_ORGANIZATION,
  ACCOUNT_USER,
  type BranchProtectionTable,
  type ForgeTables,
} from "../schemas/tables.ts";
import { ACCESS_ADMIN, ACCESS_WRITE, accessTo, type Permission, repositoryPermission } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { isRuleNameSpecial, ruleNameMatches } from "./branch-rules.ts";
import type { RepositoryContext } from "./repositories.ts";

// Branch protection as Gitea's protected_branch: rules named by a branch name or a glob over
// branch names (`*` stays within a path segment, `**` crosses them), tried in priority order; the
// first that matches a branch is the one that protects it. Who may push, force-push and merge is
// decided here, for the API's branch objects, for git pushes (git/push-rules.ts applies the
// decisions inside receive-pack) and for pull request merges.

export type BranchProtection = BranchProtectionRow;

/** More rules than this in one repository are refused (Gitea sets no limit; a push reads them all). */
const MAX_RULES = 100;
const MAX_RULE_NAME = 255;

export { isRuleNameSpecial };

/** Whether the rule protects the branch: a plain name in any case, a glob by its match. */
export function ruleMatches(rule: BranchProtection, branch: string): boolean {
  return ruleNameMatches(rule.rule_name, branch);
}

/** The repository's rules in the order they are tried: priority, plain names before globs, age. */
export async function protectionRules(db: Kysely<ForgeTables>, repoId: number): Promise<BranchProtection[]> {
  const rules = await listBranchProtections(db, repoId);
  return rules.sort(
    (a, b) =>
      a.priority - b.priority ||
      Number(isRuleNameSpecial(a.rule_name)) - Number(isRuleNameSpecial(b.rule_name)) ||
      a.id - b.id,
  );
}

export function firstMatchingRule(rules: BranchProtection[], branch: string): BranchProtection | undefined {
  return rules.find((rule) => ruleMatches(rule, branch));
}

/** The rule that protects `branchName` in the repository, or undefined when none does. */
export async function protectionFor(
  db: Kysely<ForgeTables>,
  repoId: number,
  branchName: string,
): Promise<BranchProtection | undefined> {
  return firstMatchingRule(await protectionRules(db, repoId), branchName);
}

export function idList(text: string): number[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((id): id is number => Number.isSafeInteger(id)) : [];
  } catch {
    return [];
  }
}

export function statusCheckContexts(rule: BranchProtection): string[] {
  try {
    const value: unknown = JSON.parse(rule.status_check_contexts);
    return Array.isArray(value) ? value.filter((text): text is string => typeof text === "string") : [];
  } catch {
    return [];
  }
}

async function listed(
  db: Kysely<ForgeTables>,
  account: AccountRow,
  userIds: string,
  teamIds: string,
): Promise<boolean> {
  return idList(userIds).includes(account.id) || inAnyTeam(db, idList(teamIds), account.id);
}

const writesCode = (permission: Permission) => accessTo(permission, "repo.code") >= ACCESS_WRITE;

/**
 * Whether `account` may push to a branch the rule protects (Gitea's CanUserPush): pushing must be
 * enabled, and then either anyone who may write code may, or only those on the push allow-list.
 */
export async function canPush(
  db: Kysely<ForgeTables>,
  rule: BranchProtection,
  account: AccountRow | undefined,
  permission: Permission,
): Promise<boolean> {
  if (!account || !readBool(rule.can_push)) return false;
  if (!readBool(rule.enable_whitelist)) return writesCode(permission);
  return listed(db, account, rule.whitelist_user_ids, rule.whitelist_team_ids);
}

/**
 * Whether `account` may rewrite the history of a branch the rule protects (Gitea's
 * CanUserForcePush): when force pushes are enabled, whoever may push, or only the force-push
 * allow-list when it is enabled (which, as in Gitea, need not be on the push allow-list).
 */
export async function canForcePush(
  db: Kysely<ForgeTables>,
  rule: BranchProtection,
  account: AccountRow | undefined,
  permission: Permission,
): Promise<boolean> {
  if (!account || !readBool(rule.can_force_push)) return false;
  if (!readBool(rule.enable_force_push_allowlist)) return canPush(db, rule, account, permission);
  return listed(db, account, rule.force_push_allowlist_user_ids, rule.force_push_allowlist_team_ids);
}

/**
 * Whether `account` may merge pull requests into a branch the rule protects (Gitea's
 * IsUserMergeWhitelisted): code writers, or only the merge allow-list when it is enabled.
 */
export async function canMerge(
  db: Kysely<ForgeTables>,
  rule: BranchProtection,
  account: AccountRow | undefined,
  permission: Permission,
): Promise<boolean> {
  if (!account) return false;
  if (!readBool(rule.enable_merge_whitelist)) return writesCode(permission);
  return listed(db, account, rule.merge_whitelist_user_ids, rule.merge_whitelist_team_ids);
}

/**
 * Whether an approval by `account` counts towards the rule's required approvals (Gitea's
 * IsUserOfficialReviewer): code writers, or only the approvals allow-list when it is enabled.
 */
export async function isOfficialReviewer(
  db: Kysely<ForgeTables>,
  rule: BranchProtection,
  account: AccountRow,
  permission: Permission,
): Promise<boolean> {
  if (!readBool(rule.enable_approvals_whitelist)) return writesCode(permission);
  return listed(db, account, rule.approvals_whitelist_user_ids, rule.approvals_whitelist_team_ids);
}

/** The protection fields of Gitea's Branch object, for a branch and the caller. */
export interface BranchProtectionView {
  protected: boolean;
  required_approvals: number;
  enable_status_check: boolean;
  status_check_contexts: string[];
  user_can_push: boolean;
  user_can_merge: boolean;
  effective_branch_protection_name: string;
}

export async function branchProtectionView(
  db: Kysely<ForgeTables>,
  rule: BranchProtection | undefined,
  account: AccountRow | undefined,
  permission: Permission,
): Promise<BranchProtectionView> {
  if (!rule) {
    const writer = account !== undefined && writesCode(permission);
    return {
      protected: false,
      required_approvals: 0,
      enable_status_check: false,
      status_check_contexts: [],
      user_can_push: writer,
      user_can_merge: writer,
      effective_branch_protection_name: "",
    };
  }
  return {
    protected: true,
    required_approvals: rule.required_approvals,
    enable_status_check: readBool(rule.enable_status_check),
    status_check_contexts: statusCheckContexts(rule),
    user_can_push: await canPush(db, rule, account, permission),
    user_can_merge: await canMerge(db, rule, account, permission),
    // Gitea names the rule to repository admins only.
    effective_branch_protection_name: permission.mode >= ACCESS_ADMIN ? rule.rule_name : "",
  };
}

/**
 * receive-pack's environment for a push by `pusher`: what each of the repository's rules lets them
 * do, for git's update hook to apply ref by ref (git/push-rules.ts); empty when no rule exists.
 */
export async function pushEnvironment(
  db: Kysely<ForgeTables>,
  context: RepositoryContext,
  pusher: AccountRow,
): Promise<Record<string, string>> {
  const decided: PushRule[] = [];
  for (const rule of await protectionRules(db, context.repository.id)) {
    decided.push({
      rule: rule.rule_name,
      push: await canPush(db, rule, pusher, context.permission),
      force: await canForcePush(db, rule, pusher, context.permission),
    });
  }
  return pushRulesEnvironment(decided);
}

// --- The /branch_protections resource --------------------------------------------------------------

/** The fields of Gitea's CreateBranchProtectionOption and EditBranchProtectionOption. */
export interface BranchProtectionInput {
  priority?: number;
  enable_push?: boolean;
  enable_push_whitelist?: boolean;
  push_whitelist_usernames?: string[];
  push_whitelist_teams?: string[];
  push_whitelist_deploy_keys?: boolean;
  enable_force_push?: boolean;
  enable_force_push_allowlist?: boolean;
  force_push_allowlist_usernames?: string[];
  force_push_allowlist_teams?: string[];
  force_push_allowlist_deploy_keys?: boolean;
  enable_merge_whitelist?: boolean;
  merge_whitelist_usernames?: string[];
  merge_whitelist_teams?: string[];
  enable_status_check?: boolean;
  status_check_contexts?: string[];
  required_approvals?: number;
  enable_approvals_whitelist?: boolean;
  approvals_whitelist_username?: string[];
  approvals_whitelist_teams?: string[];
  block_on_rejected_reviews?: boolean;
  block_on_official_review_requests?: boolean;
  block_on_outdated_branch?: boolean;
  dismiss_stale_approvals?: boolean;
  ignore_stale_approvals?: boolean;
  require_signed_commits?: boolean;
  protected_file_patterns?: string;
  unprotected_file_patterns?: string;
  block_admin_merge_override?: boolean;
}

/** Only a repository's admins see or change its rules, as in Gitea. */
export function requireProtectionAdmin(context: RepositoryContext): void {
  if (context.permission.mode < ACCESS_ADMIN) throw new Forbidden("Must be an admin of the repository");
}

/**
 * The ids of the named users, as Gitea resolves an allow-list: an unknown name is a 422, and a
 * user who may not write the repository's code is dropped (Gitea's updateUserWhitelist).
 */
async function userIds(
  database: ForgeDatabase,
  context: RepositoryContext,
  names: string[],
): Promise<number[]> {
  const ids: number[] = [];
  for (const name of new Set(names)) {
    const account = await findAccountByName(database.db, name);
    if (!account || account.type !== ACCOUNT_USER)
      throw new Invalid(`user does not exist [uid: 0, name: ${name}]`);
    const permission = await repositoryPermission(database, context.repository, context.owner, account);
    if (writesCode(permission) && !ids.includes(account.id)) ids.push(account.id);
  }
  return ids;
}

/** The ids of the owning organization's named teams; a user's repository has none (Gitea ignores them). */
async function teamIds(
  database: ForgeDatabase,
  context: RepositoryContext,
  names: string[],
): Promise<number[]> {
  if (context.owner.type !== ACCOUNT_ORGANIZATION) return [];
  const ids: number[] = [];
  for (const name of new Set(names)) {
    const team = await findTeamByName(database.db, context.owner.id, name);
    if (!team)
      throw new Invalid(`team does not exist [org_id ${context.owner.id}, team_id 0, name: ${name}]`);
    if (!ids.includes(team.id)) ids.push(team.id);
  }
  return ids;
}

type ListColumn =
  | "whitelist_user_ids"
  | "whitelist_team_ids"
  | "force_push_allowlist_user_ids"
  | "force_push_allowlist_team_ids"
  | "merge_whitelist_user_ids"
  | "merge_whitelist_team_ids"
  | "approvals_whitelist_user_ids"
  | "approvals_whitelist_team_ids";

const LISTS: ReadonlyArray<[keyof BranchProtectionInput, ListColumn, "user" | "team"]> = [
  ["push_whitelist_usernames", "whitelist_user_ids", "user"],
  ["push_whitelist_teams", "whitelist_team_ids", "team"],
  ["force_push_allowlist_usernames", "force_push_allowlist_user_ids", "user"],
  ["force_push_allowlist_teams", "force_push_allowlist_team_ids", "team"],
  ["merge_whitelist_usernames", "merge_whitelist_user_ids", "user"],
  ["merge_whitelist_teams", "merge_whitelist_team_ids", "team"],
  ["approvals_whitelist_username", "approvals_whitelist_user_ids", "user"],
  ["approvals_whitelist_teams", "approvals_whitelist_team_ids", "team"],
];

/** The allow-list columns the input names, resolved; lists the input leaves out are not touched. */
async function listChanges(
  database: ForgeDatabase,
  context: RepositoryContext,
  input: BranchProtectionInput,
): Promise<Partial<Record<ListColumn, string>>> {
  const changes: Partial<Record<ListColumn, string>> = {};
  for (const [field, column, kind] of LISTS) {
    const names = input[field] as string[] | undefined;
    if (names === undefined) continue;
    const ids =
      kind === "user" ? await userIds(database, context, names) : await teamIds(database, context, names);
    changes[column] = JSON.stringify(ids);
  }
  return changes;
}

const PLAIN_FLAGS = [
  "enable_merge_whitelist",
  "enable_status_check",
  "enable_approvals_whitelist",
  "block_on_rejected_reviews",
  "block_on_official_review_requests",
  "block_on_outdated_branch",
  "dismiss_stale_approvals",
  "ignore_stale_approvals",
  "require_signed_commits",
  "block_admin_merge_override",
] as const;

/** The settings a create or an edit sets, as Gitea combines them (an allow-list needs its switch on). */
function settingChanges(
  rule: BranchProtection | undefined,
  input: BranchProtectionInput,
): Updateable<BranchProtectionTable> {
  const changes: Updateable<BranchProtectionTable> = {};
  const flag = (value: boolean | number | undefined) => (value === undefined ? false : readBool(value));
  // Push: enable_push gates the allow-list, which gates deploy keys; each left out keeps its value.
  let push = flag(rule?.can_push);
  let pushList = flag(rule?.enable_whitelist);
  let pushKeys = flag(rule?.whitelist_deploy_keys);
  if (input.enable_push !== undefined) {
    push = input.enable_push;
    if (input.enable_push_whitelist !== undefined) pushList = input.enable_push_whitelist;
    if (input.push_whitelist_deploy_keys !== undefined) pushKeys = input.push_whitelist_deploy_keys;
  }
  changes.can_push = push;
  changes.enable_whitelist = push && pushList;
  changes.whitelist_deploy_keys = push && pushList && pushKeys;
  let force = flag(rule?.can_force_push);
  let forceList = flag(rule?.enable_force_push_allowlist);
  let forceKeys = flag(rule?.force_push_allowlist_deploy_keys);
  if (input.enable_force_push !== undefined) {
    force = input.enable_force_push;
    if (input.enable_force_push_allowlist !== undefined) forceList = input.enable_force_push_allowlist;
    if (input.force_push_allowlist_deploy_keys !== undefined)
      forceKeys = input.force_push_allowlist_deploy_keys;
  }
  // A new rule allows force pushes only where it allows pushes at all.
  const forceAllowed = rule ? force : push && force;
  changes.can_force_push = forceAllowed;
  changes.enable_force_push_allowlist = forceAllowed && forceList;
  changes.force_push_allowlist_deploy_keys = forceAllowed && forceList && forceKeys;
  for (const name of PLAIN_FLAGS) if (input[name] !== undefined) changes[name] = input[name];
  if (input.status_check_contexts !== undefined)
    changes.status_check_contexts = JSON.stringify(input.status_check_contexts);
  // A negative count leaves the rule's as it is (a new rule's at 0), as Gitea does.
  if (input.required_approvals !== undefined && input.required_approvals >= 0)
    changes.required_approvals = Math.min(input.required_approvals, 1_000_000);
  if (input.protected_file_patterns !== undefined)
    changes.protected_file_patterns = input.protected_file_patterns;
  if (input.unprotected_file_patterns !== undefined)
    changes.unprotected_file_patterns = input.unprotected_file_patterns;
  if (input.priority !== undefined) changes.priority = input.priority;
  return changes;
}

const ALREADY_EXISTS = "Branch protection already exist";

export async function createBranchProtection(
  database: ForgeDatabase,
  context: RepositoryContext,
  input: BranchProtectionInput & { rule_name?: string; branch_name?: string },
): Promise<BranchProtection> {
  requireProtectionAdmin(context);
  const ruleName = input.rule_name || input.branch_name || "";
  if (ruleName === "") throw new BadRequest("both rule_name and branch_name are empty");
  if (ruleName.length > MAX_RULE_NAME || ruleName.includes("\0"))
    throw new Invalid("[RuleName]: MaxSize", { RuleName: ["is too long or holds a NUL"] });
  const repoId = context.repository.id;
  if (await findBranchProtection(database.db, repoId, ruleName)) throw new Forbidden(ALREADY_EXISTS);
  const rules = await listBranchProtections(database.db, repoId);
  if (rules.length >= MAX_RULES)
    throw new Invalid(`a repository has at most ${MAX_RULES} branch protection rules`);
  const lists = await listChanges(database, context, input);
  const now = toStoredTime(new Date(), database.dialect);
  const settings = settingChanges(undefined, input);
  try {
    return await insertBranchProtection(database.db, {
      ...settings,
      ...lists,
      // A rule given no priority goes after the others.
      priority: input.priority ?? (await maxBranchProtectionPriority(database.db, repoId)) + 1,
      repo_id: repoId,
      rule_name: ruleName,
      created_at: now,
      updated_at: now,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new Forbidden(ALREADY_EXISTS);
    throw error;
  }
}

export async function getBranchProtection(
  database: ForgeDatabase,
  context: RepositoryContext,
  ruleName: string,
): Promise<BranchProtection> {
  requireProtectionAdmin(context);
  const rule = await findBranchProtection(database.db, context.repository.id, ruleName);
  if (!rule) throw new NotFound();
  return rule;
}

export async function listRepositoryProtections(
  database: ForgeDatabase,
  context: RepositoryContext,
): Promise<BranchProtection[]> {
  requireProtectionAdmin(context);
  return listBranchProtections(database.db, context.repository.id);
}

export async function editBranchProtection(
  database: ForgeDatabase,
  context: RepositoryContext,
  ruleName: string,
  input: BranchProtectionInput,
): Promise<BranchProtection> {
  const rule = await getBranchProtection(database, context, ruleName);
  const lists = await listChanges(database, context, input);
  const updated = await updateBranchProtection(database.db, rule.id, {
    ...settingChanges(rule, input),
    ...lists,
    updated_at: toStoredTime(new Date(), database.dialect),
  });
  if (!updated) throw new NotFound();
  return updated;
}

export async function removeBranchProtection(
  database: ForgeDatabase,
  context: RepositoryContext,
  ruleName: string,
): Promise<void> {
  const rule = await getBranchProtection(database, context, ruleName);
  if (!(await deleteRow(database.db, rule.id))) throw new NotFound();
}

/** The names an API answer shows for a rule's allow-lists, in one look-up for all of them. */
export async function allowListNames(
  db: Kysely<ForgeTables>,
  rules: BranchProtection[],
): Promise<{ user(id: number): string | undefined; team(id: number): string | undefined }> {
  const users: number[] = [];
  const teams: number[] = [];
  for (const rule of rules)
    for (const [, column, kind] of LISTS) (kind === "user" ? users : teams).push(...idList(rule[column]));
  const [accounts, teamNames] = await Promise.all([findAccountsByIds(db, users), teamNamesByIds(db, teams)]);
  return { user: (id) => accounts.get(id)?.name, team: (id) => teamNames.get(id) };
}
