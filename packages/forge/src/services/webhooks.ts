import {
  BadRequest,
  type Delivery,
  deleteDeliveries,
  getDelivery,
  Invalid,
  listDeliveries,
  NotFound,
  noteQueuedDeliveries,
  redeliver,
  signalQueuedDeliveries,
  toStoredTime,
} from "@anvil/core";
import type { Kysely, Updateable } from "kysely";
import validator from "validator";
import { getCommit } from "../git/index.ts";
import type { AccountRow } from "../repositories/accounts.ts";
import {
  deleteWebhook,
  findWebhook,
  type HookOwner,
  insertWebhook,
  listWebhooks,
  updateWebhook,
  type WebhookRow,
} from "../repositories/webhooks.ts";
import type { ForgeTables, WebhookTable } from "../schemas/tables.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { compileBranchFilter, MAX_BRANCH_FILTER } from "./branch-filter.ts";
import { type RepositoryContext, repositoryFilesPath, type Storage } from "./repositories.ts";
import { HOOK_TOPIC, type HookSite, queueHookTest, queuePing } from "./webhook-events.ts";
import { subscribedEvents } from "./webhook-payloads.ts";
import { testPushFields } from "./webhook-push.ts";

/** Gitea's webhook types; each decides the shape of what its hooks send. */
const HOOK_TYPES = [
  "gitea",
  "gogs",
  "slack",
  "discord",
  "dingtalk",
  "telegram",
  "msteams",
  "feishu",
  "matrix",
  "wechatwork",
  "packagist",
] as const;

const CONTENT_TYPES = new Set(["json", "form"]);
// Gitea's API always sends POST; the web form also offers GET (the payload as a query parameter)
// and PUT, which the forge accepts as config.http_method.
const HTTP_METHODS = new Set(["POST", "GET", "PUT"]);
const MAX_URL = 2048;
const MAX_SECRET = 1024;
const MAX_AUTHORIZATION_HEADER = 4096;
const MAX_CONFIG_VALUE = 2048;

/** Where a hook lives, as the routes found it: whose hooks (HookOwner), and its HookSite. */
export interface HookPlace extends HookSite {
  owner: HookOwner;
  repository?: RepositoryContext;
}

export interface CreateHookInput {
  type: string;
  config: Record<string, string>;
  events?: string[];
  branch_filter?: string;
  authorization_header?: string;
  active?: boolean;
}

export interface EditHookInput {
  config?: Record<string, string>;
  events?: string[];
  branch_filter?: string;
  authorization_header?: string;
  active?: boolean;
}

function checkUrl(url: string): void {
  const valid =
    url.length <= MAX_URL &&
    validator.isURL(url, {
      protocols: ["http", "https"],
      require_protocol: true,
      require_tld: false,
      allow_underscores: true,
    });
  if (!valid) throw new Invalid("Invalid url");
}

function checkContentType(contentType: string): void {
  if (!CONTENT_TYPES.has(contentType)) throw new Invalid("Invalid content type");
}

function httpMethodOf(config: Record<string, string>): string | undefined {
  const given = config.http_method;
  if (given === undefined || given === "") return undefined;
  const method = given.toUpperCase();
  if (!HTTP_METHODS.has(method)) throw new Invalid("Invalid http method");
  return method;
}

function checkBranchFilter(filter: string): void {
  if (filter.length > MAX_BRANCH_FILTER || !compileBranchFilter(filter))
    throw new Invalid("[BranchFilter]: GlobPattern");
}

// Sent as a header: a line break would start another header.
function checkAuthorizationHeader(value: string): void {
  if (value.length > MAX_AUTHORIZATION_HEADER || /[\r\n\0]/.test(value))
    throw new Invalid("[AuthorizationHeader]: invalid header value");
}

function checkConfigValues(config: Record<string, string>): void {
  if (config.secret !== undefined && config.secret.length > MAX_SECRET)
    throw new Invalid("[Secret]: MaxSize");
  for (const [key, value] of Object.entries(config))
    if (key !== "url" && key !== "secret" && value.length > MAX_CONFIG_VALUE)
      throw new Invalid(`[Config]: ${key} is too long`);
}

/** Slack's settings from a hook's config; the channel is required, as Gitea requires it. */
function slackMeta(config: Record<string, string>): string {
  const given = config.channel;
  if (given === undefined) throw new Invalid("Missing config option: channel");
  const channel = given.trim();
  if (channel === "" || channel === "#") throw new BadRequest("Invalid slack channel name");
  return JSON.stringify({
    channel,
    username: config.username ?? "",
    icon_url: config.icon_url ?? "",
    color: config.color ?? "",
  });
}

function siteColumns(owner: HookOwner, config: Record<string, string>) {
  switch (owner.kind) {
    case "repository":
      return { repo_id: owner.repoId, owner_id: null, is_system: false };
    case "account":
      return { repo_id: null, owner_id: owner.ownerId, is_system: false };
    case "site": {
      // As Gitea's is_system_webhook: "true" makes a system hook (it hears every repository);
      // without it, a default hook (copied to each new repository).
      const flag = config.is_system_webhook ?? "";
      if (
        !["", "true", "false", "1", "0", "t", "f", "TRUE", "FALSE", "True", "False", "T", "F"].includes(flag)
      )
        throw new Invalid("Invalid is_system_webhook value");
      return {
        repo_id: null,
        owner_id: null,
        is_system: ["true", "1", "t", "TRUE", "True", "T"].includes(flag),
      };
    }
  }
}

/**
 * Creates a hook as Gitea's API does (its checks and 422 messages, events defaulting to push),
 * and, when it is active, queues its `ping` in the same transaction.
 */
export async function createHook(
  database: ForgeDatabase,
  place: HookPlace,
  doer: AccountRow,
  input: CreateHookInput,
): Promise<WebhookRow> {
  if (!(HOOK_TYPES as readonly string[]).includes(input.type))
    throw new Invalid(`Invalid hook type: ${input.type}`);
  for (const name of ["url", "content_type"])
    if (input.config[name] === undefined) throw new Invalid(`Missing config option: ${name}`);
  checkContentType(input.config.content_type);
  checkUrl(input.config.url);
  checkConfigValues(input.config);
  const method = httpMethodOf(input.config) ?? "POST";
  const branchFilter = input.branch_filter ?? "";
  checkBranchFilter(branchFilter);
  const authorization = input.authorization_header ?? "";
  checkAuthorizationHeader(authorization);
  const meta = input.type === "slack" ? slackMeta(input.config) : "{}";
  const now = toStoredTime(new Date(), database.dialect);
  const hook = await database.db.transaction().execute(async (trx) => {
    const created = await insertWebhook(trx, {
      ...siteColumns(place.owner, input.config),
      type: input.type,
      url: input.config.url,
      content_type: input.config.content_type,
      http_method: method,
      secret: input.config.secret ?? "",
      meta,
      events: JSON.stringify(subscribedEvents(input.events ?? [])),
      branch_filter: branchFilter,
      authorization_header: authorization,
      active: input.active ?? false,
      created_at: now,
      updated_at: now,
    });
    if (input.active) await queuePing(trx, created, place, doer);
    return created;
  });
  signalQueuedDeliveries();
  return hook;
}

export async function getHook(database: ForgeDatabase, place: HookPlace, id: number): Promise<WebhookRow> {
  return requireHook(database.db, place, id);
}

async function requireHook(db: Kysely<ForgeTables>, place: HookPlace, id: number): Promise<WebhookRow> {
  const hook = await findWebhook(db, place.owner, id);
  if (!hook) throw new NotFound(`webhook does not exist [id: ${id}]`);
  return hook;
}

export function listHooks(
  database: ForgeDatabase,
  place: HookPlace,
  window: { offset: number; limit: number },
) {
  return listWebhooks(database.db, place.owner, window);
}

/**
 * Edits a hook with Gitea's checks. Unlike Gitea, whose edit resets every field the request leaves
 * out (events to push, the branch filter and authorization header to empty), a field left out
 * keeps its value, as absent means absent everywhere else in the API.
 */
export async function editHook(
  database: ForgeDatabase,
  place: HookPlace,
  id: number,
  input: EditHookInput,
): Promise<WebhookRow> {
  const hook = await requireHook(database.db, place, id);
  const changes: Updateable<WebhookTable> = { updated_at: toStoredTime(new Date(), database.dialect) };
  const config = input.config;
  if (config) {
    checkConfigValues(config);
    if (config.url !== undefined) {
      checkUrl(config.url);
      changes.url = config.url;
    }
    if (config.content_type !== undefined) {
      checkContentType(config.content_type);
      changes.content_type = config.content_type;
    }
    const method = httpMethodOf(config);
    if (method) changes.http_method = method;
    if (config.secret !== undefined) changes.secret = config.secret;
    if (hook.type === "slack" && config.channel !== undefined) changes.meta = slackMeta(config);
  }
  if (input.events !== undefined) changes.events = JSON.stringify(subscribedEvents(input.events));
  if (input.branch_filter !== undefined) {
    checkBranchFilter(input.branch_filter);
    changes.branch_filter = input.branch_filter;
  }
  if (input.authorization_header !== undefined) {
    checkAuthorizationHeader(input.authorization_header);
    changes.authorization_header = input.authorization_header;
  }
  if (input.active !== undefined) changes.active = input.active;
  const updated = await updateWebhook(database.db, hook.id, changes);
  if (!updated) throw new NotFound(`webhook does not exist [id: ${id}]`);
  return updated;
}

/** Deletes a hook and its delivery history, as Gitea deletes its hook tasks. */
export async function deleteHook(database: ForgeDatabase, place: HookPlace, id: number): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    if (!(await deleteWebhook(trx, place.owner, id)))
      throw new NotFound(`webhook does not exist [id: ${id}]`);
    await deleteDeliveries(trx, HOOK_TOPIC, id);
  });
}

/**
 * POST /repos/{o}/{r}/hooks/{id}/tests: Gitea's test delivery (a push of the commit `ref` names,
 * by default the default branch's head) and, before it, the forge's `ping`; whether or not the
 * hook is active or subscribed to push, since a test was asked for.
 */
export async function testHook(
  database: ForgeDatabase,
  storage: Storage,
  place: HookPlace,
  id: number,
  doer: AccountRow,
  ref?: string,
): Promise<void> {
  const hook = await requireHook(database.db, place, id);
  const found = place.repository;
  if (!found) throw new NotFound(`webhook does not exist [id: ${id}]`);
  const path = repositoryFilesPath(storage, found);
  if (ref !== undefined && ref !== "" && !(await getCommit(path, ref)))
    throw new NotFound(`commit does not exist [id: ${ref}]`);
  const fields = await testPushFields(
    database.db,
    path,
    found.repository,
    found.owner,
    doer,
    ref || undefined,
  );
  await database.db.transaction().execute(async (trx) => {
    await queuePing(trx, hook, place, doer);
    await queueHookTest(trx, hook, place, doer, "push", fields);
  });
  signalQueuedDeliveries();
}

/** One page of a hook's deliveries, newest first, with what was sent and what came back. */
export async function hookDeliveries(
  database: ForgeDatabase,
  place: HookPlace,
  id: number,
  window: { offset: number; limit: number },
): Promise<{ rows: Delivery[]; total: number }> {
  const hook = await requireHook(database.db, place, id);
  return listDeliveries(database.db, HOOK_TOPIC, hook.id, window);
}

/**
 * Sends a recorded delivery again, as it was sent, as a new delivery with a new id (Gitea's
 * "replay" in its web UI); answers the new one.
 */
export async function redeliverHookDelivery(
  database: ForgeDatabase,
  place: HookPlace,
  id: number,
  deliveryId: number,
): Promise<Delivery> {
  const hook = await requireHook(database.db, place, id);
  const again = await database.db.transaction().execute(async (trx) => {
    const queued = await redeliver(trx, database.dialect, {
      topic: HOOK_TOPIC,
      topicId: hook.id,
      id: deliveryId,
    });
    return queued && getDelivery(trx, HOOK_TOPIC, hook.id, queued.id);
  });
  if (!again) throw new NotFound(`hook delivery does not exist [id: ${deliveryId}]`);
  noteQueuedDeliveries();
  signalQueuedDeliveries();
  return again;
}
