import type { Readable } from "node:stream";
import { BadRequest, Invalid, isForeignKeyViolation, NotFound, toStoredTime } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import { findAccountById } from "../repositories/accounts.ts";
import {
  type AttachmentRow,
  countDownload,
  deleteAttachmentRow,
  findAttachmentByUuid,
  findReleaseAttachment,
  findReleaseAttachmentNamed,
  findReleaseById,
  findReleaseByTag,
  insertAttachment,
  type ReleaseRow,
  renameAttachment,
} from "../repositories/releases.ts";
import { findRepository, findRepositoryById } from "../repositories/repos.ts";
import { ACCESS_READ, ACCESS_WRITE, accessTo, canSee, repositoryPermission } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import {
  type AttachmentSettings,
  attachmentPath,
  attachmentRoot,
  discardFile,
  isAttachmentUuid,
  placeFile,
  receiveFile,
  removeFiles,
} from "./attachment-files.ts";
import { getRelease } from "./releases.ts";
import { type RepositoryContext, requireUnit, type Storage } from "./repositories.ts";

// Files attached to releases: uploaded and managed by the releases unit's writers, listed and
// downloaded by its readers (a draft's only by writers).

const MEGABYTE = 1024 * 1024;
const MAX_NAME_LENGTH = 255;
const NO_NAME = "Could not determine name of attachment.";

/**
 * The name an attachment is shown and downloaded under: what follows the last `/` or `\` (a client
 * path reduced to its file name, as Go's multipart reader does), refused (400) when nothing usable
 * is left or it holds control characters. It never becomes a path: files go by uuid.
 */
export function attachmentName(given: string): string {
  const name = given.slice(Math.max(given.lastIndexOf("/"), given.lastIndexOf("\\")) + 1).trim();
  if (name === "" || name === "." || name === ".." || name.length > MAX_NAME_LENGTH)
    throw new BadRequest(NO_NAME);
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) throw new BadRequest(NO_NAME);
  }
  return name;
}

/**
 * Gitea's upload.Verify on what the client says: an allowed extension of the name (`.zip`), or an
 * allowed MIME type (`image/png`, `image/*`); an empty list allows every type.
 */
function typeAllowed(name: string, contentType: string, allowedTypes: string): boolean {
  const allowed = allowedTypes
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== "");
  if (allowed.length === 0 || allowed.includes("*/*")) return true;
  const lowerName = name.toLowerCase();
  const mime = contentType.split(";")[0].trim().toLowerCase();
  return allowed.some((entry) => {
    if (entry.startsWith(".")) return lowerName.endsWith(entry);
    if (entry.endsWith("/*")) return mime.startsWith(entry.slice(0, -1));
    return mime === entry;
  });
}

function forbiddenType(contentType: string): BadRequest {
  const shown = contentType.split(";")[0].trim() || "application/octet-stream";
  return new BadRequest(`This file extension or type is not allowed to be uploaded. Type: ${shown}`);
}

/**
 * The release an upload goes to, checked before its body is read: attachments enabled (404
 * otherwise, as Gitea), a writer of the releases unit, a release the caller sees.
 */
export async function releaseForUpload(
  database: ForgeDatabase,
  found: RepositoryContext,
  id: number,
  settings: AttachmentSettings,
): Promise<ReleaseRow> {
  if (!settings.enabled) throw new NotFound("attachments are disabled");
  requireUnit(found, "repo.releases", ACCESS_WRITE);
  return getRelease(database, found, id);
}

export interface AttachmentUpload {
  /** The client's file name (or `?name=`); reduced by attachmentName. */
  name: string;
  contentType: string;
  content: Readable;
}

/**
 * Streams the upload to disk within the size limit, then writes its row and moves the file into
 * place in one transaction; on any failure the file is removed, so no file outlives a missing row.
 */
export async function storeReleaseAttachment(
  database: ForgeDatabase,
  storage: Storage,
  release: ReleaseRow,
  doer: AccountRow,
  upload: AttachmentUpload,
  settings: AttachmentSettings,
): Promise<AttachmentRow> {
  const name = attachmentName(upload.name);
  if (!typeAllowed(name, upload.contentType, settings.allowedTypes)) throw forbiddenType(upload.contentType);
  const root = attachmentRoot(storage);
  const file = await receiveFile(root, upload.content, settings.maxSize * MEGABYTE);
  try {
    return await database.db.transaction().execute(async (trx) => {
      const row = await insertAttachment(trx, {
        uuid: file.uuid,
        repo_id: release.repo_id,
        release_id: release.id,
        uploader_id: doer.id,
        name,
        size: file.size,
        created_at: toStoredTime(new Date(), database.dialect),
      });
      await placeFile(root, file);
      return row;
    });
  } catch (error) {
    await discardFile(root, file);
    // The release was deleted while its file arrived.
    if (isForeignKeyViolation(error)) throw new NotFound("release does not exist");
    throw error;
  }
}

export async function getReleaseAttachment(
  database: ForgeDatabase,
  release: ReleaseRow,
  id: number,
): Promise<AttachmentRow> {
  const attachment = await findReleaseAttachment(database.db, release.id, id);
  if (!attachment) throw new NotFound(`attachment does not exist [id: ${id}]`);
  return attachment;
}

export async function editReleaseAttachment(
  database: ForgeDatabase,
  found: RepositoryContext,
  release: ReleaseRow,
  id: number,
  edit: { name?: string },
  settings: AttachmentSettings,
): Promise<AttachmentRow> {
  requireUnit(found, "repo.releases", ACCESS_WRITE);
  const attachment = await getReleaseAttachment(database, release, id);
  if (!edit.name) return attachment;
  const name = attachmentName(edit.name);
  if (!typeAllowed(name, "", settings.allowedTypes)) throw new Invalid(forbiddenType("").message);
  return (await renameAttachment(database.db, attachment.id, name)) ?? attachment;
}

export async function deleteReleaseAttachment(
  database: ForgeDatabase,
  storage: Storage,
  found: RepositoryContext,
  release: ReleaseRow,
  id: number,
): Promise<void> {
  requireUnit(found, "repo.releases", ACCESS_WRITE);
  const attachment = await getReleaseAttachment(database, release, id);
  await deleteAttachmentRow(database.db, attachment.id);
  await removeFiles(attachmentRoot(storage), [attachment.uuid]);
}

/** An attachment to download: its row and where its file is. */
export interface Download {
  attachment: AttachmentRow;
  path: string;
}

/**
 * Whether `viewer` may download from this release: the repository visible to them, its releases
 * unit readable, and a draft's files only for writers. A 404 for anything else, as Gitea.
 */
async function downloadable(
  database: ForgeDatabase,
  storage: Storage,
  release: ReleaseRow | undefined,
  attachment: AttachmentRow | undefined,
  viewer: AccountRow | undefined,
): Promise<Download> {
  const repository = release && (await findRepositoryById(database.db, release.repo_id));
  const owner = repository && (await findAccountById(database.db, repository.owner_id));
  const permission = owner && repository && (await repositoryPermission(database, repository, owner, viewer));
  const needed = release?.is_draft ? ACCESS_WRITE : ACCESS_READ;
  if (!attachment || !permission || !canSee(permission) || accessTo(permission, "repo.releases") < needed)
    throw new NotFound("attachment does not exist");
  return { attachment, path: attachmentPath(attachmentRoot(storage), attachment.uuid) };
}

/** GET /attachments/{uuid}. */
export async function attachmentByUuid(
  database: ForgeDatabase,
  storage: Storage,
  uuid: string,
  viewer: AccountRow | undefined,
): Promise<Download> {
  const attachment = isAttachmentUuid(uuid) ? await findAttachmentByUuid(database.db, uuid) : undefined;
  const release =
    attachment?.release_id == null
      ? undefined
      : await findReleaseById(database.db, attachment.repo_id, attachment.release_id);
  return downloadable(database, storage, release, attachment, viewer);
}

/** GET /{owner}/{repo}/releases/download/{tag}/{name}. */
export async function attachmentByTagAndName(
  database: ForgeDatabase,
  storage: Storage,
  where: { owner: AccountRow | undefined; repo: string; tag: string; name: string },
  viewer: AccountRow | undefined,
): Promise<Download> {
  const repository = where.owner && (await findRepository(database.db, where.owner.id, where.repo));
  const release = repository && (await findReleaseByTag(database.db, repository.id, where.tag));
  const attachment = release && (await findReleaseAttachmentNamed(database.db, release.id, where.name));
  return downloadable(database, storage, release, attachment, viewer);
}

export function noteDownload(database: ForgeDatabase, attachment: AttachmentRow): Promise<void> {
  return countDownload(database.db, attachment.id);
}
