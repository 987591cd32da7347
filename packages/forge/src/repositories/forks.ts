import type { Kysely } from "kysely";
import type { ForgeTables } from "../schemas/tables.ts";
import type { RepositoryRow } from "./repos.ts";

/** The fork of repository `parentId` that `ownerId` owns (one at most), as pull requests from `owner:branch` need. */
export function findForkOf(
  db: Kysely<ForgeTables>,
  parentId: number,
  ownerId: number,
): Promise<RepositoryRow | undefined> {
  return db
    .selectFrom("repository")
    .selectAll()
    .where("fork_id", "=", parentId)
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
}

/** Moves the parent's fork counter by `delta` (a fork made: 1; one deleted: -1). */
export async function countFork(db: Kysely<ForgeTables>, parentId: number, delta: 1 | -1): Promise<void> {
  await db
    .updateTable("repository")
    .set((eb) => ({ num_forks: eb("num_forks", "+", delta) }))
    .where("id", "=", parentId)
    .execute();
}
