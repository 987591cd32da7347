import type { Tag } from "../git/index.ts";
import { link } from "./link.ts";

/**
 * A tag as Gitea's Tag: its message trimmed, `id` the tag object's (a lightweight tag's commit's),
 * `commit` the commit it points at with the tagging (or commit) time, and the archive links.
 */
export function toApiTag(tag: Tag, fullName: string, rootUrl: URL) {
  const archive = `${fullName}/archive/${encodeURIComponent(tag.name)}`;
  return {
    name: tag.name,
    message: tag.message.trim(),
    id: tag.id,
    commit: {
      sha: tag.objectId,
      url: link(rootUrl, `api/v1/repos/${fullName}/git/commits/${tag.objectId}`),
      created: tag.created,
    },
    zipball_url: link(rootUrl, `${archive}.zip`),
    tarball_url: link(rootUrl, `${archive}.tar.gz`),
  };
}
