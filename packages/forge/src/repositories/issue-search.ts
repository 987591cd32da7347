import { indexTexts, matchingDocs } from "@anvil/core";
import type { Kysely } from "kysely";
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
 * The ids of the issues whose title or body holds every word of `query` (as words or word
 * prefixes), for `where("issue.id", "in", …)`; a query without a word finds none.
 */
export function issuesMatching(db: Kysely<ForgeTables>, query: string) {
  return matchingDocs(db, ISSUE_SEARCH, query);
}
