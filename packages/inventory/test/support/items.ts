import { toStoredTime } from "@anvil/core";
import { api, type InventoryClient, type InventoryState } from "./inventory.ts";

// Fixtures of the stock-item tests: categories, users and assets to check items out to.

export interface Envelope<P = Record<string, unknown>> {
  status: string;
  messages: unknown;
  payload: P;
}
export type List<R = Record<string, unknown>> = { total: number; rows: R[] };

export const STRICT = { "x-api-strict-status": "1" };

export async function created(inventory: InventoryClient, path: string, body: unknown): Promise<number> {
  const answer = await api<Envelope<{ id: number }>>(inventory, "POST", path, { body });
  if (answer.body.status !== "success") throw new Error(`${path}: ${JSON.stringify(answer.body)}`);
  return answer.body.payload.id;
}

export function category(inventory: InventoryState, type: string, name: string): Promise<number> {
  return created(inventory, "/categories", { name, category_type: type });
}

export function person(inventory: InventoryState, username: string): Promise<number> {
  return created(inventory, "/users", {
    first_name: username,
    last_name: "Tester",
    username,
    password: "password123",
    password_confirmation: "password123",
  });
}

/**
 * An asset row, written straight into `assets` (the hardware routes are another wave's): a model
 * of an asset category and the seeded "Ready to Deploy" label.
 */
export async function assetRow(inventory: InventoryState, tag: string): Promise<number> {
  const database = inventory.server.app.database;
  if (!database) throw new Error("no database");
  const assetCategory = await category(inventory, "asset", `Assets for ${tag}`);
  const model = await created(inventory, "/models", { name: `Model ${tag}`, category_id: assetCategory });
  const now = toStoredTime(new Date(), database.dialect);
  const row = await database.db
    .insertInto("assets")
    .values({
      asset_tag: tag,
      name: `Asset ${tag}`,
      model_id: model,
      status_id: 2,
      created_at: now,
      updated_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** How many activity entries of this action an item has. */
export async function logged(
  inventory: InventoryState,
  itemType: string,
  itemId: number,
  actionType: string,
): Promise<number> {
  const database = inventory.server.app.database;
  if (!database) throw new Error("no database");
  const rows = await database.db
    .selectFrom("action_logs")
    .select("id")
    .where("item_type", "=", itemType)
    .where("item_id", "=", itemId)
    .where("action_type", "=", actionType)
    .execute();
  return rows.length;
}
