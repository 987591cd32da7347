import { Forbidden, isUniqueViolation, NotFound, readBool, toStoredTime } from "@anvil/core";
import { type AccountRow, findAccountsByIds } from "../repositories/accounts.ts";
import type { IssueRow } from "../repositories/issues.ts";
import {
  deleteReaction,
  findReaction,
  insertReaction,
  listReactions,
  type ReactionKey,
  type ReactionRow,
  type ReactionTarget,
} from "../repositories/reactions.ts";
import { ACCESS_READ, accessTo } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { findCommentById } from "./comments.ts";
import { canWriteIssue, getIssue, issueUnit } from "./issues.ts";
import type { RepositoryContext } from "./repositories.ts";

// Reactions on issues and their comments, as Gitea's API has them: only the reactions of its
// `[ui] REACTIONS` setting (default below), one of each kind per user and target (a second
// answers 200 with the first), none added or removed on a locked issue but by its writers.

/** Gitea's default `[ui] REACTIONS`. */
export const ALLOWED_REACTIONS: readonly string[] = [
  "+1",
  "-1",
  "laugh",
  "hooray",
  "confused",
  "heart",
  "rocket",
  "eyes",
];

/** A reaction with who made it, as the lists and answers render it. */
export interface ReactionView {
  reaction: Pick<ReactionRow, "content" | "created_at">;
  user: AccountRow;
}

/** What a reaction request is about: a target in the issue, and the issue. */
interface Subject {
  issue: IssueRow;
  target: ReactionTarget;
}

async function issueSubject(
  database: ForgeDatabase,
  context: RepositoryContext,
  index: string,
): Promise<Subject> {
  const issue = await getIssue(database, context, index);
  return { issue, target: { issueId: issue.id, commentId: 0 } };
}

/**
 * The comment `id` of the repository as a reaction target. Gitea answers 404 for an unknown
 * comment or one of another repository; a caller who cannot read its issue gets `unreadable`.
 */
async function commentSubject(
  database: ForgeDatabase,
  context: RepositoryContext,
  id: string,
  unreadable: () => Error,
): Promise<Subject> {
  const found = await findCommentById(database, context, id);
  if ("bare" in found) throw new NotFound();
  if (accessTo(context.permission, issueUnit(found.issue)) < ACCESS_READ) throw unreadable();
  return { issue: found.issue, target: { issueId: found.issue.id, commentId: found.row.id } };
}

/** Where a reaction request points: issue `index`, or comment `id` of the repository. */
export type ReactionPlace = { index: string } | { commentId: string };

function subject(
  database: ForgeDatabase,
  context: RepositoryContext,
  place: ReactionPlace,
  reading: boolean,
) {
  if ("index" in place) return issueSubject(database, context, place.index);
  return commentSubject(database, context, place.commentId, () =>
    reading ? new Forbidden("no permission to get reactions") : new NotFound(),
  );
}

/** The reactions on an issue or a comment, oldest first. */
export async function reactionsOn(
  database: ForgeDatabase,
  context: RepositoryContext,
  place: ReactionPlace,
  window: { offset: number; limit: number },
): Promise<{ rows: ReactionView[]; total: number }> {
  const { target } = await subject(database, context, place, true);
  const page = await listReactions(database.db, target, ALLOWED_REACTIONS, window);
  const users = await findAccountsByIds(
    database.db,
    page.rows.map((row) => row.account_id),
  );
  return {
    rows: page.rows.flatMap((reaction) => {
      const user = users.get(reaction.account_id);
      return user ? [{ reaction, user }] : [];
    }),
    total: page.total,
  };
}

/** The target of a change, when `doer` may change reactions on it (not on a locked issue unless a writer). */
async function changeableSubject(
  database: ForgeDatabase,
  context: RepositoryContext,
  place: ReactionPlace,
): Promise<Subject> {
  const found = await subject(database, context, place, false);
  if (readBool(found.issue.is_locked) && !canWriteIssue(context, found.issue))
    throw new Forbidden("no permission to change reaction");
  return found;
}

/** Adds `doer`'s reaction; `created` is false when they had already given it (Gitea's 200). */
export async function addReaction(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  place: ReactionPlace,
  content: string,
): Promise<ReactionView & { created: boolean }> {
  const { target } = await changeableSubject(database, context, place);
  if (!ALLOWED_REACTIONS.includes(content)) throw new Forbidden(`'${content}' is not an allowed reaction`);
  const key: ReactionKey = { ...target, accountId: doer.id, content };
  const existing = await findReaction(database.db, key);
  if (existing) return { reaction: existing, user: doer, created: false };
  try {
    const reaction = await insertReaction(database.db, key, toStoredTime(new Date(), database.dialect));
    return { reaction, user: doer, created: true };
  } catch (error) {
    // The same reaction sent twice at once: the other request made it.
    const made = isUniqueViolation(error) ? await findReaction(database.db, key) : undefined;
    if (!made) throw error;
    return { reaction: made, user: doer, created: false };
  }
}

/** Removes `doer`'s reaction, if they had given it. */
export async function removeReaction(
  database: ForgeDatabase,
  context: RepositoryContext,
  doer: AccountRow,
  place: ReactionPlace,
  content: string,
): Promise<void> {
  const { target } = await changeableSubject(database, context, place);
  await deleteReaction(database.db, { ...target, accountId: doer.id, content });
}
