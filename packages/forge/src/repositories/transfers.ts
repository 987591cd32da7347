import type { Insertable, Kysely, Selectable } from "kysely";
import type { ForgeTables, RepoTransferTable } from "../schemas/tables.ts";

export type RepoTransferRow = Selectable<RepoTransferTable>;

export function findTransfer(db: Kysely<ForgeTables>, repoId: number): Promise<RepoTransferRow | undefined> {
  return db.selectFrom("repo_transfer").selectAll().where("repo_id", "=", repoId).executeTakeFirst();
}

/** Records a pending transfer; the unique repo_id refuses a second one for the repository. */
export async function insertTransfer(db: Kysely<ForgeTables>, transfer: Insertable<RepoTransferTable>) {
  await db.insertInto("repo_transfer").values(transfer).execute();
}

/** Removes the pending transfer; whether it was still there (the claim of an accept or reject). */
export async function deleteTransfer(db: Kysely<ForgeTables>, id: number): Promise<boolean> {
  const result = await db.deleteFrom("repo_transfer").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/**
 * Drops collaborations that a new owner makes redundant: the new owner's own, and, for an
 * organization, its members' (they reach the repository through its teams).
 */
export async function deleteRedundantCollaborations(
  db: Kysely<ForgeTables>,
  repoId: number,
  newOwnerId: number,
): Promise<void> {
  await db
    .deleteFrom("collaboration")
    .where("repo_id", "=", repoId)
    .where((eb) =>
      eb.or([
        eb("account_id", "=", newOwnerId),
        eb(
          "account_id",
          "in",
          eb.selectFrom("org_user").select("account_id").where("org_id", "=", newOwnerId),
        ),
      ]),
    )
    .execute();
}

/** Takes the repository away from every team (those of the organization it leaves). */
export async function deleteTeamRepositories(db: Kysely<ForgeTables>, repoId: number): Promise<void> {
  await db.deleteFrom("team_repo").where("repo_id", "=", repoId).execute();
}
