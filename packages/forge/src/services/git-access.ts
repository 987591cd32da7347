import { Forbidden, NotFound, readBool, Unauthorized } from "@anvil/core";
import type { GitService } from "../git/index.ts";
import { findAccountByName } from "../repositories/accounts.ts";
import { findRepository } from "../repositories/repos.ts";
import { ACCESS_READ, ACCESS_WRITE, accessTo, repositoryPermission } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import type { Caller } from "./auth.ts";
import { checkPublicOnly, type RepositoryContext } from "./repositories.ts";
import { checkScope } from "./scopes.ts";

/**
 * Who may fetch or push over HTTP and SSH, as Gitea decides, on the repository's code unit: a
 * missing repository is a 404; one the caller cannot fetch is a 401 for anonymous callers (so git
 * asks for credentials) and a 404 for signed-in ones, whatever other unit they may see; a push
 * needs code write (403 for readers) on a repository not archived.
 */
export async function authorizeGit(
  database: ForgeDatabase,
  ownerName: string,
  name: string,
  service: GitService,
  caller: Caller | undefined,
): Promise<RepositoryContext> {
  const owner = await findAccountByName(database.db, ownerName);
  const repository = owner && (await findRepository(database.db, owner.id, name));
  if (!owner || !repository) throw new NotFound("repository does not exist");
  const push = service === "git-receive-pack";
  if (caller?.scopes) checkScope(caller.scopes, "repository", push);
  const permission = await repositoryPermission(database, repository, owner, caller?.account);
  const access = accessTo(permission, "repo.code");
  const needed = push ? ACCESS_WRITE : ACCESS_READ;
  if (access < needed && !caller) throw new Unauthorized("authentication required");
  if (access < ACCESS_READ) throw new NotFound("repository does not exist");
  if (access < needed) throw new Forbidden("you do not have permission to push to this repository");
  if (push && readBool(repository.is_archived))
    throw new Forbidden("this repository is archived: it is read-only");
  checkPublicOnly(caller?.scopes, repository);
  return { repository, owner, permission };
}
