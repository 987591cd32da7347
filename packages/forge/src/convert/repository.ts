import { readBool } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import type { RepositoryRow } from "../repositories/repos.ts";
import {
  ACCESS_ADMIN,
  ACCESS_READ,
  ACCESS_WRITE,
  accessTo,
  canSee,
  type Permission,
} from "../services/access.ts";
import { link } from "./link.ts";
import { apiTime, ZERO_TIME } from "./time.ts";
import { toApiRepositoryOwner } from "./user.ts";

/** How clients reach the forge: the root URL for HTTP, and the SSH host and port when SSH is on. */
export interface CloneUrls {
  rootUrl: URL;
  ssh?: { host: string; port: number };
}

function sshUrl(ssh: CloneUrls["ssh"], owner: string, name: string): string {
  if (!ssh) return "";
  // The scp-like form when the port is the default, as Gitea writes it.
  return ssh.port === 22
    ? `git@${ssh.host}:${owner}/${name}.git`
    : `ssh://git@${ssh.host}:${ssh.port}/${owner}/${name}.git`;
}

export function toApiRepository(
  repository: RepositoryRow,
  owner: AccountRow,
  viewer: AccountRow | undefined,
  permission: Permission,
  urls: CloneUrls,
  topics: string[],
  /** The parent of a fork, rendered, when it exists and the viewer may see it. */
  parent: object | null = null,
) {
  const fullName = `${owner.name}/${repository.name}`;
  const htmlUrl = link(urls.rootUrl, fullName.split("/").map(encodeURIComponent).join("/"));
  return {
    id: repository.id,
    owner: toApiRepositoryOwner(owner, viewer, canSee(permission), urls.rootUrl),
    name: repository.name,
    full_name: fullName,
    description: repository.description,
    empty: readBool(repository.is_empty),
    private: readBool(repository.is_private),
    fork: readBool(repository.is_fork),
    parent,
    template: readBool(repository.is_template),
    mirror: false,
    size: 0,
    language: "",
    languages_url: link(urls.rootUrl, `api/v1/repos/${fullName}/languages`),
    html_url: htmlUrl,
    url: link(urls.rootUrl, `api/v1/repos/${fullName}`),
    link: "",
    ssh_url: sshUrl(urls.ssh, owner.name, repository.name),
    clone_url: `${htmlUrl}.git`,
    original_url: "",
    website: repository.website,
    stars_count: 0,
    forks_count: repository.num_forks,
    watchers_count: 0,
    open_issues_count: repository.num_issues - repository.num_closed_issues,
    open_pr_counter: repository.num_pulls - repository.num_closed_pulls,
    release_counter: repository.num_releases,
    default_branch: repository.default_branch,
    archived: readBool(repository.is_archived),
    created_at: apiTime(repository.created_at),
    updated_at: apiTime(repository.updated_at),
    archived_at: ZERO_TIME,
    // As Gitea: admin over the whole repository, push and pull on its code.
    permissions: {
      admin: permission.mode >= ACCESS_ADMIN,
      push: accessTo(permission, "repo.code") >= ACCESS_WRITE,
      pull: accessTo(permission, "repo.code") >= ACCESS_READ,
    },
    has_code: true,
    has_issues: true,
    internal_tracker: {
      enable_time_tracker: false,
      allow_only_contributors_to_track_time: true,
      enable_issue_dependencies: true,
    },
    has_wiki: false,
    has_pull_requests: true,
    has_projects: false,
    projects_mode: "all",
    has_releases: true,
    has_packages: false,
    has_actions: false,
    ignore_whitespace_conflicts: false,
    allow_merge_commits: true,
    allow_rebase: true,
    allow_rebase_explicit: true,
    allow_squash_merge: true,
    allow_fast_forward_only_merge: true,
    allow_rebase_update: true,
    allow_manual_merge: false,
    autodetect_manual_merge: false,
    default_delete_branch_after_merge: false,
    default_merge_style: "merge",
    default_allow_maintainer_edit: false,
    avatar_url: "",
    internal: false,
    mirror_interval: "",
    object_format_name: "sha1",
    mirror_updated: ZERO_TIME,
    topics,
    licenses: [],
  };
}
