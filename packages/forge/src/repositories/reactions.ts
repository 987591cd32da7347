import { countRows } from "@anvil/core";
import type { Kysely, Selectable } from "kysely";
import type { ForgeTables, ReactionTable } from "../schemas/tables.ts";

export type ReactionRow = Selectable<ReactionTable>;

/** What a reaction is on: an issue (comment 0) or one of its comments. */
export interface ReactionTarget {
  issueId: number;
  commentId: number;
}

/** One user's reaction of one kind on a target. */
export interface ReactionKey extends ReactionTarget {
  accountId: number;
  content: string;
}

export function findReaction(db: Kysely<ForgeTables>, key: ReactionKey): Promise<ReactionRow | undefined> {
  return db
    .selectFrom("reaction")
    .selectAll()
    .where("issue_id", "=", key.issueId)
    .where("comment_id", "=", key.commentId)
    .where("account_id", "=", key.accountId)
    .where("content", "=", key.content)
    .executeTakeFirst();
}

/** Inserts a reaction; the unique constraint refuses a second one of the same key. */
export function insertReaction(
  db: Kysely<ForgeTables>,
  key: ReactionKey,
  createdAt: string | Date,
): Promise<ReactionRow> {
  return db
    .insertInto("reaction")
    .values({
      issue_id: key.issueId,
      comment_id: key.commentId,
      account_id: key.accountId,
      content: key.content,
      created_at: createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteReaction(db: Kysely<ForgeTables>, key: ReactionKey): Promise<void> {
  await db
    .deleteFrom("reaction")
    .where("issue_id", "=", key.issueId)
    .where("comment_id", "=", key.commentId)
    .where("account_id", "=", key.accountId)
    .where("content", "=", key.content)
    .execute();
}

/**
 * The reactions on a target whose content is one of `contents` (reactions no longer allowed are
 * kept but not shown, as in Gitea), oldest first; a page when `window` is given.
 */
export async function listReactions(
  db: Kysely<ForgeTables>,
  target: ReactionTarget,
  contents: readonly string[],
  window?: { offset: number; limit: number },
): Promise<{ rows: ReactionRow[]; total: number }> {
  const query = db
    .selectFrom("reaction")
    .selectAll()
    .where("issue_id", "=", target.issueId)
    .where("comment_id", "=", target.commentId)
    .where("content", "in", [...contents]);
  const ordered = query.orderBy("created_at").orderBy("id");
  const [rows, total] = await Promise.all([
    window ? ordered.limit(window.limit).offset(window.offset).execute() : ordered.execute(),
    countRows(db, query),
  ]);
  return { rows, total };
}
