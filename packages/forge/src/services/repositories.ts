import {
  Conflict,
  Forbidden,
  Invalid,
  isUniqueViolation,
  Locked,
  NotFound,
  readBool,
  signalQueuedDeliveries,
  toStoredTime,
} from "@anvil/core";
import type { Kysely } from "kysely";
import {
  autoInit,
  checkBranchName,
  getBranch,
  isBranchName,
  isEmpty,
  listBranches,
  refTips,
  repositoryPath,
  setDefaultBranch,
} from "../git/index.ts";
import { type AccountRow, findAccountById, findAccountByName } from "../repositories/accounts.ts";
import { countFork } from "../repositories/forks.ts";
import { hasOpenPulls, markPushedPulls } from "../repositories/pulls.ts";
import { attachmentFilesOfRepository } from "../repositories/releases.ts";
import {
  findRepository,
  findRepositoryById,
  type RepositoryRow,
  updateRepository,
} from "../repositories/repos.ts";
import { copyDefaultHooks, hooksHearing } from "../repositories/webhooks.ts";
import { ACCOUNT_ORGANIZATION, type ForgeTables } from "../schemas/tables.ts";
import {
  ACCESS_ADMIN,
  ACCESS_OWNER,
  ACCESS_WRITE,
  accessTo,
  canSee,
  type Permission,
  repositoryPermission,
} from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { attachmentRoot, removeFiles } from "./attachment-files.ts";
import { pushEnvironment } from "./branch-protection.ts";
import { wakePullChecker } from "./pull-check.ts";
import { insertWithinLimit } from "./repository-limit.ts";
import { moveRepository, removeRepository, storeNewRepository } from "./repository-storage.ts";
import type { Unit } from "./units.ts";
import { queueRepositoryEvent } from "./webhook-events.ts";
import { pushEvents } from "./webhook-push.ts";

/** Where bare repositories live (`<data-dir>/repositories`), and how many an account may make. */
export interface Storage {
  root: string;
  /** Gitea's MAX_CREATION_LIMIT: for accounts whose max_repo_creation is -1; -1 or absent: no limit. */
  maxCreationLimit?: number;
  /** Where attachment files live (`<data-dir>/attachments`). */
  attachments?: string;
}

/** A repository with its owner and what the caller may do with it. */
export interface RepositoryContext {
  repository: RepositoryRow;
  owner: AccountRow;
  permission: Permission;
}

const REPO_NAME = /^[-.\w]+$/;
const RESERVED_REPO_NAMES = new Set([".", "..", "-"]);
const RESERVED_REPO_SUFFIXES = [".git", ".wiki", ".rss", ".atom"];
const MAX_REPO_NAME = 100;

/** Gitea's rules for repository names, with its 422 messages. */
export function checkRepositoryName(name: string): void {
  if (name.length === 0) throw new Invalid("[Name]: Required");
  if (name.length > MAX_REPO_NAME) throw new Invalid("[Name]: MaxSize");
  if (!REPO_NAME.test(name) || name.includes(".."))
    throw new Invalid(
      `name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`,
    );
  const lower = name.toLowerCase();
  if (RESERVED_REPO_NAMES.has(lower)) throw new Invalid(`name is reserved [name: ${name}]`);
  const suffix = RESERVED_REPO_SUFFIXES.find((end) => lower.endsWith(end));
  if (suffix) throw new Invalid(`name pattern is not allowed [pattern: *${suffix}]`);
}

const DUPLICATE = "The repository with the same name already exists.";

export interface NewRepository {
  name: string;
  description?: string;
  private?: boolean;
  auto_init?: boolean;
  default_branch?: string;
  template?: boolean;
}

/**
 * Creates the row and the bare repository together (see storeNewRepository): the repository is
 * built out of sight, and the row commits only once it is in place.
 */
export async function createRepository(
  database: ForgeDatabase,
  storage: Storage,
  owner: AccountRow,
  doer: AccountRow,
  input: NewRepository,
): Promise<RepositoryRow> {
  checkRepositoryName(input.name);
  const defaultBranch = input.default_branch || "main";
  checkBranchName(defaultBranch, "DefaultBranch");
  const now = new Date();
  const signature = { name: doer.full_name || doer.name, email: doer.email, date: now };
  const fill = input.auto_init
    ? async (path: string) => {
        await autoInit(path, { name: input.name, description: input.description ?? "", author: signature });
      }
    : undefined;
  try {
    return await storeNewRepository(
      database,
      storage,
      { owner: owner.name, name: input.name },
      { defaultBranch, fill },
      async (trx) => {
        const row = await insertWithinLimit(
          trx,
          database.dialect,
          owner,
          doer,
          storage.maxCreationLimit ?? -1,
          {
            owner_id: owner.id,
            name: input.name,
            lower_name: input.name.toLowerCase(),
            description: input.description ?? "",
            default_branch: defaultBranch,
            is_empty: !input.auto_init,
            is_private: input.private ?? false,
            is_template: input.template ?? false,
            created_at: toStoredTime(now, database.dialect),
            updated_at: toStoredTime(now, database.dialect),
          },
        );
        await copyDefaultHooks(trx, row.id, row.created_at);
        await queueRepositoryEvent(trx, {
          repoId: row.id,
          senderId: doer.id,
          type: "repository",
          fields: { action: "created" },
        });
        return row;
      },
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw new Conflict(DUPLICATE);
    throw error;
  }
}

/** The repository `owner/name` as `viewer` may see it; a 404 when it does not exist or is hidden. */
export async function getRepository(
  database: ForgeDatabase,
  ownerName: string,
  name: string,
  viewer: AccountRow | undefined,
  scopes?: readonly string[],
): Promise<RepositoryContext> {
  const owner = await findAccountByName(database.db, ownerName);
  const repository = owner && (await findRepository(database.db, owner.id, name));
  return visibleRepository(database, owner, repository, viewer, scopes);
}

/**
 * The repository with the id in a path (GET /repositories/{id}), as `viewer` may see it; a 404
 * otherwise, and for anything but a number, as in Gitea.
 */
export async function getRepositoryById(
  database: ForgeDatabase,
  id: string,
  viewer: AccountRow | undefined,
  scopes?: readonly string[],
): Promise<RepositoryContext> {
  const repository = /^\d{1,15}$/.test(id) ? await findRepositoryById(database.db, Number(id)) : undefined;
  const owner = repository && (await findAccountById(database.db, repository.owner_id));
  return visibleRepository(database, owner, repository, viewer, scopes);
}

async function visibleRepository(
  database: ForgeDatabase,
  owner: AccountRow | undefined,
  repository: RepositoryRow | undefined,
  viewer: AccountRow | undefined,
  scopes: readonly string[] | undefined,
): Promise<RepositoryContext> {
  const permission = owner && repository && (await repositoryPermission(database, repository, owner, viewer));
  if (!owner || !repository || !permission || !canSee(permission))
    throw new NotFound("repository does not exist");
  checkPublicOnly(scopes, repository);
  return { repository, owner, permission };
}

/** A `public-only` token reaches public repositories only, as in Gitea. */
export function checkPublicOnly(scopes: readonly string[] | undefined, repository: RepositoryRow): void {
  if (scopes?.includes("public-only") && readBool(repository.is_private))
    throw new Forbidden("token scope is limited to public repos");
}

/**
 * A repository the caller must have at least `needed` access to as a whole (its settings, its
 * collaborators, deleting it); 403 when they can see but not do.
 */
export function requireAccess(context: RepositoryContext, needed: number): void {
  if (context.permission.mode < needed)
    throw new Forbidden(needed >= ACCESS_OWNER ? "Must be owner" : "Must be an admin of the repository");
}

/** A unit of the repository the caller must have at least `needed` access to, with Gitea's 403s. */
export function requireUnit(context: RepositoryContext, unit: Unit, needed: number): void {
  if (accessTo(context.permission, unit) >= needed) return;
  throw new Forbidden(
    needed >= ACCESS_WRITE
      ? "user should have a permission to write to a repo"
      : "user should have specific read permission or be a repo admin or a site admin",
  );
}

/**
 * An archived repository is read-only (Gitea's mustNotBeArchived): what it holds (code, issues,
 * labels, milestones, topics…) takes no write until it is un-archived, which its settings still allow.
 */
export function mustNotBeArchived(repository: RepositoryRow, message = "repo is archived"): void {
  if (readBool(repository.is_archived)) throw new Locked(message);
}

export interface RepositoryEdit {
  name?: string;
  description?: string;
  website?: string;
  private?: boolean;
  default_branch?: string;
  archived?: boolean;
  template?: boolean;
}

export async function editRepository(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  edit: RepositoryEdit,
): Promise<RepositoryRow> {
  requireAccess(context, ACCESS_ADMIN);
  const { repository, owner } = context;
  const path = repositoryPath(storage.root, owner.name, repository.name);
  if (edit.default_branch !== undefined) checkBranchName(edit.default_branch, "DefaultBranch");
  if (edit.default_branch !== undefined && edit.default_branch !== repository.default_branch)
    await setDefaultBranch(path, edit.default_branch);
  const rename = edit.name !== undefined && edit.name !== repository.name ? edit.name : undefined;
  if (rename !== undefined) checkRepositoryName(rename);
  const change = (trx: Kysely<ForgeTables>) =>
    updateRepository(trx, repository.id, {
      ...(rename !== undefined ? { name: rename, lower_name: rename.toLowerCase() } : {}),
      ...(edit.description !== undefined ? { description: edit.description } : {}),
      ...(edit.website !== undefined ? { website: edit.website } : {}),
      ...(edit.private !== undefined ? { is_private: edit.private } : {}),
      ...(edit.default_branch !== undefined ? { default_branch: edit.default_branch } : {}),
      ...(edit.archived !== undefined ? { is_archived: edit.archived } : {}),
      ...(edit.template !== undefined ? { is_template: edit.template } : {}),
      updated_at: toStoredTime(new Date(), database.dialect),
    });
  let updated: RepositoryRow | undefined;
  try {
    updated =
      rename === undefined
        ? await change(database.db)
        : await moveRepository(
            database,
            storage,
            { owner: owner.name, name: repository.name },
            { owner: owner.name, name: rename },
            change,
          );
  } catch (error) {
    if (isUniqueViolation(error)) throw new Conflict(DUPLICATE);
    throw error;
  }
  if (!updated) throw new NotFound("repository does not exist");
  return updated;
}

/** Deletes the row and the bare repository together (see removeRepository). */
export async function deleteRepository(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
): Promise<void> {
  requireAccess(context, ACCESS_OWNER);
  const location = { owner: context.owner.name, name: context.repository.name };
  // The payload's repository is read in the transaction, before its row goes.
  const forkOf = context.repository.fork_id;
  let files: string[] = [];
  await removeRepository(database, storage, context.repository.id, location, async (trx) => {
    // Its attachments' rows go with it by the foreign keys; their files once that has committed.
    files = await attachmentFilesOfRepository(trx, context.repository.id);
    await queueRepositoryEvent(trx, {
      repoId: context.repository.id,
      senderId: doer.id,
      type: "repository",
      fields: { action: "deleted" },
    });
    // Its own forks keep their objects (hard-linked copies) and lose their parent by the foreign key.
    if (forkOf !== null) await countFork(trx, forkOf, -1);
  });
  await removeFiles(attachmentRoot(storage), files);
}

/** What a push changes in the repository's row: whether it has any ref, and its default branch. */
async function emptinessChanges(
  path: string,
  repository: RepositoryRow,
): Promise<{ is_empty: boolean; default_branch?: string } | undefined> {
  const empty = await isEmpty(path);
  if (empty === readBool(repository.is_empty)) return undefined;
  const changes: { is_empty: boolean; default_branch?: string } = { is_empty: empty };
  if (!empty && !(await getBranch(path, repository.default_branch))) {
    const [first] = (await listBranches(path, { page: 1, limit: 1 })).branches;
    // A pushed branch named beyond Gitea's limits cannot be the default one.
    if (first && isBranchName(first.name)) {
      await setDefaultBranch(path, first.name);
      changes.default_branch = first.name;
    }
  }
  return changes;
}

/**
 * Who pushed, and the repository's branch and tag tips before the push (see refTips) when some
 * hook may hear of it: reading what a push brought costs git processes, spent only then.
 */
export interface PushStart {
  pusher: AccountRow;
  before?: Map<string, string>;
  /** receive-pack's extra environment: the branch protection it applies (see pushEnvironment). */
  env: Record<string, string>;
}

/**
 * Reads the tips a push starts from and decides what the pusher may do to protected branches;
 * call it before receive-pack runs, and run receive-pack with the `env` it answers.
 */
export async function startPush(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  pusher: AccountRow,
): Promise<PushStart> {
  const heard =
    (await hooksHearing(database.db, context.repository.id, context.owner.id)).length > 0 ||
    (await hasOpenPulls(database.db, context.repository.id));
  return {
    pusher,
    before: heard ? await refTips(repositoryFilesPath(storage, context)) : undefined,
    env: await pushEnvironment(database.db, context, pusher),
  };
}

/**
 * After a push: note whether the repository now has any ref, as lists show it (when the first push
 * brought no branch of the default name, the branch it brought becomes the default, as Gitea
 * does); and queue the push's webhook events (push, create, delete) in the same transaction.
 */
export async function notePush(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  push: PushStart,
): Promise<void> {
  const path = repositoryFilesPath(storage, context);
  const after = push.before ? await refTips(path) : undefined;
  // The pulls whose base or head moved are checked again (all of the repository's when the tips
  // before the push were not read: it had no open pull then).
  if (await markPushedPulls(database, context.repository.id, push.pusher.id, push.before, after))
    wakePullChecker();
  const tips = push.before && after && { before: push.before, after };
  await noteRefChanges(database, path, context, push.pusher, tips);
}

/**
 * What notePush does, for refs the forge changed itself (a commit made through the contents API,
 * a branch or tag made or deleted): `before` and `after` hold the changed refs by full name.
 */
export async function announceRefChanges(
  database: ForgeDatabase,
  path: string,
  context: RepositoryContext,
  doer: AccountRow,
  before: Map<string, string>,
  after: Map<string, string>,
): Promise<void> {
  if (await markPushedPulls(database, context.repository.id, doer.id, before, after)) wakePullChecker();
  const heard = (await hooksHearing(database.db, context.repository.id, context.owner.id)).length > 0;
  await noteRefChanges(database, path, context, doer, heard ? { before, after } : undefined);
}

/** `tips`: the changed refs before and after, or undefined when no hook hears of them. */
async function noteRefChanges(
  database: ForgeDatabase,
  path: string,
  context: RepositoryContext,
  pusher: AccountRow,
  tips: { before: Map<string, string>; after: Map<string, string> } | undefined,
): Promise<void> {
  const { repository, owner } = context;
  const events = tips ? await pushEvents(database.db, path, repository, owner, pusher, tips) : [];
  const changes = await emptinessChanges(path, repository);
  if (!changes && events.length === 0) return;
  await database.db.transaction().execute(async (trx) => {
    if (changes) await updateRepository(trx, repository.id, changes);
    for (const event of events) await queueRepositoryEvent(trx, event);
  });
  signalQueuedDeliveries();
}

export function repositoryFilesPath(storage: Storage, context: RepositoryContext): string {
  return repositoryPath(storage.root, context.owner.name, context.repository.name);
}

export function isOrganization(account: AccountRow): boolean {
  return account.type === ACCOUNT_ORGANIZATION;
}

export function isPrivate(repository: RepositoryRow): boolean {
  return readBool(repository.is_private);
}
