import type { NamedMigration } from "@anvil/core";
import { accounts } from "./0001_accounts.ts";
import { organizations } from "./0002_organizations.ts";
import { repositories } from "./0003_repositories.ts";
import { publicKeys } from "./0004_public_keys.ts";
import { emailsTransfers } from "./0005_emails_transfers.ts";
import { loginThrottle } from "./0007_login_throttle.ts";
import { issues } from "./0008_issues.ts";
import { issueSearch } from "./0009_issue_search.ts";
import { webhooks } from "./0010_webhooks.ts";
import { commitStatuses } from "./0011_commit_statuses.ts";
import { branchProtection } from "./0012_branch_protection.ts";
import { releases } from "./0013_releases.ts";
import { forks } from "./0014_forks.ts";
import { pulls } from "./0015_pulls.ts";
import { authSources } from "./0016_auth_sources.ts";

/** Every forge migration, in order; each file is NNNN_name.ts. */
export const migrations: readonly NamedMigration[] = [
  accounts,
  organizations,
  repositories,
  publicKeys,
  emailsTransfers,
  loginThrottle,
  issues,
  issueSearch,
  webhooks,
  commitStatuses,
  branchProtection,
  releases,
  forks,
  pulls,
  authSources,
];
