import {
  type AnyKysely,
  type Delivery,
  deleteDeliveries,
  Invalid,
  listDeliveries,
  NotFound,
} from "@anvil/core";
import { datetime, isoTimestamp } from "../convert/format.ts";
import {
  countWebhooks,
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listWebhooks,
  MAX_WEBHOOKS,
  updateWebhook,
  type WebhookRow,
} from "../repositories/webhooks.ts";
import { type InventoryDatabase, storedNow } from "./database.ts";
import { WEBHOOK_EVENTS, WEBHOOK_TOPIC } from "./notifications.ts";
import type { Caller } from "./permissions.ts";
import { validate } from "./validation.ts";

// Our generic webhook endpoints (spec §26), superusers only: where to post, the secret that signs
// each delivery (X-Hub-Signature-256, as `anvil hooks` checks it), and the events heard. The
// secret is stored and used, and answered by no route: an answer says only whether there is one.

export const WEBHOOK_NOT_FOUND = "Webhook not found";
export const WEBHOOK_MESSAGES = {
  create: "Webhook created successfully.",
  update: "Webhook updated successfully.",
  delete: "Webhook deleted successfully.",
};

/** The fields an endpoint takes (a create also requires name and url). */
export const WEBHOOK_RULES = {
  name: "string|min:1|max:191",
  url: "url|max:2048",
  secret: "nullable|string|max:1024",
  events: "array|max:32",
  active: "boolean",
};

const ALL = "*";

/** The webhook as answers show it: never its secret. */
export function presentWebhook(row: WebhookRow) {
  return {
    id: Number(row.id),
    name: row.name,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    active: Boolean(Number(row.active)),
    has_secret: row.secret !== "",
    created_by: row.created_by === null ? null : Number(row.created_by),
    created_at: datetime(row.created_at),
    updated_at: datetime(row.updated_at),
  };
}

function refused(field: string, message: string): Invalid {
  return new Invalid("The given data was invalid.", { [field]: [message] });
}

const EVENTS_INVALID = `The selected events is invalid. Known events: ${[ALL, ...WEBHOOK_EVENTS].join(", ")}.`;

/** The subscribed names, each one of WEBHOOK_EVENTS or `*` (every event), without repeats; undefined when one is not. */
function eventsOf(given: unknown[]): string | undefined {
  const names = given.map((name) => (typeof name === "string" ? name.trim().toLowerCase() : ""));
  const known = (name: string) => name === ALL || (WEBHOOK_EVENTS as readonly string[]).includes(name);
  return names.length > 0 && names.every(known) ? JSON.stringify([...new Set(names)]) : undefined;
}

/** Deliveries go over HTTP(S) only. */
function httpUrl(url: string): boolean {
  const { protocol } = new URL(url);
  return protocol === "http:" || protocol === "https:";
}

async function checked(db: AnyKysely, input: Record<string, unknown>, creating: boolean) {
  const rules = creating
    ? { ...WEBHOOK_RULES, name: `required|${WEBHOOK_RULES.name}`, url: `required|${WEBHOOK_RULES.url}` }
    : WEBHOOK_RULES;
  const values = await validate(db, input, rules);
  const changes: Record<string, unknown> = {};
  const errors: Record<string, string[]> = {};
  if (values.name !== undefined) changes.name = values.name;
  if (values.url !== undefined) {
    if (httpUrl(values.url as string)) changes.url = values.url;
    else errors.url = ["The url field must be a valid URL."];
  }
  if (values.secret !== undefined) changes.secret = (values.secret as string | null) ?? "";
  if (values.events !== undefined) {
    const events = eventsOf(values.events as unknown[]);
    if (events) changes.events = events;
    else errors.events = [EVENTS_INVALID];
  }
  if (values.active !== undefined) changes.active = values.active;
  if (Object.keys(errors).length > 0) throw new Invalid("The given data was invalid.", errors);
  return changes;
}

export async function listWebhookEndpoints(database: InventoryDatabase) {
  const [rows, total] = await Promise.all([listWebhooks(database.db), countWebhooks(database.db)]);
  return { total, rows: rows.map(presentWebhook) };
}

async function requireWebhook(db: InventoryDatabase["db"], id: number): Promise<WebhookRow> {
  const row = Number.isSafeInteger(id) ? await findWebhook(db, id) : undefined;
  if (!row) throw new NotFound(WEBHOOK_NOT_FOUND);
  return row;
}

export async function getWebhookEndpoint(database: InventoryDatabase, id: number) {
  return presentWebhook(await requireWebhook(database.db, id));
}

/** Makes an endpoint; it hears every event unless `events` names some. */
export async function createWebhookEndpoint(
  database: InventoryDatabase,
  caller: Caller,
  input: Record<string, unknown>,
) {
  return database.db.transaction().execute(async (trx) => {
    const changes = await checked(trx as AnyKysely, input, true);
    // Each event reads every endpoint: their number is bounded.
    if ((await countWebhooks(trx)) >= MAX_WEBHOOKS)
      throw refused("url", `There may be at most ${MAX_WEBHOOKS} webhooks.`);
    const now = storedNow(database.dialect);
    const row = await insertWebhook(trx, {
      name: changes.name as string,
      url: changes.url as string,
      secret: (changes.secret as string | undefined) ?? "",
      events: (changes.events as string | undefined) ?? JSON.stringify([ALL]),
      active: (changes.active as boolean | undefined) ?? true,
      created_by: caller.user.id,
      created_at: now,
      updated_at: now,
    });
    return presentWebhook(row);
  });
}

/** Changes the fields the input names; the others keep their values. */
export async function updateWebhookEndpoint(
  database: InventoryDatabase,
  id: number,
  input: Record<string, unknown>,
) {
  return database.db.transaction().execute(async (trx) => {
    await requireWebhook(trx, id);
    const changes = await checked(trx as AnyKysely, input, false);
    const row = await updateWebhook(trx, id, { ...changes, updated_at: storedNow(database.dialect) });
    if (!row) throw new NotFound(WEBHOOK_NOT_FOUND);
    return presentWebhook(row);
  });
}

/** Deletes an endpoint and its delivery history. */
export async function deleteWebhookEndpoint(database: InventoryDatabase, id: number): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    if (!Number.isSafeInteger(id) || !(await deleteWebhook(trx, id))) throw new NotFound(WEBHOOK_NOT_FOUND);
    await deleteDeliveries(trx as AnyKysely, WEBHOOK_TOPIC, id);
  });
}

function presentDelivery(delivery: Delivery) {
  return {
    id: delivery.id,
    uuid: delivery.uuid,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts,
    response_status: delivery.responseStatus,
    error: delivery.error,
    duration_ms: delivery.durationMs,
    created_at: isoTimestamp(delivery.createdAt),
    delivered_at: isoTimestamp(delivery.deliveredAt),
  };
}

/** One page of an endpoint's deliveries, newest first: what was sent when, and how it went. */
export async function webhookDeliveries(
  database: InventoryDatabase,
  id: number,
  window: { offset: number; limit: number },
) {
  const webhook = await requireWebhook(database.db, id);
  const page = await listDeliveries(database.db as AnyKysely, WEBHOOK_TOPIC, webhook.id, window);
  return { total: page.total, rows: page.rows.map(presentDelivery) };
}
