import type { Commit, LastCommit, ResolvedRef, TreeEntry } from "../git/index.ts";
import { NOT_SIGNED } from "./commit.ts";
import { link } from "./link.ts";

// Gitea's ContentsResponse, FileResponse and FilesResponse. Where Go sends a nil *string (content
// of a directory, target of a file, download_url of a directory…) the answer holds null.

const SYMLINK = "120000";
const SUBMODULE = "160000";

/** Each path segment escaped, the slashes kept (Gitea's PathEscapeSegments). */
export function escapeSegments(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

export function contentType(entry: TreeEntry): "file" | "dir" | "symlink" | "submodule" {
  if (entry.type === "tree") return "dir";
  if (entry.mode === SUBMODULE) return "submodule";
  if (entry.mode === SYMLINK) return "symlink";
  return "file";
}

/** Gitea's RefWebLinkPath: `branch/main`, `tag/v1`, `commit/<id>`. */
function refWebLinkPath(ref: ResolvedRef): string {
  return `${ref.kind}/${escapeSegments(ref.name)}`;
}

export interface ContentsContext {
  fullName: string;
  rootUrl: URL;
  ref: ResolvedRef;
}

export interface ContentsExtras {
  /** A file's bytes, sent base64 (only for a file asked for by itself, and not too large). */
  content?: Buffer;
  /** A symlink's target. */
  target?: string;
  lastCommit?: LastCommit;
  /** contents-ext's `commit_message`. */
  lastCommitMessage?: string;
  submoduleUrl?: string;
}

function utc(date: string): string {
  return new Date(date).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function toContentsResponse(entry: TreeEntry, context: ContentsContext, extras: ContentsExtras = {}) {
  const { fullName, rootUrl, ref } = context;
  const type = contentType(entry);
  const escaped = escapeSegments(entry.path);
  const self = link(
    rootUrl,
    `api/v1/repos/${fullName}/contents/${escaped}?ref=${encodeURIComponent(ref.name)}`,
  );
  const html =
    type === "submodule" ? null : link(rootUrl, `${fullName}/src/${refWebLinkPath(ref)}/${escaped}`);
  const git = type === "submodule" ? null : link(rootUrl, `api/v1/repos/${fullName}/git/blobs/${entry.id}`);
  const download =
    type === "file" || type === "symlink"
      ? link(rootUrl, `${fullName}/raw/${refWebLinkPath(ref)}/${escaped}`)
      : null;
  return {
    name: entry.path.slice(entry.path.lastIndexOf("/") + 1),
    path: entry.path,
    sha: entry.id,
    ...(extras.lastCommit
      ? {
          last_commit_sha: extras.lastCommit.id,
          last_author_date: utc(extras.lastCommit.authorDate),
          last_committer_date: utc(extras.lastCommit.committerDate),
        }
      : {}),
    ...(extras.lastCommitMessage === undefined ? {} : { last_commit_message: extras.lastCommitMessage }),
    type,
    size: entry.size,
    encoding: extras.content ? "base64" : null,
    content: extras.content ? extras.content.toString("base64") : null,
    target: extras.target ?? null,
    url: self,
    html_url: html,
    git_url: git,
    download_url: download,
    submodule_git_url: type === "submodule" ? (extras.submoduleUrl ?? null) : null,
    _links: { self, git, html },
  };
}

/** Gitea's FileCommitResponse of the commit a change made. */
export function toFileCommitResponse(commit: Commit, fullName: string, rootUrl: URL) {
  const api = (rest: string) => link(rootUrl, `api/v1/repos/${fullName}/${rest}`);
  return {
    url: api(`git/commits/${commit.id}`),
    sha: commit.id,
    html_url: link(rootUrl, `${fullName}/commit/${commit.id}`),
    author: { name: commit.author.name, email: commit.author.email, date: utc(commit.author.date) },
    committer: {
      name: commit.committer.name,
      email: commit.committer.email,
      date: utc(commit.committer.date),
    },
    parents: commit.parents.map((sha) => ({ url: api(`git/commits/${sha}`), sha })),
    message: commit.message,
    tree: { url: api(`git/trees/${commit.tree}`), sha: commit.tree },
  };
}

export const COMMIT_VERIFICATION = { ...NOT_SIGNED, signer: null };
