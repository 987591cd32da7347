import { readBool } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import type { AttachmentRow, ReleaseRow } from "../repositories/releases.ts";
import { link } from "./link.ts";
import { apiTime } from "./time.ts";
import { toApiUser } from "./user.ts";

// Releases and their attachments as Gitea's ToAPIRelease and ToAPIAttachment render them.

/** Gitea's ghost user, standing for the deleted account that published a release. */
const GHOST: AccountRow = {
  id: -1,
  type: 0,
  name: "Ghost",
  lower_name: "ghost",
  full_name: "",
  email: "",
  lower_email: "",
  password_hash: "",
  login_name: "",
  source_id: 0,
  is_admin: false,
  is_active: false,
  prohibit_login: false,
  restricted: false,
  must_change_password: false,
  visibility: "public",
  description: "",
  website: "",
  location: "",
  max_repo_creation: -1,
  allow_create_organization: false,
  repo_admin_change_team_access: false,
  created_at: "1970-01-01T00:00:00.000Z",
  updated_at: "1970-01-01T00:00:00.000Z",
  last_login_at: null,
};

/** Each `/`-separated segment escaped, as Gitea's PathEscapeSegments does for tag names. */
function escapeSegments(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** Where an attachment downloads: ROOT_URL + attachments/<uuid>, as the forge spec says Gitea answers. */
export function attachmentDownloadUrl(rootUrl: URL, attachment: AttachmentRow): string {
  return link(rootUrl, `attachments/${attachment.uuid}`);
}

export function toApiAttachment(attachment: AttachmentRow, rootUrl: URL) {
  return {
    id: attachment.id,
    name: attachment.name,
    size: attachment.size,
    download_count: attachment.download_count,
    created_at: apiTime(attachment.created_at),
    uuid: attachment.uuid,
    browser_download_url: attachmentDownloadUrl(rootUrl, attachment),
  };
}

export interface ReleaseSite {
  rootUrl: URL;
  /** `owner/name` of the repository. */
  fullName: string;
}

export function toApiRelease(
  release: ReleaseRow,
  publisher: AccountRow | undefined,
  attachments: readonly AttachmentRow[],
  site: ReleaseSite,
) {
  const repoPath = site.fullName.split("/").map(encodeURIComponent).join("/");
  const htmlRepo = link(site.rootUrl, repoPath);
  const tag = escapeSegments(release.tag_name);
  const apiUrl = link(site.rootUrl, `api/v1/repos/${repoPath}/releases/${release.id}`);
  const created = apiTime(release.created_at);
  return {
    id: release.id,
    tag_name: release.tag_name,
    target_commitish: release.target,
    name: release.title,
    body: release.note,
    url: apiUrl,
    html_url: `${htmlRepo}/releases/tag/${tag}`,
    tarball_url: `${htmlRepo}/archive/${tag}.tar.gz`,
    zipball_url: `${htmlRepo}/archive/${tag}.zip`,
    upload_url: `${apiUrl}/assets`,
    draft: readBool(release.is_draft),
    prerelease: readBool(release.is_prerelease),
    created_at: created,
    published_at: created,
    author: toApiUser(publisher ?? GHOST, undefined, site.rootUrl),
    assets: attachments.map((attachment) => toApiAttachment(attachment, site.rootUrl)),
  };
}
