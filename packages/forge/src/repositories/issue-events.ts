import type { Insertable, Kysely } from "kysely";
import type { CommentTable, ForgeTables } from "../schemas/tables.ts";

/** Gitea's CommentType numbers of the timeline events an issue change records. */
export const EVENT = {
  reopen: 1,
  close: 2,
  label: 7,
  milestone: 8,
  assignees: 9,
  changeTitle: 10,
  review: 22,
  addedDeadline: 16,
  modifiedDeadline: 17,
  removedDeadline: 18,
  lock: 23,
  unlock: 24,
  reviewRequest: 27,
  mergePull: 28,
  dismissReview: 32,
  pin: 36,
  unpin: 37,
} as const;

export type TimelineEvent = Omit<Insertable<CommentTable>, "created_at" | "updated_at">;

/**
 * Records one timeline event (a comment row whose type is not 0) in the caller's transaction;
 * events are not comments, so the num_comments stays as it is.
 */
export async function insertTimelineEvent(
  trx: Kysely<ForgeTables>,
  event: TimelineEvent,
  at: string | Date,
): Promise<void> {
  await trx
    .insertInto("comment")
    .values({ ...event, created_at: at, updated_at: at })
    .execute();
}
