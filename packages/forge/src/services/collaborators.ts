import { Invalid, NotFound } from "@anvil/core";
import { type AccountRow, findAccountByName } from "../repositories/accounts.ts";
import {
  deleteCollaboration,
  findCollaboration,
  listCollaborators,
  upsertCollaboration,
} from "../repositories/repos.ts";
import { ACCOUNT_USER } from "../schemas/tables.ts";
import { ACCESS_ADMIN, ACCESS_READ, COLLABORATOR_MODES, repositoryAccess } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
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
  requireAccess(context, ACCESS_READ);
  const account = await collaboratorAccount(database, name);
  if (!(await findCollaboration(database.db, context.repository.id, account.id)))
    throw new NotFound(`user is not a collaborator [name: ${name}]`);
}

export function collaborators(
  database: ForgeDatabase,
  context: RepositoryContext,
  window: { offset: number; limit: number },
) {
  requireAccess(context, ACCESS_READ);
  return listCollaborators(database.db, context.repository.id, window);
}

/** What `name` may do with the repository, as GET …/collaborators/{name}/permission reports. */
export async function collaboratorAccess(
  database: ForgeDatabase,
  context: RepositoryContext,
  name: string,
): Promise<{ account: AccountRow; access: number }> {
  requireAccess(context, ACCESS_READ);
  const account = await collaboratorAccount(database, name);
  return { account, access: await repositoryAccess(database, context.repository, context.owner, account) };
}
