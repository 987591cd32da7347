import { randomUUID } from "node:crypto";
import {
  type AnyKysely,
  noteQueuedDeliveries,
  publicUrl,
  queueDelivery,
  signHmacSha256Hex,
} from "@anvil/core";
import { WEB_PAGES } from "../convert/format.ts";
import { notifiedAsset, notifiedItem, notifiedUser } from "../repositories/notified-rows.ts";
import { readSettings } from "../repositories/settings.ts";
import { activeWebhooks, type WebhookRow } from "../repositories/webhooks.ts";
import { type ActionEntry, ITEM_TABLES, logAction, logActions } from "./activity.ts";
import {
  CHAT_KINDS,
  type ChatFacts,
  type ChatKind,
  slackMessage,
  teamsMessage,
} from "./notification-messages.ts";
import type { WriteContext } from "./resource.ts";

// The one place where an inventory change is told: `recordAction` writes the change's activity
// entry and queues the webhook deliveries it makes, both in the transaction of the change, so the
// deliveries are written to core's outbox exactly when the change commits, and never when it rolls
// back, and no service can log a change without notifying it or the reverse. Sending them is the
// outbox worker's work, never the request's. Two kinds of receivers hear of a change: the webhook
// of the settings (Snipe-IT's Slack / Microsoft Teams / general integration), sent what Snipe-IT
// sends it, and our generic endpoints, sent our JSON signed with their secret.

/** What happened to the item. */
export type NotifiedAction = "create" | "update" | "delete" | "checkout" | "checkin" | "audit";

/** A change worth telling of, as the service that made it knows it. */
interface InventoryEvent {
  /** What happened to the item: create, update, delete, checkout, checkin, audit (others go unheard). */
  action: string;
  item: { type: string; id: number };
  /** Whom or what an item was checked out to, or in from. */
  target?: { type: string; id: number };
  note?: string | null;
  /** Units checked out (accessories, consumables, components). */
  quantity?: number;
  /** An update's changed fields, as the activity log records them. */
  changes?: Record<string, { old: unknown; new: unknown }>;
}

/** Every event name a generic endpoint may subscribe to: `<item>.<action>`. */
export const WEBHOOK_EVENTS = [
  "asset.create",
  "asset.update",
  "asset.delete",
  "asset.checkout",
  "asset.checkin",
  "asset.audit",
  "accessory.checkout",
  "accessory.checkin",
  "consumable.checkout",
  "component.checkout",
  "component.checkin",
  "license.checkout",
  "license.checkin",
] as const;

const KNOWN_EVENTS: ReadonlySet<string> = new Set(WEBHOOK_EVENTS);

/** Outbox topics: ("webhook", id) is a generic endpoint's history, ("settings", id) the settings webhook's. */
export const WEBHOOK_TOPIC = "webhook";
export const SETTINGS_TOPIC = "settings";

// --- What an event is about -----------------------------------------------------------------------

interface Party {
  type: string;
  id: number;
  name: string;
  url: string;
}

type Row = Record<string, unknown>;

function text(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** An asset as Snipe-IT names it in messages: its name (else its model's), then its tag in brackets. */
function assetName(row: Row): string {
  const name = text(row.name) || text(row.model_name);
  return name ? `${name} (${text(row.asset_tag)})` : (text(row.asset_tag) ?? "");
}

function userName(row: Row): string {
  return `${text(row.first_name) ?? ""} ${text(row.last_name) ?? ""}`.trim();
}

async function readParty(trx: AnyKysely, root: URL, type: string, id: number): Promise<Party | undefined> {
  const url = publicUrl(root, `${WEB_PAGES[type] ?? type}/${id}`).href;
  if (type === "asset") {
    const asset = await notifiedAsset(trx, id);
    return asset && { type, id, name: assetName(asset), url };
  }
  if (type === "user") {
    const user = await notifiedUser(trx, id);
    return user && { type, id, name: userName(user), url };
  }
  const table = ITEM_TABLES[type];
  if (table === undefined) return undefined;
  const row = await notifiedItem(trx, table, id);
  return row && { type, id, name: text(row.name) ?? "", url };
}

function related(id: unknown, name: unknown) {
  return id === null || id === undefined ? null : { id: Number(id), name: text(name) };
}

/** The item as the generic payload shows it: the fields a receiver acts on, and its page. */
function itemJson(item: Party, asset: Row | undefined) {
  if (!asset) return { type: item.type, id: item.id, name: item.name, url: item.url };
  return {
    type: item.type,
    id: item.id,
    name: text(asset.name),
    asset_tag: text(asset.asset_tag),
    serial: text(asset.serial),
    model: related(asset.model_id, asset.model_name),
    status_label: related(asset.status_id, asset.status_name),
    location: related(asset.location_id, asset.location_name),
    assigned_to:
      asset.assigned_to === null ? null : { type: text(asset.assigned_type), id: Number(asset.assigned_to) },
    expected_checkin: text(asset.expected_checkin),
    deleted: asset.deleted_at !== null,
    url: item.url,
  };
}

// --- Deliveries ---------------------------------------------------------------------------------

function hears(webhook: WebhookRow, event: string): boolean {
  const events = JSON.parse(webhook.events) as string[];
  return events.includes("*") || events.includes(event);
}

/** A generic endpoint's delivery: our JSON, signed with its secret as GitHub signs (X-Hub-Signature-256). */
function webhookRequest(webhook: WebhookRow, event: string, uuid: string, body: string) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "anvil-inventory-webhook",
    "x-inventory-event": event,
    "x-inventory-delivery": uuid,
  };
  if (webhook.secret !== "")
    headers["x-hub-signature-256"] = `sha256=${signHmacSha256Hex(webhook.secret, body)}`;
  return { url: webhook.url, method: "POST" as const, headers, body };
}

interface SettingsWebhook {
  id: number;
  selected: string;
  endpoint: string;
  channel: string | null;
  botname: string | null;
}

async function settingsWebhook(trx: AnyKysely): Promise<SettingsWebhook | undefined> {
  const settings = await readSettings(trx);
  const endpoint = settings.webhook_endpoint ?? "";
  if (endpoint === "") return undefined;
  return {
    id: settings.id,
    selected: settings.webhook_selected,
    endpoint,
    channel: settings.webhook_channel,
    botname: settings.webhook_botname,
  };
}

/** Who hears an event (`asset.create`): the settings' webhook, and the generic endpoints subscribed. */
async function receivers(trx: AnyKysely, name: string) {
  const [chat, webhooks] = await Promise.all([
    CHAT_KINDS.has(name) ? settingsWebhook(trx) : undefined,
    activeWebhooks(trx).then((rows) => rows.filter((webhook) => hears(webhook, name))),
  ]);
  return { chat, webhooks };
}

/** Whether anyone hears an event, so that many writes ask once rather than once each. */
async function hasReceivers(trx: AnyKysely, name: string): Promise<boolean> {
  if (!KNOWN_EVENTS.has(name)) return false;
  const { chat, webhooks } = await receivers(trx, name);
  return chat !== undefined || webhooks.length > 0;
}

/**
 * Queues the deliveries `event` makes, in the caller's transaction. Cheap when nobody listens: two
 * reads, and nothing is looked up for a message no receiver gets.
 */
async function queueNotifications(context: WriteContext, event: InventoryEvent): Promise<void> {
  const name = `${event.item.type}.${event.action}`;
  if (!KNOWN_EVENTS.has(name)) return;
  const trx = context.trx;
  const { chat, webhooks } = await receivers(trx, name);
  if (!chat && webhooks.length === 0) return;

  const root = context.caller.rootUrl;
  const item = await readParty(trx, root, event.item.type, event.item.id);
  if (!item) return;
  const asset = event.item.type === "asset" ? await notifiedAsset(trx, event.item.id) : undefined;
  const target = event.target && (await readParty(trx, root, event.target.type, event.target.id));
  const actor = context.caller.user;
  const admin: Party = {
    type: "user",
    id: actor.id,
    name: userName(actor as unknown as Row),
    url: publicUrl(root, `users/${actor.id}`).href,
  };
  const dialect = context.database.dialect;

  if (chat) {
    const facts: ChatFacts = {
      kind: name as ChatKind,
      item,
      target,
      admin,
      note: event.note ?? null,
      expectedCheckin: asset ? text(asset.expected_checkin) : null,
      status: asset ? text(asset.status_name) : null,
      location: asset ? text(asset.location_name) : null,
      quantity: event.quantity,
    };
    const message =
      chat.selected === "msteams"
        ? teamsMessage(facts)
        : slackMessage(facts, { channel: chat.channel, botname: chat.botname });
    await queueDelivery(trx, dialect, {
      topic: SETTINGS_TOPIC,
      topicId: chat.id,
      event: name,
      url: chat.endpoint,
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "anvil-inventory-webhook" },
      body: JSON.stringify(message),
    });
  }

  const payload = {
    event: name,
    action: event.action,
    item: itemJson(item, asset),
    target: target ? { type: target.type, id: target.id, name: target.name, url: target.url } : null,
    ...(event.quantity === undefined ? {} : { quantity: event.quantity }),
    ...(event.changes === undefined ? {} : { changes: event.changes }),
    note: event.note ?? null,
    user: { id: actor.id, name: admin.name, username: actor.username },
    created_at: new Date().toISOString(),
  };
  const body = JSON.stringify(payload);
  for (const webhook of webhooks) {
    const uuid = randomUUID();
    await queueDelivery(trx, dialect, {
      topic: WEBHOOK_TOPIC,
      topicId: webhook.id,
      event: name,
      ...webhookRequest(webhook, name, uuid, body),
      uuid,
    });
  }
  noteQueuedDeliveries();
}

/** A change as its service records it: the activity entry's fields, and the units it moved. */
export type RecordedAction = Omit<ActionEntry, "createdBy" | "origin"> & {
  /** Units checked out or in (accessories, consumables, components). */
  quantity?: number;
};

/** Writes the activity entry of a change made by the context's caller and queues its deliveries. */
export async function recordAction(context: WriteContext, action: RecordedAction): Promise<void> {
  const { quantity, ...entry } = action;
  await logAction(context.trx, context.database.dialect, {
    ...entry,
    createdBy: context.caller.user.id,
    origin: context.origin,
  });
  if (!action.item) return;
  await queueNotifications(context, {
    // The log says "checkin from" where the event name says checkin.
    action: action.actionType === "checkin from" ? "checkin" : action.actionType,
    item: action.item,
    target: action.target,
    note: action.note,
    quantity,
    changes: action.actionType === "update" ? action.meta : undefined,
  });
}

/**
 * Many changes of one kind (an import batch's creates), recorded as recordAction records each:
 * when nobody hears of them, which is asked once, their entries go in with one statement.
 */
export async function recordActions(
  context: WriteContext,
  event: string,
  actions: readonly RecordedAction[],
): Promise<void> {
  if (await hasReceivers(context.trx, event)) {
    for (const action of actions) await recordAction(context, action);
    return;
  }
  const by = { createdBy: context.caller.user.id, origin: context.origin };
  await logActions(
    context.trx,
    context.database.dialect,
    actions.map(({ quantity: _, ...entry }) => ({ ...entry, ...by })),
  );
}
