import { randomUUID } from "node:crypto";
import { dialectOf, noteQueuedDeliveries, queueDelivery } from "@anvil/core";
import type { Kysely } from "kysely";
import { toApiHook } from "../convert/hook.ts";
import { toApiOrganization } from "../convert/organization.ts";
import { type CloneUrls, toApiRepository } from "../convert/repository.ts";
import { toApiUser } from "../convert/user.ts";
import { type AccountRow, findAccountById } from "../repositories/accounts.ts";
import { findRepositoryById, type RepositoryRow, topicsOfRepository } from "../repositories/repos.ts";
import { hooksHearing, type WebhookRow } from "../repositories/webhooks.ts";
import { ACCOUNT_ORGANIZATION, type ForgeTables } from "../schemas/tables.ts";
import { ACCESS_OWNER } from "./access.ts";
import { compileBranchFilter } from "./branch-filter.ts";
import { deliveryRequest } from "./webhook-payloads.ts";

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
  | "issue_comment"
  | "pull_request"
  | "pull_request_assign"
  | "pull_request_label"
  | "pull_request_milestone"
  | "pull_request_comment"
  | "pull_request_sync"
  | "pull_request_review_request"
  | "pull_request_review_approved"
  | "pull_request_review_rejected"
  | "pull_request_review_comment"
  | "fork"
  | "release"
  | "status";

/** A change to a repository that its hooks (and its owner's, and the system's) hear of. */
export interface RepositoryEvent {
  repoId: number;
  /** The account that made the change (the payload's `sender`, and `pusher` for a push). */
  senderId: number;
  type: HookEventType;
  /**
   * The payload's own fields (action, number, issue, comment, changes, ref, commits…), in
   * Gitea's API shapes; `repository` and `sender` are added by the webhook service. A function is
   * called only when some hook hears the event (a pull's fields cost a git read).
   */
  fields: Record<string, unknown> | (() => Promise<Record<string, unknown>>);
  /** The branch a push, create or delete is about, for a hook's branch filter. */
  branch?: string;
}

/** The outbox topic of webhook deliveries: ("hook", id) is hook id's history. */
export const HOOK_TOPIC = "hook";

// --- How payloads link back to the forge ---------------------------------------------------------

/** What payloads need of the running forge: its root URL and SSH port, for the repository's URLs. */
export interface WebhookSite {
  urls(): CloneUrls;
}

// Keyed by the database's query adapter, which a transaction shares with the Kysely instance it
// came from: queueRepositoryEvent gets only a transaction, and several forges (tests) may run in
// one process, each on its own database.
const sites = new WeakMap<object, WebhookSite>();

function adapterOf(db: Kysely<ForgeTables>): object {
  return db.getExecutor().adapter;
}

/** Called by the running forge; until then (an admin command), links use http://localhost:3000/. */
export function registerWebhookSite(db: Kysely<ForgeTables>, site: WebhookSite): void {
  sites.set(adapterOf(db), site);
}

const UNREGISTERED: WebhookSite = { urls: () => ({ rootUrl: new URL("http://localhost:3000/") }) };

export function webhookUrls(db: Kysely<ForgeTables>): CloneUrls {
  return (sites.get(adapterOf(db)) ?? UNREGISTERED).urls();
}

// --- Queueing -------------------------------------------------------------------------------------

/** X-Gitea-Hook-Installation-Target-Type of a hook: whose hook it is. */
async function installationTarget(
  trx: Kysely<ForgeTables>,
  hook: WebhookRow,
  owner?: AccountRow,
): Promise<HookSite["target"]> {
  if (hook.repo_id !== null) return "repository";
  if (hook.owner_id === null) return "system";
  const account = owner?.id === hook.owner_id ? owner : await findAccountById(trx, hook.owner_id);
  return account?.type === ACCOUNT_ORGANIZATION ? "organization" : "user";
}

/** Queues one delivery of `payload` to `hook` in the caller's transaction. */
async function queueMessage(
  trx: Kysely<ForgeTables>,
  hook: WebhookRow,
  target: string,
  type: string,
  payload: Record<string, unknown>,
): Promise<void> {
  const uuid = randomUUID();
  const request = deliveryRequest(hook, { type, payload, target, uuid });
  await queueDelivery(trx, dialectOf(trx), {
    topic: HOOK_TOPIC,
    topicId: hook.id,
    event: type,
    ...request,
    uuid,
  });
  noteQueuedDeliveries();
}

/** The repository as its owner sees it, as Gitea puts it into every payload (a fork with its parent). */
async function repositoryJson(
  trx: Kysely<ForgeTables>,
  repository: RepositoryRow,
  owner: AccountRow,
): Promise<ReturnType<typeof toApiRepository>> {
  const topics = await topicsOfRepository(trx, repository.id);
  const parent = repository.fork_id === null ? undefined : await findRepositoryById(trx, repository.fork_id);
  const parentOwner = parent && (await findAccountById(trx, parent.owner_id));
  const parentJson =
    parent && parentOwner
      ? toApiRepository(
          parent,
          parentOwner,
          parentOwner,
          { mode: ACCESS_OWNER },
          webhookUrls(trx),
          await topicsOfRepository(trx, parent.id),
        )
      : null;
  return toApiRepository(
    repository,
    owner,
    owner,
    { mode: ACCESS_OWNER },
    webhookUrls(trx),
    topics,
    parentJson,
  );
}

/** A repository by id as payloads show it (a fork's `forkee`…); undefined when it is gone. */
export async function repositoryPayload(trx: Kysely<ForgeTables>, id: number) {
  const repository = await findRepositoryById(trx, id);
  const owner = repository && (await findAccountById(trx, repository.owner_id));
  return repository && owner ? repositoryJson(trx, repository, owner) : undefined;
}

function senderJson(trx: Kysely<ForgeTables>, sender: AccountRow) {
  return toApiUser(sender, undefined, webhookUrls(trx).rootUrl);
}

function subscribed(hook: WebhookRow, type: string, branch: string | undefined): boolean {
  if (!(JSON.parse(hook.events) as string[]).includes(type)) return false;
  if (branch === undefined || hook.branch_filter === "") return true;
  return compileBranchFilter(hook.branch_filter)?.matches(branch) ?? false;
}

/**
 * Queues the deliveries of `event` in the caller's transaction `trx`, so they exist exactly
 * when the change does; sending is the outbox workers' work, never the request's. The hooks are
 * the active ones of the repository, of its owner and of the site (system hooks) that subscribe
 * to the event and whose branch filter passes the event's branch.
 */
export async function queueRepositoryEvent(trx: Kysely<ForgeTables>, event: RepositoryEvent): Promise<void> {
  const repository = await findRepositoryById(trx, event.repoId);
  if (!repository) return;
  const hooks = (await hooksHearing(trx, repository.id, repository.owner_id)).filter((hook) =>
    subscribed(hook, event.type, event.branch),
  );
  if (hooks.length === 0) return;
  const [owner, sender] = await Promise.all([
    findAccountById(trx, repository.owner_id),
    findAccountById(trx, event.senderId),
  ]);
  if (!owner || !sender) return;
  const fields = typeof event.fields === "function" ? await event.fields() : event.fields;
  const payload: Record<string, unknown> = {
    ...fields,
    // A fork's payload names another repository `repository` (see queueForkEvents).
    repository: fields.repository ?? (await repositoryJson(trx, repository, owner)),
    sender: senderJson(trx, sender),
  };
  if (event.type === "repository" && owner.type === ACCOUNT_ORGANIZATION)
    payload.organization = toApiOrganization(owner, undefined, webhookUrls(trx).rootUrl);
  for (const hook of hooks)
    await queueMessage(trx, hook, await installationTarget(trx, hook, owner), event.type, payload);
}

/**
 * How deliveries name a hook's installation target (X-Gitea-Hook-Installation-Target-Type), and
 * the repository of a repository hook (its pings carry it).
 */
export interface HookSite {
  target: "repository" | "organization" | "user" | "system";
  repository?: { repository: RepositoryRow; owner: AccountRow };
}

const ZEN = "A delivery never delays the change that caused it.";

/**
 * Queues the forge's `ping` to one hook (on creation and on …/tests), shaped as GitHub's ping:
 * zen, hook_id, hook, repository (for a repository hook) and sender.
 */
export async function queuePing(
  trx: Kysely<ForgeTables>,
  hook: WebhookRow,
  site: HookSite,
  doer: AccountRow,
): Promise<void> {
  const payload: Record<string, unknown> = { zen: ZEN, hook_id: hook.id, hook: toApiHook(hook) };
  if (site.repository)
    payload.repository = await repositoryJson(trx, site.repository.repository, site.repository.owner);
  payload.sender = senderJson(trx, doer);
  await queueMessage(trx, hook, site.target, "ping", payload);
}

/** Queues one event to one hook whatever it subscribes to (Gitea's test delivery). */
export async function queueHookTest(
  trx: Kysely<ForgeTables>,
  hook: WebhookRow,
  site: HookSite,
  doer: AccountRow,
  type: HookEventType,
  fields: Record<string, unknown>,
): Promise<void> {
  const payload: Record<string, unknown> = { ...fields };
  if (site.repository)
    payload.repository = await repositoryJson(trx, site.repository.repository, site.repository.owner);
  payload.sender = senderJson(trx, doer);
  await queueMessage(trx, hook, site.target, type, payload);
}
