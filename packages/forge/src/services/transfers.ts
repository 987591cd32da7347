import { Conflict, Forbidden, Invalid, isUniqueViolation, NotFound, toStoredTime } from "@anvil/core";
import { type AccountRow, findAccountById, findAccountByName } from "../repositories/accounts.ts";
import { findMembership } from "../repositories/organizations.ts";
import {
  addTeamRepository,
  findRepository,
  type RepositoryRow,
  updateRepository,
  upsertCollaboration,
} from "../repositories/repos.ts";
import { findTeamById, type TeamRow } from "../repositories/teams.ts";
import {
  deleteRedundantCollaborations,
  deleteTeamRepositories,
  deleteTransfer,
  findTransfer,
  insertTransfer,
  type RepoTransferRow,
} from "../repositories/transfers.ts";
import { ACCESS_NONE, ACCESS_OWNER, ACCESS_READ, canSee, repositoryPermission } from "./access.ts";
import { type ForgeDatabase, isAdmin } from "./accounts.ts";
import type { Caller } from "./auth.ts";
import { organizationPermissions } from "./organizations.ts";
import {
  checkPublicOnly,
  getRepository,
  isOrganization,
  type RepositoryContext,
  requireAccess,
  type Storage,
} from "./repositories.ts";
import { moveRepository } from "./repository-storage.ts";
import { HIDDEN } from "./teams.ts";

// Gitea's rules for POST /repos/{owner}/{repo}/transfer and its accept and reject: the move is
// immediate for a site admin, for a transfer to oneself, and into an organization where the doer
// may create repositories; otherwise it waits for the recipient (the user, or someone who may
// create repositories in the organization) to accept or reject it.

export interface TransferRepoOption {
  new_owner: string;
  team_ids?: number[] | null;
}

/** Where a transfer left the repository: moved, or waiting with its owner unchanged. */
export interface TransferOutcome {
  pending: boolean;
  repository: RepositoryRow;
  owner: AccountRow;
}

const NO_NEW_OWNER = "The new owner does not exist or cannot be found";
// Gitea sets no bound; a request's list is bounded as every list is.
const MAX_TEAMS = 100;

function alreadyExists(owner: AccountRow, repository: RepositoryRow): Invalid {
  return new Invalid(`repository already exists [uname: ${owner.name}, name: ${repository.name}]`);
}

async function mayCreateRepositoryIn(database: ForgeDatabase, org: AccountRow, user: AccountRow) {
  return (await organizationPermissions(database, org, user)).can_create_repository;
}

/** The teams named by id, each of the organization `org` (Gitea's 422 and 403 otherwise). */
async function teamsOf(database: ForgeDatabase, org: AccountRow, ids: readonly number[]): Promise<TeamRow[]> {
  if (ids.length > MAX_TEAMS) throw new Invalid(`[TeamIDs]: at most ${MAX_TEAMS} teams`);
  const teams: TeamRow[] = [];
  for (const id of ids) {
    const team = Number.isSafeInteger(id) ? await findTeamById(database.db, id) : undefined;
    if (!team) throw new Invalid(`team ${id} not found`);
    if (team.org_id !== org.id) throw new Forbidden(`team ${id} belongs not to org ${org.id}`);
    teams.push(team);
  }
  return teams;
}

async function newOwnerFor(database: ForgeDatabase, name: string, doer: AccountRow): Promise<AccountRow> {
  if (name === "") throw new Invalid("[NewOwner]: Required");
  const owner = await findAccountByName(database.db, name);
  if (!owner) throw new NotFound(NO_NEW_OWNER);
  // A private organization stays unknown to those outside it.
  if (
    isOrganization(owner) &&
    owner.visibility === "private" &&
    !isAdmin(doer) &&
    !(await findMembership(database.db, owner.id, doer.id))
  )
    throw new NotFound(NO_NEW_OWNER);
  return owner;
}

export async function startTransfer(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  input: TransferRepoOption,
): Promise<TransferOutcome> {
  requireAccess(context, ACCESS_OWNER);
  const { repository, owner } = context;
  const newOwner = await newOwnerFor(database, input.new_owner, doer);
  let teams: TeamRow[] = [];
  if (input.team_ids !== undefined && input.team_ids !== null) {
    if (!isOrganization(newOwner))
      throw new Invalid("Teams can only be added to organization-owned repositories");
    teams = await teamsOf(database, newOwner, input.team_ids);
  }
  if (await findTransfer(database.db, repository.id)) throw inProgress(owner, repository);
  if (newOwner.id === owner.id || (await findRepository(database.db, newOwner.id, repository.name)))
    throw alreadyExists(newOwner, repository);
  const direct =
    isAdmin(doer) ||
    doer.id === newOwner.id ||
    (isOrganization(newOwner) && (await mayCreateRepositoryIn(database, newOwner, doer)));
  if (direct) {
    const moved = await transferOwnership(database, storage, { repository, owner }, newOwner, teams);
    return { pending: false, repository: moved, owner: newOwner };
  }
  // The recipient must see what they are asked to accept.
  const grantRead =
    !isOrganization(newOwner) && !canSee(await repositoryPermission(database, repository, owner, newOwner));
  await database.db.transaction().execute(async (trx) => {
    if (grantRead) await upsertCollaboration(trx, repository.id, newOwner.id, ACCESS_READ);
    try {
      await insertTransfer(trx, {
        repo_id: repository.id,
        doer_id: doer.id,
        recipient_id: newOwner.id,
        team_ids: teams.map((team) => team.id).join(","),
        created_at: toStoredTime(new Date(), database.dialect),
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw inProgress(owner, repository);
      throw error;
    }
  });
  return { pending: true, repository, owner };
}

function inProgress(owner: AccountRow, repository: RepositoryRow): Conflict {
  return new Conflict(
    `repository is already being transferred [uname: ${owner.name}, name: ${repository.name}]`,
  );
}

/**
 * Moves the repository to its new owner: the row and what hangs on it in one transaction, which
 * also moves the bare repository (moveRepository, as a rename does), so a failed move leaves the
 * rows as they were and a crash leaves nothing the start-up reconcile cannot settle. A pending
 * transfer is claimed (deleted) first, so that of two accepts only one moves the repository.
 */
async function transferOwnership(
  database: ForgeDatabase,
  storage: Storage,
  from: { repository: RepositoryRow; owner: AccountRow },
  newOwner: AccountRow,
  teams: TeamRow[],
  pending?: RepoTransferRow,
): Promise<RepositoryRow> {
  const { repository, owner } = from;
  const source = { owner: owner.name, name: repository.name };
  const target = { owner: newOwner.name, name: repository.name };
  try {
    return await moveRepository(database, storage, source, target, async (trx) => {
      if (pending && !(await deleteTransfer(trx, pending.id))) throw new NotFound(HIDDEN);
      const row = await updateRepository(trx, repository.id, {
        owner_id: newOwner.id,
        updated_at: toStoredTime(new Date(), database.dialect),
      });
      if (!row) throw new NotFound("repository does not exist");
      await deleteRedundantCollaborations(trx, repository.id, newOwner.id);
      if (isOrganization(owner)) await deleteTeamRepositories(trx, repository.id);
      for (const team of teams) await addTeamRepository(trx, team.id, repository.id);
      return row;
    });
  } catch (error) {
    // The name is taken at the new owner, in the database or on disk.
    if (isUniqueViolation(error) || error instanceof Conflict) throw alreadyExists(newOwner, repository);
    throw error;
  }
}

/**
 * The repository a transfer/accept or /reject request names: one the caller may see, or else one
 * whose pending transfer the caller may answer for its recipient organization, whose members
 * need not see a private repository before it is theirs.
 */
export async function transferringRepository(
  database: ForgeDatabase,
  params: { owner: string; repo: string },
  caller: Caller,
): Promise<RepositoryContext> {
  try {
    return await getRepository(database, params.owner, params.repo, caller.account, caller.scopes);
  } catch (error) {
    if (!(error instanceof NotFound)) throw error;
    const owner = await findAccountByName(database.db, params.owner);
    const repository = owner && (await findRepository(database.db, owner.id, params.repo));
    const transfer = repository && (await findTransfer(database.db, repository.id));
    const recipient = transfer && (await findAccountById(database.db, transfer.recipient_id));
    if (!owner || !repository || !recipient || !isOrganization(recipient)) throw error;
    if (!(await mayCreateRepositoryIn(database, recipient, caller.account))) throw error;
    checkPublicOnly(caller.scopes, repository);
    return { repository, owner, permission: { mode: ACCESS_NONE } };
  }
}

/** The pending transfer and its recipient, when `doer` may accept or reject it (Gitea's rule). */
async function pendingFor(database: ForgeDatabase, context: RepositoryContext, doer: AccountRow) {
  const transfer = await findTransfer(database.db, context.repository.id);
  const recipient = transfer && (await findAccountById(database.db, transfer.recipient_id));
  if (!transfer || !recipient) throw new NotFound(HIDDEN);
  const allowed = isOrganization(recipient)
    ? await mayCreateRepositoryIn(database, recipient, doer)
    : recipient.id === doer.id;
  if (!allowed) throw new Forbidden("user does not have permissions to do this");
  return { transfer, recipient };
}

export async function acceptTransfer(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
): Promise<TransferOutcome> {
  const { transfer, recipient } = await pendingFor(database, context, doer);
  const teamIds = transfer.team_ids === "" ? [] : transfer.team_ids.split(",").map(Number);
  const teams = await teamsOf(database, recipient, teamIds);
  const moved = await transferOwnership(database, storage, context, recipient, teams, transfer);
  return { pending: false, repository: moved, owner: recipient };
}

export async function rejectTransfer(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
): Promise<void> {
  const { transfer } = await pendingFor(database, context, doer);
  if (!(await deleteTransfer(database.db, transfer.id))) throw new NotFound(HIDDEN);
}
