import { type AnyKysely, createTextIndex, type NamedMigration } from "@anvil/core";

/**
 * The text index of issue searches (`q`): one entry per issue, its title and body, kept by the
 * issue services in the transaction of each write; deleting an issue (or its repository) drops
 * its entry. Issues came with 0008, which no release has run, so there is nothing to backfill.
 */
export const issueSearch: NamedMigration = {
  name: "0009_issue_search",
  async up(db: AnyKysely) {
    await createTextIndex(db, "issue_search", { documents: "issue" });
  },
};
