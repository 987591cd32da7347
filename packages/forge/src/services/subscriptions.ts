import { Forbidden, NotFound, toStoredTime } from "@anvil/core";
import { type AccountRow, findAccountByName } from "../repositories/accounts.ts";
import type { IssueRow } from "../repositories/issues.ts";
import {
  findWatchChoice,
  isParticipant,
  listSubscribers,
  saveWatchChoice,
} from "../repositories/subscriptions.ts";
import { type ForgeDatabase, isAdmin } from "./accounts.ts";
import { getIssue } from "./issues.ts";
import type { RepositoryContext } from "./repositories.ts";

// Who follows an issue, as Gitea decides it (CheckIssueWatch): an explicit choice (issue_watch)
// wins; without one, the issue's poster and everyone who commented on it follow it. Nothing is
// written when an issue or a comment is posted: taking part is read from the rows themselves.

/** Whether `account` follows `issue`. */
async function follows(database: ForgeDatabase, issue: IssueRow, account: AccountRow): Promise<boolean> {
  const choice = await findWatchChoice(database.db, issue.id, account.id);
  return choice ?? (await isParticipant(database.db, issue, account.id));
}

/** The users who follow issue `index`, by id. */
export async function issueSubscribers(
  database: ForgeDatabase,
  context: RepositoryContext,
  index: string,
  window: { offset: number; limit: number },
): Promise<{ rows: AccountRow[]; total: number }> {
  const issue = await getIssue(database, context, index);
  return listSubscribers(database.db, issue, window);
}

/** Whether the caller follows issue `index`, with the issue for Gitea's WatchInfo. */
export async function subscriptionOf(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  index: string,
): Promise<{ issue: IssueRow; subscribed: boolean }> {
  const issue = await getIssue(database, context, index);
  return { issue, subscribed: await follows(database, issue, doer) };
}

/**
 * Makes user `name` follow issue `index` or not, as `doer` (the user themself or a site admin, as
 * in Gitea); `changed` is false when they already did (Gitea's 200, else 201).
 */
export async function setSubscription(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  index: string,
  name: string,
  watching: boolean,
): Promise<{ changed: boolean }> {
  const issue = await getIssue(database, context, index);
  const user = await findAccountByName(database.db, name);
  if (!user) throw new NotFound(`user does not exist [uid: 0, name: ${name}]`);
  if (user.id !== doer.id && !isAdmin(doer))
    throw new Forbidden(`${doer.name} is not permitted to change subscriptions for ${user.name}`);
  if ((await follows(database, issue, user)) === watching) return { changed: false };
  await saveWatchChoice(database.db, issue.id, user.id, watching, toStoredTime(new Date(), database.dialect));
  return { changed: true };
}
