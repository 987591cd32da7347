import { indexTexts, textMatch } from "@anvil/core";
import { type Kysely, sql } from "kysely";
import type { ForgeTables } from "../schemas/tables.ts";

/** The text index of issues (migration 0009); an issue's entry goes with its row. */
const ISSUE_SEARCH = "issue_search";

/**
 * Sets what a search finds the issues by, their title and body; call it in the transaction that
 * creates or edits them.
 */
export function indexIssues(
  trx: Kysely<ForgeTables>,
  issues: readonly { id: number; title: string; body: string }[],
): Promise<void> {
  return indexTexts(
    trx,
    ISSUE_SEARCH,
    issues.map((issue) => ({ docId: issue.id, text: `${issue.title}\n${issue.body}` })),
  );
}

/**
 * Whether the issue (`issue.id`) has every word of `query` in its title or body, as words or word
 * prefixes; a query without a word finds none.
 */
export function issueMatches(db: Kysely<ForgeTables>, query: string) {
  return textMatch(db, ISSUE_SEARCH, sql.ref("issue.id"), query);
}
