import { countRows } from "@anvil/core";
import type { Kysely } from "kysely";
import type { ForgeTables } from "../schemas/tables.ts";
import type { AccountRow } from "./accounts.ts";
import { COMMENT_TYPE_COMMENT } from "./comments.ts";

/** The issue a subscription is about, with its poster (who takes part without a comment). */
export interface WatchedIssue {
  id: number;
  poster_id: number;
}

/** An explicit choice to follow an issue (true) or not (false); undefined when never made. */
export async function findWatchChoice(
  db: Kysely<ForgeTables>,
  issueId: number,
  accountId: number,
): Promise<boolean | undefined> {
  const row = await db
    .selectFrom("issue_watch")
    .select("is_watching")
    .where("issue_id", "=", issueId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row === undefined ? undefined : Boolean(row.is_watching);
}

/** Records a choice to follow an issue or not, replacing an earlier one (one atomic upsert). */
export async function saveWatchChoice(
  db: Kysely<ForgeTables>,
  issueId: number,
  accountId: number,
  watching: boolean,
  now: string | Date,
): Promise<void> {
  await db
    .insertInto("issue_watch")
    .values({
      issue_id: issueId,
      account_id: accountId,
      is_watching: watching,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) =>
      conflict.columns(["issue_id", "account_id"]).doUpdateSet({ is_watching: watching, updated_at: now }),
    )
    .execute();
}

/** Whether the account takes part in the issue: its poster, or the poster of one of its comments. */
export async function isParticipant(
  db: Kysely<ForgeTables>,
  issue: WatchedIssue,
  accountId: number,
): Promise<boolean> {
  if (issue.poster_id === accountId) return true;
  const row = await db
    .selectFrom("comment")
    .select("id")
    .where("issue_id", "=", issue.id)
    .where("type", "=", COMMENT_TYPE_COMMENT)
    .where("poster_id", "=", accountId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The users who follow an issue, ordered by id: those who chose to, and its participants who did
 * not choose otherwise; users who cannot sign in are left out, as Gitea does.
 */
export async function listSubscribers(
  db: Kysely<ForgeTables>,
  issue: WatchedIssue,
  window: { offset: number; limit: number },
): Promise<{ rows: AccountRow[]; total: number }> {
  const choice = (watching: boolean) =>
    db
      .selectFrom("issue_watch")
      .select("account_id")
      .where("issue_id", "=", issue.id)
      .where("is_watching", "=", watching);
  const commenters = db
    .selectFrom("comment")
    .select("poster_id")
    .where("issue_id", "=", issue.id)
    .where("type", "=", COMMENT_TYPE_COMMENT);
  const query = db
    .selectFrom("account")
    .selectAll()
    .where((eb) =>
      eb.or([
        eb("id", "in", choice(true)),
        eb.and([
          eb.or([eb("id", "=", issue.poster_id), eb("id", "in", commenters)]),
          eb("id", "not in", choice(false)),
        ]),
      ]),
    )
    .where("is_active", "=", true)
    .where("prohibit_login", "=", false);
  const [rows, total] = await Promise.all([
    query.orderBy("id").limit(window.limit).offset(window.offset).execute(),
    countRows(db, query),
  ]);
  return { rows, total };
}
