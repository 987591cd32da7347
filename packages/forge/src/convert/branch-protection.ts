import { readBool } from "@anvil/core";
import {
  type BranchProtection,
  idList,
  isRuleNameSpecial,
  statusCheckContexts,
} from "../services/branch-protection.ts";
import { apiTime } from "./time.ts";

export interface AllowListNames {
  user(id: number): string | undefined;
  team(id: number): string | undefined;
}

/**
 * A rule as Gitea's BranchProtection: allow-lists by name (ids whose user or team is gone are left
 * out), `branch_name` only for a rule that names one branch, and the `_username` spelling of the
 * approvals list as Gitea's JSON has it.
 */
export function toApiBranchProtection(rule: BranchProtection, names: AllowListNames) {
  const users = (text: string) => idList(text).flatMap((id) => names.user(id) ?? []);
  const teams = (text: string) => idList(text).flatMap((id) => names.team(id) ?? []);
  return {
    branch_name: isRuleNameSpecial(rule.rule_name) ? "" : rule.rule_name,
    rule_name: rule.rule_name,
    priority: rule.priority,
    enable_push: readBool(rule.can_push),
    enable_push_whitelist: readBool(rule.enable_whitelist),
    push_whitelist_usernames: users(rule.whitelist_user_ids),
    push_whitelist_teams: teams(rule.whitelist_team_ids),
    push_whitelist_deploy_keys: readBool(rule.whitelist_deploy_keys),
    enable_force_push: readBool(rule.can_force_push),
    enable_force_push_allowlist: readBool(rule.enable_force_push_allowlist),
    force_push_allowlist_usernames: users(rule.force_push_allowlist_user_ids),
    force_push_allowlist_teams: teams(rule.force_push_allowlist_team_ids),
    force_push_allowlist_deploy_keys: readBool(rule.force_push_allowlist_deploy_keys),
    enable_merge_whitelist: readBool(rule.enable_merge_whitelist),
    merge_whitelist_usernames: users(rule.merge_whitelist_user_ids),
    merge_whitelist_teams: teams(rule.merge_whitelist_team_ids),
    enable_status_check: readBool(rule.enable_status_check),
    status_check_contexts: statusCheckContexts(rule),
    required_approvals: rule.required_approvals,
    enable_approvals_whitelist: readBool(rule.enable_approvals_whitelist),
    approvals_whitelist_username: users(rule.approvals_whitelist_user_ids),
    approvals_whitelist_teams: teams(rule.approvals_whitelist_team_ids),
    block_on_rejected_reviews: readBool(rule.block_on_rejected_reviews),
    block_on_official_review_requests: readBool(rule.block_on_official_review_requests),
    block_on_outdated_branch: readBool(rule.block_on_outdated_branch),
    dismiss_stale_approvals: readBool(rule.dismiss_stale_approvals),
    ignore_stale_approvals: readBool(rule.ignore_stale_approvals),
    require_signed_commits: readBool(rule.require_signed_commits),
    protected_file_patterns: rule.protected_file_patterns,
    unprotected_file_patterns: rule.unprotected_file_patterns,
    block_admin_merge_override: readBool(rule.block_admin_merge_override),
    created_at: apiTime(rule.created_at),
    updated_at: apiTime(rule.updated_at),
  };
}
