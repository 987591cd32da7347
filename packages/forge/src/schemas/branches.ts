import { Type } from "typebox";

// Request bodies of the branch, tag and branch protection routes, named after Gitea's API structs.

// Each name costs a look-up of the account or team and of its permission: bounded per list.
const Names = Type.Array(Type.String(), { maxItems: 100 });

export const CreateBranchRepoOption = Type.Object({
  new_branch_name: Type.String(),
  old_ref_name: Type.Optional(Type.String()),
  old_branch_name: Type.Optional(Type.String()),
});

export const RenameBranchRepoOption = Type.Object({ name: Type.String() });

export const CreateTagOption = Type.Object({
  tag_name: Type.String(),
  target: Type.Optional(Type.String()),
  message: Type.Optional(Type.String({ maxLength: 1024 * 1024 })),
});

const protectionFields = {
  priority: Type.Optional(Type.Integer()),
  enable_push: Type.Optional(Type.Boolean()),
  enable_push_whitelist: Type.Optional(Type.Boolean()),
  push_whitelist_usernames: Type.Optional(Names),
  push_whitelist_teams: Type.Optional(Names),
  push_whitelist_deploy_keys: Type.Optional(Type.Boolean()),
  enable_force_push: Type.Optional(Type.Boolean()),
  enable_force_push_allowlist: Type.Optional(Type.Boolean()),
  force_push_allowlist_usernames: Type.Optional(Names),
  force_push_allowlist_teams: Type.Optional(Names),
  force_push_allowlist_deploy_keys: Type.Optional(Type.Boolean()),
  enable_merge_whitelist: Type.Optional(Type.Boolean()),
  merge_whitelist_usernames: Type.Optional(Names),
  merge_whitelist_teams: Type.Optional(Names),
  enable_status_check: Type.Optional(Type.Boolean()),
  status_check_contexts: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
  required_approvals: Type.Optional(Type.Integer()),
  enable_approvals_whitelist: Type.Optional(Type.Boolean()),
  approvals_whitelist_username: Type.Optional(Names),
  approvals_whitelist_teams: Type.Optional(Names),
  block_on_rejected_reviews: Type.Optional(Type.Boolean()),
  block_on_official_review_requests: Type.Optional(Type.Boolean()),
  block_on_outdated_branch: Type.Optional(Type.Boolean()),
  dismiss_stale_approvals: Type.Optional(Type.Boolean()),
  ignore_stale_approvals: Type.Optional(Type.Boolean()),
  require_signed_commits: Type.Optional(Type.Boolean()),
  protected_file_patterns: Type.Optional(Type.String({ maxLength: 4096 })),
  unprotected_file_patterns: Type.Optional(Type.String({ maxLength: 4096 })),
  block_admin_merge_override: Type.Optional(Type.Boolean()),
};

export const CreateBranchProtectionOption = Type.Object({
  rule_name: Type.Optional(Type.String()),
  branch_name: Type.Optional(Type.String()),
  ...protectionFields,
});

export const EditBranchProtectionOption = Type.Object(protectionFields);
