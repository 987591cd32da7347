import type { AccountRow } from "../repositories/accounts.ts";
import type { CommitStatusRow } from "../repositories/commit-statuses.ts";
import { link } from "./link.ts";
import { apiTime } from "./time.ts";
import { toApiUser } from "./user.ts";

/** A commit status as Gitea's CommitStatus: its `id` is its index among the commit's statuses. */
export function toApiCommitStatus(
  row: CommitStatusRow,
  fullName: string,
  rootUrl: URL,
  creator: AccountRow | undefined,
  viewer: AccountRow | undefined,
) {
  // Statuses are never edited: Gitea shows the creation time as the update time too.
  const created = apiTime(row.created_at);
  return {
    id: row.index,
    status: row.state,
    target_url: row.target_url,
    description: row.description,
    url: link(rootUrl, `api/v1/repos/${fullName}/statuses/${row.sha}`),
    context: row.context,
    creator: creator ? toApiUser(creator, viewer, rootUrl) : null,
    created_at: created,
    updated_at: created,
  };
}
