import type { AnnotatedTag, Blob, Reference, TreePage } from "../git/index.ts";
import { NOT_SIGNED } from "./commit.ts";
import { link } from "./link.ts";

// The Git data API's objects as Gitea shows them: refs, trees, blobs and annotated tags.

function gitApiUrl(rootUrl: URL, fullName: string, rest: string): string {
  return link(rootUrl, `api/v1/repos/${fullName}/git/${rest}`);
}

/** A ref name in a URL path: each segment escaped, the slashes kept (Gitea's PathEscapeSegments). */
function escapeSegments(name: string): string {
  return name.split("/").map(encodeURIComponent).join("/");
}

export function toApiReference(reference: Reference, fullName: string, rootUrl: URL) {
  return {
    ref: reference.name,
    url: gitApiUrl(rootUrl, fullName, escapeSegments(reference.name)),
    object: {
      type: reference.type,
      sha: reference.id,
      url: gitApiUrl(rootUrl, fullName, `${reference.type}s/${reference.id}`),
    },
  };
}

/** A page of a tree as Gitea's GitTreeResponse; a page past the end has no entries (null, as Go sends them). */
export function toApiTree(
  page: TreePage,
  fullName: string,
  rootUrl: URL,
  pageNumber: number,
  perPage: number,
) {
  const end = (pageNumber - 1) * perPage + page.entries.length;
  return {
    sha: page.id,
    url: gitApiUrl(rootUrl, fullName, `trees/${page.id}`),
    tree:
      page.entries.length === 0
        ? null
        : page.entries.map((entry) => ({
            path: entry.path,
            mode: entry.mode,
            type: entry.type,
            size: entry.size,
            sha: entry.id,
            // A submodule's commit is in another repository: no URL, as GitHub and Gitea answer.
            url:
              entry.type === "tree"
                ? gitApiUrl(rootUrl, fullName, `trees/${entry.id}`)
                : entry.type === "blob"
                  ? gitApiUrl(rootUrl, fullName, `blobs/${entry.id}`)
                  : "",
          })),
    truncated: page.entries.length > 0 && end < page.total,
    page: pageNumber,
    total_count: page.total,
  };
}

/** A blob as Gitea's GitBlobResponse: base64 content, or none (null) past the size limit. */
export function toApiBlob(blob: Blob, fullName: string, rootUrl: URL) {
  return {
    content: blob.content ? blob.content.toString("base64") : null,
    encoding: blob.content ? "base64" : null,
    url: gitApiUrl(rootUrl, fullName, `blobs/${blob.id}`),
    sha: blob.id,
    size: blob.size,
  };
}

export function toApiAnnotatedTag(tag: AnnotatedTag, fullName: string, rootUrl: URL) {
  return {
    tag: tag.name,
    sha: tag.id,
    url: gitApiUrl(rootUrl, fullName, `tags/${tag.id}`),
    message: tag.message,
    tagger: tag.tagger,
    object: { type: "commit", url: gitApiUrl(rootUrl, fullName, `commits/${tag.commit}`), sha: tag.commit },
    verification: NOT_SIGNED,
  };
}
