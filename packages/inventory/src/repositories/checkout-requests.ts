import { type ExpressionBuilder, sql } from "kysely";
import type { InventoryTables } from "../schemas/tables.ts";
import type { Executor } from "../services/database.ts";

// Requests of requestable items (Snipe-IT's checkout_requests): open while neither canceled nor
// fulfilled; the database keeps one open request per user and item.

type Time = string | Date;

const isOpen = (eb: ExpressionBuilder<InventoryTables, "checkout_requests">) =>
  eb.and([eb("canceled_at", "is", null), eb("fulfilled_at", "is", null)]);

export async function openRequest(
  db: Executor,
  request: { userId: number; type: string; itemId: number; now: Time },
): Promise<void> {
  await db
    .insertInto("checkout_requests")
    .values({
      user_id: request.userId,
      requestable_type: request.type,
      requestable_id: request.itemId,
      created_at: request.now,
      updated_at: request.now,
    })
    .execute();
}

/** Cancels the user's open request of the item; whether there was one. */
export async function cancelRequest(
  db: Executor,
  request: { userId: number; type: string; itemId: number; now: Time },
): Promise<boolean> {
  const result = await db
    .updateTable("checkout_requests")
    .set({ canceled_at: request.now, updated_at: request.now })
    .where("user_id", "=", request.userId)
    .where("requestable_type", "=", request.type)
    .where("requestable_id", "=", request.itemId)
    .where(isOpen)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Of these items, the ones the user has an open request of. */
export async function requestedBy(db: Executor, userId: number, type: string, itemIds: number[]) {
  if (itemIds.length === 0) return new Set<number>();
  const rows = await db
    .selectFrom("checkout_requests")
    .select("requestable_id")
    .where("user_id", "=", userId)
    .where("requestable_type", "=", type)
    .where("requestable_id", "in", itemIds)
    .where(isOpen)
    .execute();
  return new Set(rows.map((row) => Number(row.requestable_id)));
}

/** The user's open requests, oldest first, at most `limit`, and how many there are. */
export async function openRequestsOf(db: Executor, userId: number, limit: number) {
  const open = db.selectFrom("checkout_requests").where("user_id", "=", userId).where(isOpen);
  const [{ count }, rows] = await Promise.all([
    open.select(sql<number>`count(*)`.as("count")).executeTakeFirstOrThrow(),
    open.selectAll().orderBy("created_at").orderBy("id").limit(limit).execute(),
  ]);
  return { total: Number(count), rows };
}

/** Counts a request on the asset (Snipe-IT's requests_counter). */
export async function countAssetRequest(db: Executor, assetId: number): Promise<void> {
  await db
    .updateTable("assets")
    .set({ requests_counter: sql<number>`requests_counter + 1` })
    .where("id", "=", assetId)
    .execute();
}
