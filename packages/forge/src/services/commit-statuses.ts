import { createHash } from "node:crypto";
import { Invalid, NotFound, toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import { toPayloadCommit } from "../convert/commit.ts";
import { toApiCommitStatus } from "../convert/commit-status.ts";
import { checkRevision, getCommit, resolveCommit } from "../git/index.ts";
import { type AccountRow, findAccountsByIds, findUsersByEmails } from "../repositories/accounts.ts";
import {
  type CommitStatusRow,
  type CommitStatusSort,
  insertCommitStatus,
  latestCommitStatuses,
  listCommitStatuses,
  nextCommitStatusIndex,
} from "../repositories/commit-statuses.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { type RepositoryContext, repositoryFilesPath, type Storage } from "./repositories.ts";
import { queueRepositoryEvent, webhookUrls } from "./webhook-events.ts";

export type { CommitStatusRow } from "../repositories/commit-statuses.ts";

// Statuses that clients (CI systems) report on commits, and the state they combine into, which
// pull requests and branch protection read through combinedStatus().

/** Gitea's commit status states, from worst to best: the combined state is the worst reported. */
export const COMMIT_STATUS_STATES = ["error", "failure", "warning", "pending", "success", "skipped"] as const;

export type CommitStatusState = (typeof COMMIT_STATUS_STATES)[number];

const SORTS: ReadonlySet<string> = new Set([
  "oldest",
  "recentupdate",
  "leastupdate",
  "leastindex",
  "highestindex",
]);

// Gitea keeps these as TEXT without a limit; a status is a line and a link, so these are ample.
const MAX_CONTEXT = 1024;
const MAX_TEXT = 16 * 1024;

export function isCommitStatusState(state: string): state is CommitStatusState {
  return (COMMIT_STATUS_STATES as readonly string[]).includes(state);
}

/**
 * The commit a status route's ref names, looked up as Gitea does: a branch, then a tag, then a
 * commit id or anything else git resolves; undefined when it names none.
 */
export async function statusTarget(storage: Storage, where: RepositoryContext, ref: string) {
  checkRevision(ref);
  const path = repositoryFilesPath(storage, where);
  for (const candidate of [`refs/heads/${ref}`, `refs/tags/${ref}`, ref]) {
    const id = await resolveCommit(path, candidate);
    if (id !== undefined) return id;
  }
  return undefined;
}

export interface CombinedCommitStatus {
  /** The worst state among the latest status of each context (error counts as failure, as Gitea shows it); undefined when none was reported. */
  state: CommitStatusState | undefined;
  /** The latest status of each context, the most recently reported first. */
  statuses: CommitStatusRow[];
}

/** The combined status of commit `sha` (a full commit id) in repository `repoId`. */
export async function combinedStatus(
  db: Kysely<ForgeTables>,
  repoId: number,
  sha: string,
): Promise<CombinedCommitStatus> {
  const statuses = await latestCommitStatuses(db, repoId, sha);
  let worst: number | undefined;
  for (const status of statuses) {
    const rank = COMMIT_STATUS_STATES.indexOf(status.state as CommitStatusState);
    if (rank !== -1 && (worst === undefined || rank < worst)) worst = rank;
  }
  const state = worst === undefined ? undefined : COMMIT_STATUS_STATES[worst];
  return { state: state === "error" ? "failure" : state, statuses };
}

export interface NewCommitStatus {
  state: string;
  target_url?: string;
  description?: string;
  context?: string;
}

function checkLength(field: string, value: string, max: number): string {
  if (value.length > max) throw new Invalid(`[${field}]: MaxSize`);
  return value.trim();
}

/**
 * Records a status on the commit `ref` names (stored under its full id) and queues the `status`
 * webhook event in the same transaction; the index comes from the commit's counter there too.
 */
export async function createCommitStatus(
  database: ForgeDatabase,
  storage: Storage,
  where: RepositoryContext,
  doer: AccountRow,
  ref: string,
  input: NewCommitStatus,
): Promise<CommitStatusRow> {
  if (!isCommitStatusState(input.state)) throw new Invalid("[State]: invalid commit status state");
  const targetUrl = checkLength("TargetURL", input.target_url ?? "", MAX_TEXT);
  const description = checkLength("Description", input.description ?? "", MAX_TEXT);
  const context = checkLength("Context", input.context ?? "", MAX_CONTEXT);
  checkRevision(ref);
  const commit = await getCommit(repositoryFilesPath(storage, where), ref);
  if (!commit) throw new NotFound(`commit does not exist [id: ${ref}]`);
  const users = await findUsersByEmails(database.db, [commit.author.email, commit.committer.email]);
  const now = toStoredTime(new Date(), database.dialect);
  return database.db.transaction().execute(async (trx) => {
    const index = await nextCommitStatusIndex(trx, where.repository.id, commit.id);
    const row = await insertCommitStatus(trx, {
      repo_id: where.repository.id,
      index,
      sha: commit.id,
      state: input.state,
      target_url: targetUrl,
      description,
      context,
      context_hash: createHash("sha1").update(context).digest("hex"),
      creator_id: doer.id,
      created_at: now,
      updated_at: now,
    });
    const { rootUrl } = webhookUrls(trx);
    const fullName = `${where.owner.name}/${where.repository.name}`;
    const status = toApiCommitStatus(row, fullName, rootUrl, doer, undefined);
    await queueRepositoryEvent(trx, {
      repoId: where.repository.id,
      senderId: doer.id,
      type: "status",
      fields: {
        commit: toPayloadCommit(
          commit,
          fullName,
          rootUrl,
          (email) => users.get(email.toLowerCase())?.name ?? "",
        ),
        context: row.context,
        created_at: status.created_at,
        description: row.description,
        id: row.id,
        sha: row.sha,
        state: row.state,
        target_url: row.target_url,
        updated_at: status.updated_at,
      },
    });
    return row;
  });
}

export interface StatusListQuery {
  sort?: string;
  state?: string;
  offset: number;
  limit: number;
}

/** One page of the statuses of commit `sha`, in Gitea's orders; an unknown sort or state filters nothing. */
export function commitStatuses(database: ForgeDatabase, repoId: number, sha: string, query: StatusListQuery) {
  return listCommitStatuses(database.db, repoId, sha, {
    sort: query.sort !== undefined && SORTS.has(query.sort) ? (query.sort as CommitStatusSort) : undefined,
    // Gitea filters by the five states it had first, and ignores any other.
    state:
      query.state !== undefined && isCommitStatusState(query.state) && query.state !== "skipped"
        ? query.state
        : undefined,
    offset: query.offset,
    limit: query.limit,
  });
}

/** The accounts that reported these statuses, by id. */
export function statusCreators(database: ForgeDatabase, rows: readonly CommitStatusRow[]) {
  return findAccountsByIds(
    database.db,
    rows.flatMap((row) => (row.creator_id === null ? [] : [row.creator_id])),
  );
}
