import { type DialectName, Forbidden } from "@anvil/core";
import type { Insertable, Kysely } from "kysely";
import { type AccountRow, lockAccount } from "../repositories/accounts.ts";
import { countOwnedRepositories, insertRepository, type RepositoryRow } from "../repositories/repos.ts";
import type { ForgeTables, RepositoryTable } from "../schemas/tables.ts";
import { isAdmin } from "./accounts.ts";

/**
 * The most repositories `owner` may have, as Gitea's MaxCreationLimit: its own max_repo_creation,
 * or the site's when that is -1; undefined when there is no limit. Site admins have none.
 */
function creationLimit(owner: AccountRow, siteLimit: number): number | undefined {
  if (isAdmin(owner)) return undefined;
  const limit = owner.max_repo_creation <= -1 ? siteLimit : owner.max_repo_creation;
  return limit <= -1 ? undefined : limit;
}

/**
 * Inserts a repository row unless its owner has reached their limit (a site admin creating it is
 * exempt, as in Gitea). Runs inside the caller's transaction (the one that also moves the new
 * repository into place): the owner's row is locked there while their repositories are counted,
 * so that creations racing for the last place cannot all pass.
 */
export async function insertWithinLimit(
  trx: Kysely<ForgeTables>,
  dialect: DialectName,
  owner: AccountRow,
  doer: AccountRow,
  siteLimit: number,
  row: Insertable<RepositoryTable>,
): Promise<RepositoryRow> {
  if (isAdmin(doer)) return insertRepository(trx, row);
  const current = await lockAccount(trx, owner.id, dialect);
  const limit = current && creationLimit(current, siteLimit);
  if (limit !== undefined && (await countOwnedRepositories(trx, owner.id)) >= limit)
    throw new Forbidden(`user has reached maximum limit of repositories [limit: ${limit}]`);
  return insertRepository(trx, row);
}
