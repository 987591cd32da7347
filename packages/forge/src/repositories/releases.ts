import { countRows, type DialectName, forUpdate } from "@anvil/core";
import type { Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { AttachmentTable, ForgeTables, ReleaseTable } from "../schemas/tables.ts";

export type ReleaseRow = Selectable<ReleaseTable>;
export type AttachmentRow = Selectable<AttachmentTable>;

export function insertRelease(
  db: Kysely<ForgeTables>,
  release: Insertable<ReleaseTable>,
): Promise<ReleaseRow> {
  return db.insertInto("release").values(release).returningAll().executeTakeFirstOrThrow();
}

export function updateRelease(
  db: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<ReleaseTable>,
): Promise<ReleaseRow | undefined> {
  return db.updateTable("release").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
}

/**
 * Deletes the release (its attachments' rows go with it) and answers the uuids of their files;
 * undefined when it was already gone.
 */
export async function deleteReleaseRow(db: Kysely<ForgeTables>, id: number): Promise<string[] | undefined> {
  const files = await db.selectFrom("attachment").select("uuid").where("release_id", "=", id).execute();
  const result = await db.deleteFrom("release").where("id", "=", id).executeTakeFirst();
  return result.numDeletedRows > 0n ? files.map((file) => file.uuid) : undefined;
}

/** The release as it is now, locked until the transaction ends (PostgreSQL; SQLite's writer lock). */
export function lockRelease(
  db: Kysely<ForgeTables>,
  dialect: DialectName,
  id: number,
): Promise<ReleaseRow | undefined> {
  return db
    .selectFrom("release")
    .selectAll()
    .where("id", "=", id)
    .$call(forUpdate(dialect))
    .executeTakeFirst();
}

export function findReleaseById(
  db: Kysely<ForgeTables>,
  repoId: number,
  id: number,
): Promise<ReleaseRow | undefined> {
  return db
    .selectFrom("release")
    .selectAll()
    .where("repo_id", "=", repoId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export function findReleaseByTag(
  db: Kysely<ForgeTables>,
  repoId: number,
  tag: string,
): Promise<ReleaseRow | undefined> {
  return db
    .selectFrom("release")
    .selectAll()
    .where("repo_id", "=", repoId)
    .where("tag_name", "=", tag)
    .executeTakeFirst();
}

/** The newest published release that is no prerelease (Gitea's latest). */
export function findLatestRelease(db: Kysely<ForgeTables>, repoId: number): Promise<ReleaseRow | undefined> {
  return db
    .selectFrom("release")
    .selectAll()
    .where("repo_id", "=", repoId)
    .where("is_draft", "=", false)
    .where("is_prerelease", "=", false)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

export interface ReleaseQuery {
  repoId: number;
  /** Whether drafts may be listed at all (writers only); `draft` narrows further. */
  withDrafts: boolean;
  draft?: boolean;
  prerelease?: boolean;
  offset: number;
  limit: number;
}

/** A page of a repository's releases, newest first, as Gitea orders them. */
export async function listReleases(
  db: Kysely<ForgeTables>,
  query: ReleaseQuery,
): Promise<{ rows: ReleaseRow[]; total: number }> {
  let selection = db.selectFrom("release").selectAll().where("repo_id", "=", query.repoId);
  if (!query.withDrafts) selection = selection.where("is_draft", "=", false);
  if (query.draft !== undefined) selection = selection.where("is_draft", "=", query.draft);
  if (query.prerelease !== undefined) selection = selection.where("is_prerelease", "=", query.prerelease);
  const [rows, total] = await Promise.all([
    selection
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

/** Moves the repository's count of published releases by `delta`. */
export async function countRelease(db: Kysely<ForgeTables>, repoId: number, delta: number): Promise<void> {
  if (delta === 0) return;
  await db
    .updateTable("repository")
    .set((eb) => ({ num_releases: eb("num_releases", "+", delta) }))
    .where("id", "=", repoId)
    .execute();
}

export function insertAttachment(
  db: Kysely<ForgeTables>,
  attachment: Insertable<AttachmentTable>,
): Promise<AttachmentRow> {
  return db.insertInto("attachment").values(attachment).returningAll().executeTakeFirstOrThrow();
}

/** The attachments of these releases, by release id, in upload order. */
export async function attachmentsOf(
  db: Kysely<ForgeTables>,
  releaseIds: readonly number[],
): Promise<Map<number, AttachmentRow[]>> {
  const byRelease = new Map<number, AttachmentRow[]>(releaseIds.map((id) => [id, []]));
  if (releaseIds.length === 0) return byRelease;
  const rows = await db
    .selectFrom("attachment")
    .selectAll()
    .where("release_id", "in", releaseIds)
    .orderBy("id")
    .execute();
  for (const row of rows) if (row.release_id !== null) byRelease.get(row.release_id)?.push(row);
  return byRelease;
}

export function findReleaseAttachment(
  db: Kysely<ForgeTables>,
  releaseId: number,
  id: number,
): Promise<AttachmentRow | undefined> {
  return db
    .selectFrom("attachment")
    .selectAll()
    .where("release_id", "=", releaseId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export function findAttachmentByUuid(
  db: Kysely<ForgeTables>,
  uuid: string,
): Promise<AttachmentRow | undefined> {
  return db.selectFrom("attachment").selectAll().where("uuid", "=", uuid).executeTakeFirst();
}

/** A release's attachment by its shown name (the first one so named, as Gitea finds it). */
export function findReleaseAttachmentNamed(
  db: Kysely<ForgeTables>,
  releaseId: number,
  name: string,
): Promise<AttachmentRow | undefined> {
  return db
    .selectFrom("attachment")
    .selectAll()
    .where("release_id", "=", releaseId)
    .where("name", "=", name)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
}

export function renameAttachment(
  db: Kysely<ForgeTables>,
  id: number,
  name: string,
): Promise<AttachmentRow | undefined> {
  return db.updateTable("attachment").set({ name }).where("id", "=", id).returningAll().executeTakeFirst();
}

export async function deleteAttachmentRow(db: Kysely<ForgeTables>, id: number): Promise<void> {
  await db.deleteFrom("attachment").where("id", "=", id).execute();
}

export async function countDownload(db: Kysely<ForgeTables>, id: number): Promise<void> {
  await db
    .updateTable("attachment")
    .set((eb) => ({ download_count: eb("download_count", "+", 1) }))
    .where("id", "=", id)
    .execute();
}

/** The uuids of every file attached to the repository's releases (what its deletion must remove). */
export async function attachmentFilesOfRepository(
  db: Kysely<ForgeTables>,
  repoId: number,
): Promise<string[]> {
  const rows = await db.selectFrom("attachment").select("uuid").where("repo_id", "=", repoId).execute();
  return rows.map((row) => row.uuid);
}
