import { countRows } from "@anvil/core";
import type { Insertable, Kysely, Selectable } from "kysely";
import type { CommentTable, ForgeTables } from "../schemas/tables.ts";

type Time = string | Date;

export type CommentRow = Selectable<CommentTable>;

/** Gitea's CommentTypeComment: the only type a user writes; every other type is a timeline event. */
export const COMMENT_TYPE_COMMENT = 0;

/** A comment row with what its URLs need of its issue. */
export type CommentInIssue = CommentRow & { issue_number: number; issue_is_pull: boolean | number };

/** Which comment rows a list asks for: Gitea's since/before compare the time of the last change. */
export interface CommentFilter {
  /** Only this type (a list of comments); every type when absent (the timeline). */
  type?: number;
  since?: Time;
  before?: Time;
}

export interface Window {
  offset: number;
  limit: number;
}

export async function insertComment(
  db: Kysely<ForgeTables>,
  comment: Insertable<CommentTable>,
): Promise<CommentRow> {
  return db.insertInto("comment").values(comment).returningAll().executeTakeFirstOrThrow();
}

export function findComment(db: Kysely<ForgeTables>, id: number): Promise<CommentInIssue | undefined> {
  return db
    .selectFrom("comment")
    .innerJoin("issue", "issue.id", "comment.issue_id")
    .selectAll("comment")
    .select(["issue.number as issue_number", "issue.is_pull as issue_is_pull"])
    .where("comment.id", "=", id)
    .executeTakeFirst();
}

/** Replaces a comment's body; false when the comment is gone. */
export async function updateCommentBody(
  db: Kysely<ForgeTables>,
  id: number,
  body: string,
  now: Time,
): Promise<boolean> {
  const result = await db
    .updateTable("comment")
    .set({ body, updated_at: now })
    .where("id", "=", id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Deletes a comment row and the reactions on it (they have no foreign key to follow); false when
 * another request deleted it first.
 */
export async function deleteCommentRow(db: Kysely<ForgeTables>, comment: CommentRow): Promise<boolean> {
  const result = await db.deleteFrom("comment").where("id", "=", comment.id).executeTakeFirst();
  if (result.numDeletedRows === 0n) return false;
  await db
    .deleteFrom("reaction")
    .where("issue_id", "=", comment.issue_id)
    .where("comment_id", "=", comment.id)
    .execute();
  return true;
}

/**
 * Moves an issue's comment counter by `delta` and, for a new comment, its time of last change, in
 * the caller's transaction (Gitea counts type-0 rows only).
 */
export async function countComment(
  db: Kysely<ForgeTables>,
  issueId: number,
  delta: 1 | -1,
  updatedAt?: Time,
): Promise<void> {
  await db
    .updateTable("issue")
    .set((eb) => ({
      num_comments: eb("num_comments", "+", delta),
      ...(updatedAt === undefined ? {} : { updated_at: updatedAt }),
    }))
    .where("id", "=", issueId)
    .execute();
}

function filtered(db: Kysely<ForgeTables>, filter: CommentFilter) {
  let query = db
    .selectFrom("comment")
    .innerJoin("issue", "issue.id", "comment.issue_id")
    .selectAll("comment")
    .select(["issue.number as issue_number", "issue.is_pull as issue_is_pull"]);
  if (filter.type !== undefined) query = query.where("comment.type", "=", filter.type);
  if (filter.since !== undefined) query = query.where("comment.updated_at", ">=", filter.since);
  if (filter.before !== undefined) query = query.where("comment.updated_at", "<=", filter.before);
  return query;
}

/** A page of the rows `query` finds, in Gitea's order (oldest first), and how many it finds. */
async function oldestFirst(
  db: Kysely<ForgeTables>,
  query: ReturnType<typeof filtered>,
  window: Window,
): Promise<{ rows: CommentInIssue[]; total: number }> {
  const [rows, total] = await Promise.all([
    query
      .orderBy("comment.created_at")
      .orderBy("comment.id")
      .limit(window.limit)
      .offset(window.offset)
      .execute(),
    countRows(db, query),
  ]);
  return { rows, total };
}

/** A page of one issue's comment rows, oldest first. */
export async function listIssueComments(
  db: Kysely<ForgeTables>,
  issueId: number,
  filter: CommentFilter,
  window: Window,
): Promise<{ rows: CommentInIssue[]; total: number }> {
  const query = filtered(db, filter).where("comment.issue_id", "=", issueId);
  return oldestFirst(db, query, window);
}

/**
 * A repository's comments of one type, oldest first; `isPull` keeps only those on pulls (true) or
 * on issues (false) when the caller reads only one of the two.
 */
export async function listRepositoryComments(
  db: Kysely<ForgeTables>,
  repoId: number,
  filter: CommentFilter & { isPull?: boolean },
  window: Window,
): Promise<{ rows: CommentInIssue[]; total: number }> {
  let query = filtered(db, filter).where("comment.repo_id", "=", repoId);
  if (filter.isPull !== undefined) query = query.where("issue.is_pull", "=", filter.isPull);
  return oldestFirst(db, query, window);
}
