import { randomUUID } from "node:crypto";
import { validateHeaderName, validateHeaderValue } from "node:http";
import type { AnyKysely, DialectName } from "../db/database.ts";
import { countRows, readBool, readTime, toStoredTime } from "../db/dialect.ts";
import type { PageWindow } from "../http/pagination.ts";
import { OUTBOX_TABLE, type OutboxRow } from "./table.ts";

export const DELIVERY_METHODS = ["POST", "GET", "PUT"] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];
export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface DeliveryRequest {
  /** What the delivery belongs to: ("hook", 12) files it under webhook 12. */
  topic: string;
  topicId: number;
  event: string;
  url: string;
  method: DeliveryMethod;
  headers: Record<string, string>;
  /** Sent as is; must be empty for GET (a GET carries what it sends in its URL). */
  body: string;
  /**
   * The delivery's id for the receiver, when the caller has put it into the headers already
   * (`X-…-Delivery`); a new random UUID otherwise.
   */
  uuid?: string;
}

export interface QueuedDelivery {
  id: number;
  uuid: string;
}

/** A delivery and, once tried, what the receiver answered. */
export interface Delivery {
  id: number;
  uuid: string;
  topic: string;
  topicId: number;
  event: string;
  url: string;
  method: DeliveryMethod;
  requestHeaders: Record<string, string>;
  requestBody: string;
  status: DeliveryStatus;
  isSucceed: boolean;
  attempts: number;
  nextAttemptAt: Date;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  /** Why the last attempt failed without an answer: a refused target, a timeout, a refused connection. */
  error: string | null;
  durationMs: number | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

function checkRequest(request: DeliveryRequest): void {
  if (!DELIVERY_METHODS.includes(request.method)) {
    throw new TypeError(`delivery method must be one of ${DELIVERY_METHODS.join(", ")}`);
  }
  if (request.method === "GET" && request.body !== "") {
    throw new TypeError("a GET delivery has no body; put what it sends into its URL");
  }
  // A header node would refuse to send must fail the caller now, not every attempt later.
  for (const [name, value] of Object.entries(request.headers)) {
    validateHeaderName(name);
    validateHeaderValue(name, value);
  }
}

/**
 * Queues a delivery inside the caller's transaction: it is sent once that commits (call the
 * worker's `wake()` then to send it at once) and never if it rolls back.
 */
export async function queueDelivery(
  trx: AnyKysely,
  dialect: DialectName,
  request: DeliveryRequest,
): Promise<QueuedDelivery> {
  checkRequest(request);
  const uuid = request.uuid ?? randomUUID();
  const now = toStoredTime(new Date(), dialect);
  const row = await trx
    .insertInto(OUTBOX_TABLE)
    .values({
      uuid,
      topic: request.topic,
      topic_id: request.topicId,
      event: request.event,
      url: request.url,
      method: request.method,
      request_headers: JSON.stringify(request.headers),
      request_body: request.body,
      status: "pending",
      is_succeed: false,
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), uuid };
}

function readDelivery(row: OutboxRow): Delivery {
  return {
    id: Number(row.id),
    uuid: row.uuid,
    topic: row.topic,
    topicId: Number(row.topic_id),
    event: row.event,
    url: row.url,
    method: row.method as DeliveryMethod,
    requestHeaders: JSON.parse(row.request_headers),
    requestBody: row.request_body,
    status: row.status as DeliveryStatus,
    isSucceed: readBool(row.is_succeed),
    attempts: row.attempts,
    nextAttemptAt: readTime(row.next_attempt_at),
    responseStatus: row.response_status,
    responseHeaders: row.response_headers === null ? null : JSON.parse(row.response_headers),
    responseBody: row.response_body,
    error: row.error,
    durationMs: row.duration_ms,
    createdAt: readTime(row.created_at),
    deliveredAt: row.delivered_at === null ? null : readTime(row.delivered_at),
  };
}

/** A topic's deliveries, newest first, one page of them and how many there are in all. */
export async function listDeliveries(
  db: AnyKysely,
  topic: string,
  topicId: number,
  page: Pick<PageWindow, "limit" | "offset">,
): Promise<{ rows: Delivery[]; total: number }> {
  const query = db
    .selectFrom(OUTBOX_TABLE)
    .selectAll()
    .where("topic", "=", topic)
    .where("topic_id", "=", topicId);
  const total = await countRows(db, query);
  const rows = await query.orderBy("id", "desc").limit(page.limit).offset(page.offset).execute();
  return { rows: rows.map((row) => readDelivery(row as OutboxRow)), total };
}

/** One delivery of a topic; undefined when there is none with that id under that topic. */
export async function getDelivery(
  db: AnyKysely,
  topic: string,
  topicId: number,
  id: number,
): Promise<Delivery | undefined> {
  const row = await db
    .selectFrom(OUTBOX_TABLE)
    .selectAll()
    .where("id", "=", id)
    .where("topic", "=", topic)
    .where("topic_id", "=", topicId)
    .executeTakeFirst();
  return row === undefined ? undefined : readDelivery(row as OutboxRow);
}

/**
 * Sends a delivery again as a new delivery (the original keeps its history, as Gitea's replay
 * does) with a new UUID: header values equal to the original's UUID (the `X-…-Delivery` headers)
 * carry the new one. Undefined when the topic has no delivery with that id.
 */
export async function redeliver(
  trx: AnyKysely,
  dialect: DialectName,
  target: { topic: string; topicId: number; id: number },
): Promise<QueuedDelivery | undefined> {
  const original = await getDelivery(trx, target.topic, target.topicId, target.id);
  if (original === undefined) return undefined;
  const uuid = randomUUID();
  const headers = Object.fromEntries(
    Object.entries(original.requestHeaders).map(([name, value]) => [
      name,
      value === original.uuid ? uuid : value,
    ]),
  );
  return queueDelivery(trx, dialect, {
    topic: original.topic,
    topicId: original.topicId,
    event: original.event,
    url: original.url,
    method: original.method,
    headers,
    body: original.requestBody,
    uuid,
  });
}

/** Deletes a topic's deliveries, sent or not (the topic itself is being deleted). */
export async function deleteDeliveries(trx: AnyKysely, topic: string, topicId: number): Promise<void> {
  await trx.deleteFrom(OUTBOX_TABLE).where("topic", "=", topic).where("topic_id", "=", topicId).execute();
}
