import {
  type AnyKysely,
  addIdColumn,
  dialectOf,
  idType,
  type NamedMigration,
  timestampType,
} from "@anvil/core";

// Lists of user and team ids, status check contexts: JSON arrays in text columns, as Gitea keeps
// them; an id whose account or team is gone is dropped when the rule is read.
const LISTS = [
  "whitelist_user_ids",
  "whitelist_team_ids",
  "force_push_allowlist_user_ids",
  "force_push_allowlist_team_ids",
  "merge_whitelist_user_ids",
  "merge_whitelist_team_ids",
  "approvals_whitelist_user_ids",
  "approvals_whitelist_team_ids",
  "status_check_contexts",
];

const FLAGS = [
  "can_push",
  "enable_whitelist",
  "whitelist_deploy_keys",
  "can_force_push",
  "enable_force_push_allowlist",
  "force_push_allowlist_deploy_keys",
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
];

/** Branch protection rules (Gitea's protected_branch): a branch name or glob per rule, per repository. */
export const branchProtection: NamedMigration = {
  name: "0012_branch_protection",
  async up(db: AnyKysely) {
    const dialect = dialectOf(db);
    const time = timestampType(dialect);
    const id = idType(dialect);
    let table = addIdColumn(db.schema.createTable("branch_protection"), dialect)
      .addColumn("repo_id", id, (c) => c.notNull().references("repository.id").onDelete("cascade"))
      .addColumn("rule_name", "text", (c) => c.notNull())
      .addColumn("priority", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("required_approvals", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("protected_file_patterns", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("unprotected_file_patterns", "text", (c) => c.notNull().defaultTo(""));
    for (const flag of FLAGS) table = table.addColumn(flag, "boolean", (c) => c.notNull().defaultTo(false));
    for (const list of LISTS) table = table.addColumn(list, "text", (c) => c.notNull().defaultTo("[]"));
    await table
      .addColumn("created_at", time, (c) => c.notNull())
      .addColumn("updated_at", time, (c) => c.notNull())
      .addUniqueConstraint("branch_protection_repo_rule", ["repo_id", "rule_name"])
      .execute();
  },
};
