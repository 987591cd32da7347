import type { Branch, Commit, CommitChanges, Signature } from "../git/index.ts";
import { link } from "./link.ts";
import type { ApiUser } from "./user.ts";

// Commits and branches as Gitea shows them. A commit's author and committer are the forge users
// with those e-mail addresses, when there are any; nothing is signed.

export const NOT_SIGNED = {
  verified: false,
  reason: "gpg.error.not_signed_commit",
  signature: "",
  payload: "",
};

function repoApiUrl(rootUrl: URL, fullName: string, rest: string): string {
  return link(rootUrl, `api/v1/repos/${fullName}/${rest}`);
}

function payloadUser(signature: Signature, usernameOf: (email: string) => string) {
  return { name: signature.name, email: signature.email, username: usernameOf(signature.email) };
}

/** Which files a commit added, removed and modified (webhook payloads list them; branches do not). */
export interface FileChanges {
  added: string[];
  removed: string[];
  modified: string[];
}

const NO_FILE_CHANGES: FileChanges = { added: [], removed: [], modified: [] };

/**
 * A commit as Gitea's PayloadCommit (a branch's head, a pushed commit): its author and committer
 * are PayloadUsers, whose username is that of the forge user with their e-mail address
 * (`usernameOf`), or empty.
 */
export function toPayloadCommit(
  commit: Commit,
  fullName: string,
  rootUrl: URL,
  usernameOf: (email: string) => string,
  files: FileChanges = NO_FILE_CHANGES,
) {
  return {
    id: commit.id,
    message: commit.message,
    url: link(rootUrl, `${fullName}/commit/${commit.id}`),
    author: payloadUser(commit.author, usernameOf),
    committer: payloadUser(commit.committer, usernameOf),
    verification: NOT_SIGNED,
    timestamp: commit.committer.date,
    added: files.added,
    removed: files.removed,
    modified: files.modified,
  };
}

/**
 * A branch as Gitea shows it, its head commit a PayloadCommit (see toPayloadCommit), with what its
 * protection rule means for the caller (services/branch-protection.ts, branchProtectionView).
 */
export function toApiBranch(
  branch: Branch,
  fullName: string,
  rootUrl: URL,
  protection: {
    protected: boolean;
    required_approvals: number;
    enable_status_check: boolean;
    status_check_contexts: string[];
    user_can_push: boolean;
    user_can_merge: boolean;
    effective_branch_protection_name: string;
  },
  usernameOf: (email: string) => string,
) {
  return {
    name: branch.name,
    commit: toPayloadCommit(branch.commit, fullName, rootUrl, usernameOf),
    ...protection,
  };
}

/** What a commit answer includes besides the commit (Gitea's `stat`, `files`, `verification`). */
export interface CommitDetails {
  /** The changes, when `stat` or `files` was asked for. */
  changes?: CommitChanges;
  stat: boolean;
  files: boolean;
  verification: boolean;
}

const NO_DETAILS: CommitDetails = { stat: false, files: false, verification: true };

// Gitea's names of git's status letters; every other change (a type change) is a modification.
const FILE_STATUS: Readonly<Record<string, string>> = { A: "added", D: "removed" };

function affectedFiles(changes: CommitChanges | undefined) {
  return (changes?.files ?? [])
    .map((file) => ({ filename: file.path, status: FILE_STATUS[file.status] ?? "modified" }))
    .sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
}

export function toApiCommit(
  commit: Commit,
  fullName: string,
  rootUrl: URL,
  users: { author?: ApiUser; committer?: ApiUser },
  details: CommitDetails = NO_DETAILS,
) {
  const additions = details.changes?.additions ?? 0;
  const deletions = details.changes?.deletions ?? 0;
  return {
    url: repoApiUrl(rootUrl, fullName, `git/commits/${commit.id}`),
    sha: commit.id,
    created: commit.committer.date,
    html_url: link(rootUrl, `${fullName}/commit/${commit.id}`),
    commit: {
      url: repoApiUrl(rootUrl, fullName, `git/commits/${commit.id}`),
      author: commit.author,
      committer: commit.committer,
      message: commit.message,
      tree: {
        url: repoApiUrl(rootUrl, fullName, `git/trees/${commit.tree}`),
        sha: commit.tree,
        created: commit.committer.date,
      },
      verification: details.verification ? NOT_SIGNED : null,
    },
    ...(users.author ? { author: users.author } : {}),
    ...(users.committer ? { committer: users.committer } : {}),
    parents: commit.parents.map((sha) => ({ url: repoApiUrl(rootUrl, fullName, `git/commits/${sha}`), sha })),
    ...(details.files ? { files: affectedFiles(details.changes) } : {}),
    ...(details.stat ? { stats: { total: additions + deletions, additions, deletions } } : {}),
  };
}
