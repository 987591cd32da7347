import { countRows } from "@anvil/core";
import type { Insertable, Kysely, Selectable } from "kysely";
import type { CommitStatusTable, ForgeTables } from "../schemas/tables.ts";

export type CommitStatusRow = Selectable<CommitStatusTable>;

/** Gitea's orders of a commit's statuses; newest first by default. */
export type CommitStatusSort = "oldest" | "recentupdate" | "leastupdate" | "leastindex" | "highestindex";

/** The next index of the statuses of commit `sha`: an upsert that counts up in one statement. */
export async function nextCommitStatusIndex(
  db: Kysely<ForgeTables>,
  repoId: number,
  sha: string,
): Promise<number> {
  const row = await db
    .insertInto("commit_status_index")
    .values({ repo_id: repoId, sha, max_index: 1 })
    .onConflict((conflict) =>
      conflict
        .columns(["repo_id", "sha"])
        .doUpdateSet((eb) => ({ max_index: eb("commit_status_index.max_index", "+", 1) })),
    )
    .returning("max_index")
    .executeTakeFirstOrThrow();
  return Number(row.max_index);
}

export function insertCommitStatus(
  db: Kysely<ForgeTables>,
  status: Insertable<CommitStatusTable>,
): Promise<CommitStatusRow> {
  return db.insertInto("commit_status").values(status).returningAll().executeTakeFirstOrThrow();
}

export async function listCommitStatuses(
  db: Kysely<ForgeTables>,
  repoId: number,
  sha: string,
  query: { state?: string; sort?: CommitStatusSort; offset: number; limit: number },
): Promise<{ rows: CommitStatusRow[]; total: number }> {
  let selection = db
    .selectFrom("commit_status")
    .selectAll()
    .where("repo_id", "=", repoId)
    .where("sha", "=", sha);
  if (query.state !== undefined) selection = selection.where("state", "=", query.state);
  // Statuses are never edited, so their update time is their creation time, as in Gitea; the id
  // breaks ties between statuses of the same second.
  const ordered =
    query.sort === "oldest" || query.sort === "leastupdate"
      ? selection.orderBy("created_at", "asc").orderBy("id", "asc")
      : query.sort === "leastindex"
        ? selection.orderBy("index", "desc")
        : query.sort === "highestindex"
          ? selection.orderBy("index", "asc")
          : selection.orderBy("created_at", "desc").orderBy("id", "desc");
  const [rows, total] = await Promise.all([
    ordered.offset(query.offset).limit(query.limit).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

/** The latest status of each context of commit `sha`, the most recently reported context first. */
export function latestCommitStatuses(
  db: Kysely<ForgeTables>,
  repoId: number,
  sha: string,
): Promise<CommitStatusRow[]> {
  const latest = db
    .selectFrom("commit_status")
    .select((eb) => eb.fn.max("index").as("index"))
    .where("repo_id", "=", repoId)
    .where("sha", "=", sha)
    .groupBy("context_hash");
  return db
    .selectFrom("commit_status")
    .selectAll()
    .where("repo_id", "=", repoId)
    .where("sha", "=", sha)
    .where("index", "in", latest)
    .orderBy("index", "desc")
    .execute();
}
