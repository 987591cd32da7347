import { dialectOf } from "@anvil/core";
import type { Kysely } from "kysely";
import { toApiPullRequest } from "../convert/pull.ts";
import type { AccountRow } from "../repositories/accounts.ts";
import type { IssueRow } from "../repositories/issues.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import { ACCESS_OWNER } from "./access.ts";
import { ownerView, pullViews } from "./pull-views.ts";
import { type HookEventType, queueRepositoryEvent, webhookUrls } from "./webhook-events.ts";

/** The pull_request event of each issue event, for the issue side of a pull. */
export const PULL_EVENT_OF = {
  issues: "pull_request",
  issue_assign: "pull_request_assign",
  issue_label: "pull_request_label",
  issue_milestone: "pull_request_milestone",
} as const satisfies Record<string, HookEventType>;

export interface PullEventExtra {
  changes?: Record<string, { from: string }>;
  requested_reviewer?: unknown;
  review?: { type: string; content: string };
}

/**
 * Queues a `pull_request`-family webhook event about the pull of `issue` as it now is, in the
 * transaction: Gitea's PullRequestPayload (action, number, pull_request, changes, requested
 * reviewer, review), the repositories as their owners see them.
 */
export async function queuePullEvent(
  trx: Kysely<ForgeTables>,
  doer: AccountRow,
  issue: IssueRow,
  type: HookEventType,
  action: string,
  extra: PullEventExtra = {},
): Promise<void> {
  await queueRepositoryEvent(trx, {
    repoId: issue.repo_id,
    senderId: doer.id,
    type,
    fields: async () => {
      const base = await ownerView(trx, issue.repo_id);
      const owner = () => ({ mode: ACCESS_OWNER });
      const database = { db: trx, dialect: dialectOf(trx), close: async () => {} };
      const [view] = base ? await pullViews(database, base, [issue], undefined, owner) : [];
      return {
        action,
        number: issue.number,
        ...(extra.changes ? { changes: extra.changes } : {}),
        pull_request: view ? toApiPullRequest(view, undefined, webhookUrls(trx)) : null,
        ...(extra.requested_reviewer ? { requested_reviewer: extra.requested_reviewer } : {}),
        ...(extra.review ? { review: extra.review } : {}),
        commit_id: "",
      };
    },
  });
}
