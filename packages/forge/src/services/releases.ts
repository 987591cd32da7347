import { Conflict, Invalid, isUniqueViolation, NotFound, readBool, toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import { type ReleaseSite, toApiRelease } from "../convert/release.ts";
import {
  checkTagName,
  createTag,
  deleteTag,
  getTag,
  RefUpdateRefused,
  resolveCommit,
  type Tag,
} from "../git/index.ts";
import { type AccountRow, findAccountsByIds } from "../repositories/accounts.ts";
import {
  attachmentsOf,
  countRelease,
  deleteReleaseRow,
  findLatestRelease,
  findReleaseById,
  findReleaseByTag,
  insertRelease,
  listReleases,
  lockRelease,
  type ReleaseRow,
  updateRelease,
} from "../repositories/releases.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import { ACCESS_READ, ACCESS_WRITE, accessTo } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { attachmentRoot, removeFiles } from "./attachment-files.ts";
import { type RepositoryContext, repositoryFilesPath, requireUnit, type Storage } from "./repositories.ts";
import { queueRepositoryEvent, type RepositoryEvent, webhookUrls } from "./webhook-events.ts";
import { pushEvents } from "./webhook-push.ts";

// Releases of a repository's tags (Gitea's release service): read with the releases unit, drafts
// only by its writers; made, edited and deleted by its writers. Publishing a release on a tag that
// is not there creates it (lightweight, at the target), undone when the row cannot be written;
// deleting a release never deletes its tag, as in Gitea's API.

export interface NewRelease {
  tag_name: string;
  target_commitish?: string;
  name?: string;
  body?: string;
  draft?: boolean;
  prerelease?: boolean;
  /** Makes the tag, when the release creates it, an annotated one with this message. */
  tag_message?: string;
}

export type ReleaseEdit = Partial<Omit<NewRelease, "tag_message">>;

function alreadyExists(tag: string): Conflict {
  return new Conflict(`release tag already exist [tag_name: ${tag}]`);
}

export function canWriteReleases(context: RepositoryContext): boolean {
  return accessTo(context.permission, "repo.releases") >= ACCESS_WRITE;
}

/** A release as `context`'s caller may see it: drafts only for writers, a 404 otherwise. */
function visibleRelease(context: RepositoryContext, release: ReleaseRow | undefined): ReleaseRow {
  if (!release || (readBool(release.is_draft) && !canWriteReleases(context)))
    throw new NotFound(`release does not exist`);
  return release;
}

function releaseSite(db: Kysely<ForgeTables>, context: RepositoryContext): ReleaseSite {
  return { rootUrl: webhookUrls(db).rootUrl, fullName: `${context.owner.name}/${context.repository.name}` };
}

/** Rendered releases in one go: their publishers and attachments read together. */
export async function renderReleases(
  database: ForgeDatabase,
  context: RepositoryContext,
  releases: readonly ReleaseRow[],
  rootUrl: URL,
) {
  const [publishers, attachments] = await Promise.all([
    findAccountsByIds(
      database.db,
      releases.flatMap((release) => (release.publisher_id === null ? [] : [release.publisher_id])),
    ),
    attachmentsOf(
      database.db,
      releases.map((release) => release.id),
    ),
  ]);
  const site = { rootUrl, fullName: `${context.owner.name}/${context.repository.name}` };
  return releases.map((release) =>
    toApiRelease(
      release,
      release.publisher_id === null ? undefined : publishers.get(release.publisher_id),
      attachments.get(release.id) ?? [],
      site,
    ),
  );
}

/** Queues the `release` event (published, updated, deleted) with the release as it is in `trx`. */
async function queueReleaseEvent(
  trx: Kysely<ForgeTables>,
  context: RepositoryContext,
  release: ReleaseRow,
  doer: AccountRow,
  action: "published" | "updated" | "deleted",
): Promise<void> {
  const publisher =
    release.publisher_id === null
      ? undefined
      : (await findAccountsByIds(trx, [release.publisher_id])).get(release.publisher_id);
  const attachments = (await attachmentsOf(trx, [release.id])).get(release.id) ?? [];
  await queueRepositoryEvent(trx, {
    repoId: context.repository.id,
    senderId: doer.id,
    type: "release",
    fields: { action, release: toApiRelease(release, publisher, attachments, releaseSite(trx, context)) },
  });
}

/** A release's tag once settled: the commit it names, and the tag when this request made it. */
interface SettledTag {
  sha: string;
  created?: Tag;
}

/**
 * Makes the tag of a release being published when it is missing, at `target`'s commit: annotated
 * with `message` (tagged by the doer) when there is one, lightweight otherwise, as Gitea does.
 */
async function ensureTag(
  path: string,
  release: { tag: string; target: string; message?: string },
  doer: AccountRow,
): Promise<SettledTag> {
  const existing = await getTag(path, release.tag);
  if (existing) return { sha: existing.objectId };
  const commit = await resolveCommit(path, release.target);
  if (commit === undefined) throw new NotFound(`target "${release.target}" not found`);
  try {
    const created = await createTag(path, {
      name: release.tag,
      target: commit,
      message: release.message,
      tagger: { name: doer.full_name || doer.name, email: doer.email },
    });
    return { sha: commit, created };
  } catch (error) {
    if (!(error instanceof RefUpdateRefused)) throw error;
  }
  // Made meanwhile by a push or another release: the release stands on that one.
  const raced = await getTag(path, release.tag);
  if (!raced) throw new Conflict(`tag "${release.tag}" is being changed, try again`);
  return { sha: raced.objectId };
}

/** The `create` and `push` events of a tag a release made, as a push of it would raise them. */
async function tagEvents(
  trx: Kysely<ForgeTables>,
  path: string,
  context: RepositoryContext,
  doer: AccountRow,
  tag: Tag,
): Promise<RepositoryEvent[]> {
  return pushEvents(trx, path, context.repository, context.owner, doer, {
    before: new Map(),
    after: new Map([[`refs/tags/${tag.name}`, tag.id]]),
  });
}

/**
 * Writes a release's row in a transaction with `write`, which settles the release's tag (makes it
 * when publishing on a missing one) once its row holds the tag name: a racing release of the same
 * tag waits on that row (or on the write lock) and fails on it, so a tag made here is never one
 * another release stands on, and it is removed again when this transaction fails.
 */
async function withTag<T>(
  database: ForgeDatabase,
  context: RepositoryContext & { storage: Storage },
  doer: AccountRow,
  release: { tag: string; target: string; draft: boolean; message?: string },
  write: (trx: Kysely<ForgeTables>, settle: () => Promise<SettledTag | undefined>) => Promise<T>,
): Promise<T> {
  const path = repositoryFilesPath(context.storage, context);
  let made: Tag | undefined;
  try {
    return await database.db.transaction().execute((trx) =>
      write(trx, async () => {
        // A draft creates no tag until it is published, as in Gitea.
        if (release.draft) return undefined;
        const settled = await ensureTag(path, release, doer);
        made = settled.created;
        if (made)
          for (const event of await tagEvents(trx, path, context, doer, made))
            await queueRepositoryEvent(trx, event);
        return settled;
      }),
    );
  } catch (error) {
    if (made) await deleteTag(path, made).catch(() => undefined);
    if (isUniqueViolation(error)) throw alreadyExists(release.tag);
    throw error;
  }
}

export async function createRelease(
  database: ForgeDatabase,
  storage: Storage,
  found: RepositoryContext,
  doer: AccountRow,
  input: NewRelease,
): Promise<ReleaseRow> {
  requireUnit(found, "repo.releases", ACCESS_WRITE);
  const context = { ...found, storage };
  if (input.tag_name === "") throw new Invalid("[TagName]: Required");
  checkTagName(input.tag_name);
  if (readBool(found.repository.is_empty)) throw new Invalid("repo is empty");
  if (await findReleaseByTag(database.db, found.repository.id, input.tag_name))
    throw alreadyExists(input.tag_name);
  const target = input.target_commitish || found.repository.default_branch;
  const draft = input.draft ?? false;
  const now = toStoredTime(new Date(), database.dialect);
  const tagging = { tag: input.tag_name, target, draft, message: input.tag_message };
  return withTag(database, context, doer, tagging, async (trx, settle) => {
    const inserted = await insertRelease(trx, {
      repo_id: found.repository.id,
      publisher_id: doer.id,
      tag_name: input.tag_name,
      lower_tag_name: input.tag_name.toLowerCase(),
      target,
      title: input.name ?? "",
      note: input.body ?? "",
      is_draft: draft,
      is_prerelease: input.prerelease ?? false,
      created_at: now,
    });
    const tag = await settle();
    const release = tag ? ((await updateRelease(trx, inserted.id, { sha1: tag.sha })) ?? inserted) : inserted;
    if (!draft) {
      await countRelease(trx, found.repository.id, 1);
      await queueReleaseEvent(trx, found, release, doer, "published");
    }
    return release;
  });
}

/**
 * Gitea's EditRelease: empty strings leave a field as it is (so a body cannot be emptied), a tag
 * missing on publication is created, and the hooks hear `published` when that made the tag,
 * `updated` for any other change of a published release, nothing for a draft.
 */
export async function editRelease(
  database: ForgeDatabase,
  storage: Storage,
  found: RepositoryContext,
  doer: AccountRow,
  id: number,
  edit: ReleaseEdit,
): Promise<ReleaseRow> {
  requireUnit(found, "repo.releases", ACCESS_WRITE);
  const release = visibleRelease(found, await findReleaseById(database.db, found.repository.id, id));
  const tag = edit.tag_name || release.tag_name;
  if (tag !== release.tag_name) checkTagName(tag);
  const target = edit.target_commitish || release.target;
  const draft = edit.draft ?? readBool(release.is_draft);
  const now = toStoredTime(new Date(), database.dialect);
  return withTag(database, { ...found, storage }, doer, { tag, target, draft }, async (trx, settle) => {
    // Counted from the row as it is now: an edit racing this one may have published it already.
    const current = await lockRelease(trx, database.dialect, release.id);
    if (!current) throw new NotFound("release does not exist");
    const named = await updateRelease(trx, release.id, {
      tag_name: tag,
      lower_tag_name: tag.toLowerCase(),
      target,
      ...(edit.name ? { title: edit.name } : {}),
      ...(edit.body ? { note: edit.body } : {}),
      is_draft: draft,
      ...(edit.prerelease !== undefined ? { is_prerelease: edit.prerelease } : {}),
      ...(readBool(current.is_draft) && !draft ? { created_at: now } : {}),
    });
    if (!named) throw new NotFound("release does not exist");
    const settled = await settle();
    const updated = settled
      ? ((await updateRelease(trx, release.id, { sha1: settled.sha })) ?? named)
      : named;
    const created = settled?.created !== undefined;
    await countRelease(trx, found.repository.id, Number(readBool(current.is_draft)) - Number(draft));
    if (!draft) await queueReleaseEvent(trx, found, updated, doer, created ? "published" : "updated");
    return updated;
  });
}

/** Deletes the release and its attachments' rows, then their files; its tag stays. */
export async function deleteRelease(
  database: ForgeDatabase,
  storage: Storage,
  found: RepositoryContext,
  doer: AccountRow,
  release: ReleaseRow,
): Promise<void> {
  requireUnit(found, "repo.releases", ACCESS_WRITE);
  const files = await database.db.transaction().execute(async (trx) => {
    const current = await lockRelease(trx, database.dialect, release.id);
    if (!current) throw new NotFound("release does not exist");
    await queueReleaseEvent(trx, found, current, doer, "deleted");
    if (!readBool(current.is_draft)) await countRelease(trx, found.repository.id, -1);
    const removed = await deleteReleaseRow(trx, release.id);
    if (!removed) throw new NotFound("release does not exist");
    return removed;
  });
  await removeFiles(attachmentRoot(storage), files);
}

export async function getRelease(database: ForgeDatabase, found: RepositoryContext, id: number) {
  requireUnit(found, "repo.releases", ACCESS_READ);
  return visibleRelease(found, await findReleaseById(database.db, found.repository.id, id));
}

export async function getReleaseByTag(database: ForgeDatabase, found: RepositoryContext, tag: string) {
  requireUnit(found, "repo.releases", ACCESS_READ);
  return visibleRelease(found, await findReleaseByTag(database.db, found.repository.id, tag));
}

export async function getLatestRelease(database: ForgeDatabase, found: RepositoryContext) {
  requireUnit(found, "repo.releases", ACCESS_READ);
  return visibleRelease(found, await findLatestRelease(database.db, found.repository.id));
}

export async function listRepositoryReleases(
  database: ForgeDatabase,
  found: RepositoryContext,
  query: { draft?: boolean; prerelease?: boolean; offset: number; limit: number },
) {
  requireUnit(found, "repo.releases", ACCESS_READ);
  return listReleases(database.db, {
    repoId: found.repository.id,
    withDrafts: canWriteReleases(found),
    ...query,
  });
}
