import { Forbidden } from "@anvil/core";
import type { Insertable } from "kysely";
import { type AccountRow, lockAccount } from "../repositories/accounts.ts";
import { countOwnedRepositories, insertRepository, type RepositoryRow } from "../repositories/repos.ts";
import type { RepositoryTable } from "../schemas/tables.ts";
import { type ForgeDatabase, isAdmin } from "./accounts.ts";

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
 * exempt, as in Gitea). The owner's row is locked while their repositories are counted, so that
 * creations racing for the last place cannot all pass.
 */
export async function insertWithinLimit(
  database: ForgeDatabase,
  owner: AccountRow,
  doer: AccountRow,
  siteLimit: number,
  row: Insertable<RepositoryTable>,
): Promise<RepositoryRow> {
  if (isAdmin(doer)) return insertRepository(database.db, row);
  return database.db.transaction().execute(async (trx) => {
    const current = await lockAccount(trx, owner.id, database.dialect);
    const limit = current && creationLimit(current, siteLimit);
    if (limit !== undefined && (await countOwnedRepositories(trx, owner.id)) >= limit)
      throw new Forbidden(`user has reached maximum limit of repositories [limit: ${limit}]`);
    return insertRepository(trx, row);
  });
}
