import { Forbidden, NotFound, readBool } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import {
  addTeamRepository,
  findRepository,
  isTeamRepository,
  listTeamRepositories,
  type RepositoryRow,
  removeTeamRepository,
} from "../repositories/repos.ts";
import type { TeamRow } from "../repositories/teams.ts";
import { ACCESS_ADMIN, repositoryPermission } from "./access.ts";
import { type ForgeDatabase, isAdmin } from "./accounts.ts";
import { createRepository, type NewRepository, type Storage } from "./repositories.ts";
import { canCreateOrgRepo, roleIn } from "./teams.ts";

/**
 * Makes a repository in an organization (with `create`), for its owners, site admins and members
 * of a team that may create repositories; as in Gitea, such teams that do not include every
 * repository are given the new one, so their members reach what they made.
 */
export async function createInOrganization(
  database: ForgeDatabase,
  org: AccountRow,
  doer: AccountRow,
  create: () => Promise<RepositoryRow>,
  refusal = "Given user is not allowed to create repository in organization.",
): Promise<RepositoryRow> {
  const role = await roleIn(database, org.id, doer);
  const creatingTeams = role.teams.filter(canCreateOrgRepo);
  if (!isAdmin(doer) && !role.owner && creatingTeams.length === 0) throw new Forbidden(refusal);
  const repository = await create();
  for (const team of creatingTeams) {
    if (!readBool(team.includes_all_repositories))
      await addTeamRepository(database.db, team.id, repository.id);
  }
  return repository;
}

export function createOrganizationRepository(
  database: ForgeDatabase,
  storage: Storage,
  org: AccountRow,
  doer: AccountRow,
  input: NewRepository,
): Promise<RepositoryRow> {
  return createInOrganization(database, org, doer, () =>
    createRepository(database, storage, org, doer, input),
  );
}

/** The team's repositories; only the public ones for a `public-only` token. */
export function teamRepositories(
  database: ForgeDatabase,
  team: TeamRow,
  window: { offset: number; limit: number; publicOnly: boolean },
) {
  return listTeamRepositories(
    database.db,
    { id: team.id, orgId: team.org_id, includesAll: readBool(team.includes_all_repositories) },
    window,
  );
}

/** One of the team's organization's repositories, named in a path; 404 for any other. */
export async function teamOrganizationRepository(
  database: ForgeDatabase,
  org: AccountRow,
  ownerName: string,
  name: string,
): Promise<RepositoryRow> {
  const repository =
    ownerName.toLowerCase() === org.lower_name ? await findRepository(database.db, org.id, name) : undefined;
  if (!repository) throw new NotFound("repository does not exist");
  return repository;
}

/** Whether the team reaches the repository (all of the organization's, or this one given to it). */
export async function teamHasRepository(
  database: ForgeDatabase,
  team: TeamRow,
  repository: RepositoryRow,
): Promise<boolean> {
  return (
    readBool(team.includes_all_repositories) || (await isTeamRepository(database.db, team.id, repository.id))
  );
}

/** Gitea checks, besides owning the organization, admin access to the repository itself. */
async function requireRepositoryAdmin(
  database: ForgeDatabase,
  org: AccountRow,
  repository: RepositoryRow,
  doer: AccountRow,
) {
  if ((await repositoryPermission(database, repository, org, doer)).mode < ACCESS_ADMIN)
    throw new Forbidden("Must have admin-level access to the repository");
}

/** Gives the repository to the team, or takes it away. */
export async function changeTeamRepository(
  database: ForgeDatabase,
  change: "give" | "take",
  team: TeamRow,
  org: AccountRow,
  repository: RepositoryRow,
  doer: AccountRow,
): Promise<void> {
  await requireRepositoryAdmin(database, org, repository, doer);
  if (change === "give") await addTeamRepository(database.db, team.id, repository.id);
  else await removeTeamRepository(database.db, team.id, repository.id);
}
