import { Conflict, Invalid, isUniqueViolation, NotFound, readBool, toStoredTime } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import { findAccountsByIds } from "../repositories/accounts.ts";
import { countFork, findForkOf } from "../repositories/forks.ts";
import { findRepositoriesByIds, findRepositoryById, type RepositoryRow } from "../repositories/repos.ts";
import { copyDefaultHooks } from "../repositories/webhooks.ts";
import { ACCOUNT_ORGANIZATION } from "../schemas/tables.ts";
import { ACCESS_READ, canSee, repositoriesPermission } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { createInOrganization } from "./organization-repositories.ts";
import { getVisibleOrganization } from "./organizations.ts";
import { checkRepositoryName, type RepositoryContext, requireUnit, type Storage } from "./repositories.ts";
import { insertWithinLimit } from "./repository-limit.ts";
import { storeNewRepository } from "./repository-storage.ts";
import { queueRepositoryEvent, repositoryPayload } from "./webhook-events.ts";

export interface ForkOptions {
  /** The organization to fork into; the caller's own account without it. */
  organization?: string;
  /** The fork's name; the parent's without it. */
  name?: string;
}

const DUPLICATE = "The repository with the same name already exists.";

function alreadyForked(owner: AccountRow, parent: RepositoryContext, fork: RepositoryRow): Conflict {
  return new Conflict(
    `repository is already forked by user [uname: ${owner.name}, repo path: ${parent.owner.name}/${parent.repository.name}, fork path: ${owner.name}/${fork.name}]`,
  );
}

/** The account a fork goes to: the caller, or an organization they see (422 for one they do not). */
async function forkOwner(database: ForgeDatabase, doer: AccountRow, organization: string | undefined) {
  if (organization === undefined) return doer;
  try {
    return (await getVisibleOrganization(database, organization, doer)).org;
  } catch (error) {
    if (error instanceof NotFound) throw new Invalid(error.message);
    throw error;
  }
}

/**
 * Forks the repository into the caller's account or an organization they may create repositories
 * in: a bare copy of its objects and refs (see stageClone) and a row made together, as any new
 * repository (storeNewRepository). One fork per owner and parent, claimed by a unique index, so
 * forks racing into one owner end with one made and the others answered 409.
 */
export async function forkRepository(
  database: ForgeDatabase,
  storage: Storage,
  parent: RepositoryContext,
  doer: AccountRow,
  options: ForkOptions,
): Promise<{ fork: RepositoryRow; owner: AccountRow }> {
  requireUnit(parent, "repo.code", ACCESS_READ);
  const name = options.name || parent.repository.name;
  checkRepositoryName(name);
  const owner = await forkOwner(database, doer, options.organization);
  const existing = await findForkOf(database.db, parent.repository.id, owner.id);
  if (existing) throw alreadyForked(owner, parent, existing);
  const source = parent.repository;
  const now = toStoredTime(new Date(), database.dialect);
  const create = () =>
    storeNewRepository(
      database,
      storage,
      { owner: owner.name, name },
      { defaultBranch: source.default_branch, copyOf: { owner: parent.owner.name, name: source.name } },
      async (trx) => {
        const row = await insertWithinLimit(
          trx,
          database.dialect,
          owner,
          doer,
          storage.maxCreationLimit ?? -1,
          {
            owner_id: owner.id,
            name,
            lower_name: name.toLowerCase(),
            description: source.description,
            default_branch: source.default_branch,
            is_empty: readBool(source.is_empty),
            // A fork of a private repository is private.
            is_private: readBool(source.is_private),
            is_fork: true,
            fork_id: source.id,
            created_at: now,
            updated_at: now,
          },
        );
        await countFork(trx, source.id, 1);
        await copyDefaultHooks(trx, row.id, row.created_at);
        await queueForkEvents(trx, source.id, row, owner, doer);
        return row;
      },
    );
  try {
    const fork =
      owner.type === ACCOUNT_ORGANIZATION
        ? await createInOrganization(
            database,
            owner,
            doer,
            create,
            "User is not allowed to create repositories in this organization.",
          )
        : await create();
    return { fork, owner };
  } catch (error) {
    // The parent deleted meanwhile: its directory gone before the copy, or its row before the insert.
    if (!(await findRepositoryById(database.db, source.id))) throw new NotFound("repository does not exist");
    if (!isUniqueViolation(error)) throw error;
    const raced = await findForkOf(database.db, source.id, owner.id);
    throw raced ? alreadyForked(owner, parent, raced) : new Conflict(DUPLICATE);
  }
}

/**
 * Gitea's fork notification, quirk kept: the parent's hooks hear `fork` with `forkee` the parent
 * and `repository` the new fork; an organization's hooks also hear the fork `created`.
 */
async function queueForkEvents(
  trx: Parameters<typeof queueRepositoryEvent>[0],
  parentId: number,
  fork: RepositoryRow,
  owner: AccountRow,
  doer: AccountRow,
): Promise<void> {
  const [forkee, repository] = await Promise.all([
    repositoryPayload(trx, parentId),
    repositoryPayload(trx, fork.id),
  ]);
  await queueRepositoryEvent(trx, {
    repoId: parentId,
    senderId: doer.id,
    type: "fork",
    fields: { forkee, repository },
  });
  if (owner.type === ACCOUNT_ORGANIZATION)
    await queueRepositoryEvent(trx, {
      repoId: fork.id,
      senderId: doer.id,
      type: "repository",
      fields: { action: "created" },
    });
}

/**
 * The parents of those of `rows` that are forks, by fork id, as `viewer` may see them: a parent
 * that is gone, or hidden from the viewer, is left out (the fork's `parent` is then null).
 */
export async function visibleParents(
  database: ForgeDatabase,
  rows: readonly RepositoryRow[],
  viewer: AccountRow | undefined,
): Promise<Map<number, RepositoryContext>> {
  const parentIds = [...new Set(rows.flatMap((row) => (row.fork_id === null ? [] : [row.fork_id])))];
  const found = new Map<number, RepositoryContext>();
  if (parentIds.length === 0) return found;
  const parents = await findRepositoriesByIds(database.db, parentIds);
  const owners = await findAccountsByIds(
    database.db,
    parents.map((row) => row.owner_id),
  );
  const pairs = parents.flatMap((repository) => {
    const owner = owners.get(repository.owner_id);
    return owner ? [{ repository, owner }] : [];
  });
  const permissions = await repositoriesPermission(database, pairs, viewer);
  const byId = new Map<number, RepositoryContext>();
  pairs.forEach((pair, i) => {
    if (canSee(permissions[i])) byId.set(pair.repository.id, { ...pair, permission: permissions[i] });
  });
  for (const row of rows) {
    const parent = row.fork_id === null ? undefined : byId.get(row.fork_id);
    if (parent) found.set(row.id, parent);
  }
  return found;
}
