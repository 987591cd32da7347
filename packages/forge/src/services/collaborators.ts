import { Forbidden, Invalid, NotFound } from "@anvil/core";
import { type AccountRow, findAccountByName } from "../repositories/accounts.ts";
import {
  deleteCollaboration,
  findCollaboration,
  listCollaborators,
  upsertCollaboration,
} from "../repositories/repos.ts";
import { ACCOUNT_USER } from "../schemas/tables.ts";
import { ACCESS_ADMIN, COLLABORATOR_MODES, type Permission, repositoryPermission } from "./access.ts";
import { type ForgeDatabase, getUser, isAdmin } from "./accounts.ts";
import { type RepositoryContext, requireAccess } from "./repositories.ts";

// Gitea answers 422, not 404, when the named collaborator is not a user.
async function collaboratorAccount(database: ForgeDatabase, name: string): Promise<AccountRow> {
  const account = await findAccountByName(database.db, name);
  if (!account || account.type !== ACCOUNT_USER)
    throw new Invalid(`user does not exist [uid: 0, name: ${name}]`);
  return account;
}

export async function addCollaborator(
  database: ForgeDatabase,
  context: RepositoryContext,
  name: string,
  permission: string | undefined,
): Promise<void> {
  requireAccess(context, ACCESS_ADMIN);
  const account = await collaboratorAccount(database, name);
  if (account.id === context.owner.id)
    throw new Invalid("the owner of a repository cannot be its collaborator");
  await upsertCollaboration(
    database.db,
    context.repository.id,
    account.id,
    COLLABORATOR_MODES[permission ?? "write"],
  );
}

export async function removeCollaborator(
  database: ForgeDatabase,
  context: RepositoryContext,
  name: string,
): Promise<void> {
  requireAccess(context, ACCESS_ADMIN);
  const account = await collaboratorAccount(database, name);
  await deleteCollaboration(database.db, context.repository.id, account.id);
}

export async function isCollaborator(
  database: ForgeDatabase,
  context: RepositoryContext,
  name: string,
): Promise<void> {
  const account = await collaboratorAccount(database, name);
  if (!(await findCollaboration(database.db, context.repository.id, account.id)))
    throw new NotFound(`user is not a collaborator [name: ${name}]`);
}

export function collaborators(
  database: ForgeDatabase,
  context: RepositoryContext,
  window: { offset: number; limit: number },
) {
  return listCollaborators(database.db, context.repository.id, window);
}

/**
 * What `name` may do with the repository, as GET …/collaborators/{name}/permission reports: asked
 * by a site admin, an admin of the repository, or the user themself.
 */
export async function collaboratorAccess(
  database: ForgeDatabase,
  context: RepositoryContext,
  viewer: AccountRow,
  name: string,
): Promise<{ account: AccountRow; permission: Permission }> {
  if (!isAdmin(viewer) && viewer.lower_name !== name.toLowerCase() && context.permission.mode < ACCESS_ADMIN)
    throw new Forbidden(
      "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own",
    );
  const account = await getUser(database, name);
  return {
    account,
    permission: await repositoryPermission(database, context.repository, context.owner, account),
  };
}
