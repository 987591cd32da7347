import { Forbidden, NotFound, Unauthorized } from "@anvil/core";
import type { GitService } from "../git/index.ts";
import { findAccountByName } from "../repositories/accounts.ts";
import { findRepository } from "../repositories/repos.ts";
import { ACCESS_READ, ACCESS_WRITE, accessTo, repositoryPermission } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import type { Caller } from "./auth.ts";
import { checkPublicOnly, mustNotBeArchived, type RepositoryContext } from "./repositories.ts";
import { checkScope } from "./scopes.ts";

// Gitea's words, which git shows its user ("remote: …" over HTTP, on stderr over SSH).
const ARCHIVED_PUSH =
  "This repo is archived. You can view files and clone it, but cannot push or open issues/pull-requests.";

const unauthenticated = () => new Unauthorized("authentication required");

/**
 * Who may fetch or push over HTTP and SSH, as Gitea decides, on the repository's code unit: a
 * missing repository is a 404; one the caller cannot fetch is a 401 for anonymous callers (so git
 * asks for credentials) and a 404 for signed-in ones, whatever other unit they may see; a push
 * to an archived repository is Locked (see mustNotBeArchived), and otherwise needs code write (403
 * for readers).
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
  if (access < ACCESS_READ) throw caller ? new NotFound("repository does not exist") : unauthenticated();
  // Gitea refuses a push to an archived repository before it asks who pushes.
  if (push) mustNotBeArchived(repository, ARCHIVED_PUSH);
  if (access < ACCESS_WRITE && push)
    throw caller ? new Forbidden("you do not have permission to push to this repository") : unauthenticated();
  checkPublicOnly(caller?.scopes, repository);
  return { repository, owner, permission };
}
