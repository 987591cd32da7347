import type { AnyKysely } from "../db/database.ts";
import { addIdColumn, dialectOf, idType, timestampType } from "../db/dialect.ts";
import { sideTable } from "../db/read-batch.ts";

// One row per HTTP request a service owes someone (a webhook delivery, a notification): written in
// the transaction of the change that caused it, so a change that rolls back sends nothing and one
// that commits is sent even when the process dies right after; then delivered by the outbox
// worker, which records the answer on the same row (the history a user reads).

export const OUTBOX_TABLE = "outbox_delivery";
// No kept read depends on it: its writes, hundreds a second in a drain, leave kept answers be.
sideTable(OUTBOX_TABLE);

/** What a row of the outbox table holds, as both databases return it. */
export interface OutboxRow {
  id: number | string;
  uuid: string;
  topic: string;
  topic_id: number | string;
  event: string;
  url: string;
  method: string;
  request_headers: string;
  request_body: string;
  status: string;
  is_succeed: boolean | number;
  attempts: number;
  next_attempt_at: string | Date;
  claimed_until: string | Date | null;
  claimed_by: string | null;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
  created_at: string | Date;
  delivered_at: string | Date | null;
}

/** Creates the table; each service's own migration calls it, as the service owns its database. */
export async function createOutboxTable(db: AnyKysely): Promise<void> {
  const dialect = dialectOf(db);
  const time = timestampType(dialect);
  await addIdColumn(db.schema.createTable(OUTBOX_TABLE).ifNotExists(), dialect)
    .addColumn("uuid", "varchar(36)", (c) => c.notNull().unique())
    // What the delivery belongs to, in the service's words: ("hook", 12) is webhook 12's history.
    .addColumn("topic", "varchar(64)", (c) => c.notNull())
    .addColumn("topic_id", idType(dialect), (c) => c.notNull())
    .addColumn("event", "varchar(255)", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("method", "varchar(8)", (c) => c.notNull())
    .addColumn("request_headers", "text", (c) => c.notNull())
    .addColumn("request_body", "text", (c) => c.notNull())
    .addColumn("status", "varchar(16)", (c) => c.notNull())
    .addColumn("is_succeed", "boolean", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", time, (c) => c.notNull())
    // Set while a worker delivers the row; a claim left by a killed process lapses at this time.
    .addColumn("claimed_until", time)
    .addColumn("claimed_by", "varchar(128)")
    .addColumn("response_status", "integer")
    .addColumn("response_headers", "text")
    .addColumn("response_body", "text")
    .addColumn("error", "text")
    .addColumn("duration_ms", "integer")
    .addColumn("created_at", time, (c) => c.notNull())
    .addColumn("delivered_at", time)
    .execute();
  // The worker's poll: pending rows whose time has come.
  await db.schema
    .createIndex(`${OUTBOX_TABLE}_due`)
    .ifNotExists()
    .on(OUTBOX_TABLE)
    .columns(["status", "next_attempt_at"])
    .execute();
  // The worker's sweep of old history.
  await db.schema
    .createIndex(`${OUTBOX_TABLE}_created`)
    .ifNotExists()
    .on(OUTBOX_TABLE)
    .column("created_at")
    .execute();
  // A topic's history, newest first.
  await db.schema
    .createIndex(`${OUTBOX_TABLE}_topic`)
    .ifNotExists()
    .on(OUTBOX_TABLE)
    .columns(["topic", "topic_id", "id"])
    .execute();
}
