import type { Insertable, Selectable, Updateable } from "kysely";
import type { WebhookTable } from "../schemas/tables.ts";
import type { Executor } from "../services/database.ts";

export type WebhookRow = Selectable<WebhookTable>;

/** Most endpoints there may be: each event reads them all. */
export const MAX_WEBHOOKS = 100;

export function listWebhooks(db: Executor): Promise<WebhookRow[]> {
  return db.selectFrom("webhooks").selectAll().orderBy("id").limit(MAX_WEBHOOKS).execute();
}

export function countWebhooks(db: Executor): Promise<number> {
  return db
    .selectFrom("webhooks")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.count));
}

/** The active endpoints, for an event to pick those that hear it. */
export function activeWebhooks(db: Executor): Promise<WebhookRow[]> {
  return db.selectFrom("webhooks").selectAll().where("active", "=", true).orderBy("id").execute();
}

export function findWebhook(db: Executor, id: number): Promise<WebhookRow | undefined> {
  return db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirst();
}

export function insertWebhook(db: Executor, values: Insertable<WebhookTable>): Promise<WebhookRow> {
  return db.insertInto("webhooks").values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateWebhook(
  db: Executor,
  id: number,
  changes: Updateable<WebhookTable>,
): Promise<WebhookRow | undefined> {
  return db.updateTable("webhooks").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
}

export async function deleteWebhook(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom("webhooks").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
