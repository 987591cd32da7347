import type { Generated } from "kysely";

// The forge's tables, as kysely sees them; Generated marks a column the database fills when an
// insert leaves it out. Booleans come back as 1/0 on SQLite (readBool);
// timestamps as ISO text on SQLite and Date on PostgreSQL (readTime).

type Bool = boolean | number;
type Time = string | Date;

/** A user or an organization, as in Gitea, where both are rows of one table told apart by `type`. */
export interface AccountTable {
  id: Generated<number>;
  /** 0 for an individual user, 1 for an organization (Gitea's UserType). */
  type: number;
  name: string;
  lower_name: string;
  full_name: Generated<string>;
  email: string;
  lower_email: string;
  password_hash: Generated<string>;
  login_name: Generated<string>;
  source_id: Generated<number>;
  is_admin: Generated<Bool>;
  is_active: Generated<Bool>;
  prohibit_login: Generated<Bool>;
  restricted: Generated<Bool>;
  must_change_password: Generated<Bool>;
  /** public, limited or private. */
  visibility: Generated<string>;
  description: Generated<string>;
  website: Generated<string>;
  location: Generated<string>;
  max_repo_creation: Generated<number>;
  allow_create_organization: Generated<Bool>;
  repo_admin_change_team_access: Generated<Bool>;
  created_at: Time;
  updated_at: Time;
  last_login_at: Generated<Time | null>;
}

export interface AccessTokenTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  lower_name: string;
  /** SHA-256 (hex) of the secret; the secret itself is shown once and never stored. */
  token_hash: string;
  token_last_eight: string;
  /** Normalized scopes, comma-separated. */
  scopes: string;
  created_at: Time;
  updated_at: Time;
  last_used_at: Generated<Time | null>;
}

export interface RepositoryTable {
  id: Generated<number>;
  owner_id: number;
  name: string;
  lower_name: string;
  description: Generated<string>;
  website: Generated<string>;
  default_branch: string;
  is_empty: Generated<Bool>;
  is_private: Generated<Bool>;
  is_archived: Generated<Bool>;
  is_template: Generated<Bool>;
  created_at: Time;
  updated_at: Time;
  /** The last issue or pull number given out; the next one is this plus one. */
  last_issue_index: Generated<number>;
  num_issues: Generated<number>;
  num_closed_issues: Generated<number>;
  num_pulls: Generated<number>;
  num_closed_pulls: Generated<number>;
  /** Moves on every change of the repository's issues (see listIssueRows). */
  issue_version: Generated<number>;
  is_fork: Generated<Bool>;
  /** The repository this one was forked from; null once that one is deleted. */
  fork_id: Generated<number | null>;
  num_forks: Generated<number>;
  /** Published releases (not drafts). */
  num_releases: Generated<number>;
}

/** A user's access to a repository besides ownership: 1 read, 2 write, 3 admin. */
export interface CollaborationTable {
  repo_id: number;
  account_id: number;
  mode: number;
}

export interface TeamRepoTable {
  team_id: number;
  repo_id: number;
}

export interface RepoTopicTable {
  repo_id: number;
  name: string;
}

/** An account's membership of an organization (Gitea's org_user); `is_public` shows it to outsiders. */
export interface OrgUserTable {
  id: Generated<number>;
  org_id: number;
  account_id: number;
  is_public: Generated<Bool>;
}

/** A team of an organization; the one with authorize `owner` is the org's Owners team. */
export interface TeamTable {
  id: Generated<number>;
  org_id: number;
  name: string;
  lower_name: string;
  description: Generated<string>;
  /** none, read, write, admin or owner (Gitea's AccessMode). */
  authorize: string;
  includes_all_repositories: Generated<Bool>;
  can_create_org_repo: Generated<Bool>;
}

/** A repository unit a team reaches (`repo.code`, `repo.issues`…) and with which access mode. */
export interface TeamUnitTable {
  id: Generated<number>;
  team_id: number;
  unit: string;
  access_mode: string;
}

export interface TeamUserTable {
  id: Generated<number>;
  team_id: number;
  account_id: number;
}

export interface PublicKeyTable {
  id: Generated<number>;
  account_id: number;
  title: string;
  content: string;
  fingerprint: string;
  key_type: string;
  created_at: Time;
  last_used_at: Generated<Time | null>;
  /** The authentication source a sync copied the key from; null for a key the user added. */
  source_id: Generated<number | null>;
}

/** An address of a user besides the account's own, which is the primary one. */
export interface EmailAddressTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  lower_email: string;
  is_activated: Generated<Bool>;
  created_at: Time;
}

/** A repository transfer waiting for its recipient to accept or reject it. */
export interface RepoTransferTable {
  id: Generated<number>;
  repo_id: number;
  doer_id: number;
  recipient_id: number;
  /** Comma-separated ids of the recipient organization's teams to give the repository. */
  team_ids: Generated<string>;
  created_at: Time;
}

/** A repository's label (repo_id) or an organization's, usable on its repositories (org_id). */
export interface LabelTable {
  id: Generated<number>;
  repo_id: number | null;
  org_id: number | null;
  name: string;
  exclusive: Generated<Bool>;
  /** Six lowercase hex digits, without '#'. */
  color: string;
  description: Generated<string>;
  archived_at: Generated<Time | null>;
  created_at: Time;
  updated_at: Time;
}

export interface MilestoneTable {
  id: Generated<number>;
  repo_id: number;
  name: string;
  description: Generated<string>;
  is_closed: Generated<Bool>;
  num_issues: Generated<number>;
  num_closed_issues: Generated<number>;
  due_on: Generated<Time | null>;
  closed_at: Generated<Time | null>;
  created_at: Time;
  updated_at: Time;
}

/** An issue or a pull request; both take their `number` from the repository's counter. */
export interface IssueTable {
  id: Generated<number>;
  repo_id: number;
  number: number;
  poster_id: number;
  title: string;
  body: Generated<string>;
  ref: Generated<string>;
  is_pull: Generated<Bool>;
  is_closed: Generated<Bool>;
  is_locked: Generated<Bool>;
  milestone_id: Generated<number | null>;
  /** 0 when not pinned, else the position among the repository's pinned issues. */
  pin_order: Generated<number>;
  num_comments: Generated<number>;
  deadline: Generated<Time | null>;
  created_at: Time;
  updated_at: Time;
  closed_at: Generated<Time | null>;
}

export interface IssueLabelTable {
  issue_id: number;
  label_id: number;
}

export interface IssueAssigneeTable {
  issue_id: number;
  account_id: number;
}

/** Who follows an issue, or chose not to (Gitea's issue_watch). */
export interface IssueWatchTable {
  issue_id: number;
  account_id: number;
  is_watching: Bool;
  created_at: Time;
  updated_at: Time;
}

/** A comment (type 0) or a timeline event (Gitea's CommentType numbers) on an issue. */
export interface CommentTable {
  id: Generated<number>;
  issue_id: number;
  repo_id: number;
  poster_id: number;
  type: Generated<number>;
  body: Generated<string>;
  label_id: Generated<number | null>;
  milestone_id: Generated<number | null>;
  old_milestone_id: Generated<number | null>;
  assignee_id: Generated<number | null>;
  removed_assignee: Generated<Bool>;
  old_title: Generated<string>;
  new_title: Generated<string>;
  created_at: Time;
  updated_at: Time;
}

/** A reaction on an issue (comment_id 0) or on one of its comments. */
export interface ReactionTable {
  id: Generated<number>;
  issue_id: number;
  comment_id: Generated<number>;
  account_id: number;
  content: string;
  created_at: Time;
}

/**
 * A webhook of a repository (repo_id), of an account (owner_id: a user or an organization), or of
 * the site (neither; is_system: a system hook hearing every repository, else a default hook).
 */
export interface WebhookTable {
  id: Generated<number>;
  repo_id: number | null;
  owner_id: number | null;
  is_system: Generated<Bool>;
  type: string;
  url: string;
  content_type: string;
  http_method: string;
  secret: Generated<string>;
  /** The type's own settings (slack: channel, username, icon_url, color), as JSON. */
  meta: Generated<string>;
  /** The subscribed event names, as a JSON array. */
  events: string;
  branch_filter: Generated<string>;
  authorization_header: Generated<string>;
  active: Generated<Bool>;
  created_at: Time;
  updated_at: Time;
}

/** A branch protection rule (Gitea's protected_branch); the id lists are JSON arrays. */
export interface BranchProtectionTable {
  id: Generated<number>;
  repo_id: number;
  /** A branch name, or a glob over branch names. */
  rule_name: string;
  priority: Generated<number>;
  required_approvals: Generated<number>;
  protected_file_patterns: Generated<string>;
  unprotected_file_patterns: Generated<string>;
  can_push: Generated<Bool>;
  enable_whitelist: Generated<Bool>;
  whitelist_deploy_keys: Generated<Bool>;
  can_force_push: Generated<Bool>;
  enable_force_push_allowlist: Generated<Bool>;
  force_push_allowlist_deploy_keys: Generated<Bool>;
  enable_merge_whitelist: Generated<Bool>;
  enable_status_check: Generated<Bool>;
  enable_approvals_whitelist: Generated<Bool>;
  block_on_rejected_reviews: Generated<Bool>;
  block_on_official_review_requests: Generated<Bool>;
  block_on_outdated_branch: Generated<Bool>;
  dismiss_stale_approvals: Generated<Bool>;
  ignore_stale_approvals: Generated<Bool>;
  require_signed_commits: Generated<Bool>;
  block_admin_merge_override: Generated<Bool>;
  whitelist_user_ids: Generated<string>;
  whitelist_team_ids: Generated<string>;
  force_push_allowlist_user_ids: Generated<string>;
  force_push_allowlist_team_ids: Generated<string>;
  merge_whitelist_user_ids: Generated<string>;
  merge_whitelist_team_ids: Generated<string>;
  approvals_whitelist_user_ids: Generated<string>;
  approvals_whitelist_team_ids: Generated<string>;
  status_check_contexts: Generated<string>;
  created_at: Time;
  updated_at: Time;
}

/** A status a client reported on a commit (Gitea's CommitStatus); `index` numbers those of one commit. */
export interface CommitStatusTable {
  id: Generated<number>;
  repo_id: number;
  index: number;
  sha: string;
  state: string;
  target_url: Generated<string>;
  description: Generated<string>;
  context: Generated<string>;
  context_hash: string;
  creator_id: number | null;
  created_at: Time;
  updated_at: Time;
}

/** The last index given to the statuses of one commit. */
export interface CommitStatusIndexTable {
  repo_id: number;
  sha: string;
  max_index: number;
}

/** A release of a tag (Gitea's release); drafts may name a tag not created yet. */
export interface ReleaseTable {
  id: Generated<number>;
  repo_id: number;
  publisher_id: number | null;
  tag_name: string;
  lower_tag_name: string;
  target: string;
  title: Generated<string>;
  note: Generated<string>;
  sha1: Generated<string>;
  is_draft: Generated<Bool>;
  is_prerelease: Generated<Bool>;
  created_at: Time;
}

/** A file attached to a release, stored under the data directory by its uuid. */
export interface AttachmentTable {
  id: Generated<number>;
  uuid: string;
  repo_id: number;
  release_id: number | null;
  uploader_id: number | null;
  name: string;
  size: number;
  download_count: Generated<number>;
  created_at: Time;
}

/** The pull side of an issue row whose is_pull is set (see migration 0015). */
export interface PullRequestTable {
  id: Generated<number>;
  issue_id: number;
  base_repo_id: number;
  head_repo_id: number | null;
  head_branch: string;
  base_branch: string;
  merge_base: Generated<string>;
  head_commit_id: Generated<string>;
  status: Generated<string>;
  conflicted_files: Generated<string>;
  check_version: Generated<number>;
  pusher_id: Generated<number | null>;
  has_merged: Generated<Bool>;
  merged_by_id: Generated<number | null>;
  merged_at: Generated<Time | null>;
  merge_commit_sha: Generated<string | null>;
  allow_maintainer_edit: Generated<Bool>;
}

/** A review of a pull, or a request for one (type 4), as Gitea keeps both. */
export interface ReviewTable {
  id: Generated<number>;
  issue_id: number;
  reviewer_id: number;
  type: number;
  body: Generated<string>;
  commit_id: Generated<string>;
  official: Generated<Bool>;
  stale: Generated<Bool>;
  dismissed: Generated<Bool>;
  created_at: Time;
  updated_at: Time;
}

export interface ReviewCommentTable {
  id: Generated<number>;
  review_id: number;
  issue_id: number;
  poster_id: number;
  path: string;
  body: string;
  line: number;
  commit_id: Generated<string>;
  created_at: Time;
  updated_at: Time;
}

/** A directory whose users sign in with its passwords (Gitea's login_source). */
export interface AuthSourceTable {
  id: Generated<number>;
  type: number;
  name: string;
  is_active: Generated<Bool>;
  is_sync_enabled: Generated<Bool>;
  config: string;
  synced_at: Generated<Time | null>;
  created_at: Time;
  updated_at: Time;
}

export interface EncryptionKeyTable {
  name: string;
  key: string;
}

export interface ForgeTables {
  account: AccountTable;
  access_token: AccessTokenTable;
  repository: RepositoryTable;
  collaboration: CollaborationTable;
  repo_topic: RepoTopicTable;
  team_repo: TeamRepoTable;
  public_key: PublicKeyTable;
  org_user: OrgUserTable;
  team: TeamTable;
  team_unit: TeamUnitTable;
  team_user: TeamUserTable;
  email_address: EmailAddressTable;
  repo_transfer: RepoTransferTable;
  label: LabelTable;
  milestone: MilestoneTable;
  issue: IssueTable;
  issue_label: IssueLabelTable;
  issue_assignee: IssueAssigneeTable;
  issue_watch: IssueWatchTable;
  comment: CommentTable;
  reaction: ReactionTable;
  webhook: WebhookTable;
  branch_protection: BranchProtectionTable;
  commit_status: CommitStatusTable;
  commit_status_index: CommitStatusIndexTable;
  release: ReleaseTable;
  attachment: AttachmentTable;
  pull_request: PullRequestTable;
  review: ReviewTable;
  review_comment: ReviewCommentTable;
  auth_source: AuthSourceTable;
  encryption_keys: EncryptionKeyTable;
}

export const ACCOUNT_USER = 0;
export const ACCOUNT_ORGANIZATION = 1;
