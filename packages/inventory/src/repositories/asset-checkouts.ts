import { type AnyKysely, claimed, type DialectName, forUpdate } from "@anvil/core";
import { sql } from "kysely";
import type { AnyExpressionBuilder, AnySelect, Row } from "./records.ts";

// The asset rows a check-out or check-in reads and claims (services/checkout.ts holds the rules).

/** The ids of the labels an asset may be checked out under, for `status_id in (…)`. */
export function deployableLabels(eb: AnyExpressionBuilder) {
  return eb
    .selectFrom("status_labels")
    .select("id")
    .where("deployable", "=", true)
    .where("pending", "=", false)
    .where("archived", "=", false);
}

/** The asset row, locked on PostgreSQL until the transaction ends. */
export async function lockAsset(trx: AnyKysely, dialect: DialectName, id: number): Promise<Row | undefined> {
  return (await trx
    .selectFrom("assets")
    .selectAll()
    .where("id", "=", id)
    .$call(forUpdate(dialect))
    .executeTakeFirst()) as Row | undefined;
}

export async function assetRow(trx: AnyKysely, id: number): Promise<Row> {
  return (await trx.selectFrom("assets").selectAll().where("id", "=", id).executeTakeFirstOrThrow()) as Row;
}

/**
 * The undeleted holder row a check-out names, narrowed by `scope` (the caller's company) before
 * it is read.
 */
export async function holderRow(
  trx: AnyKysely,
  table: string,
  id: number,
  scope: (select: AnySelect) => AnySelect,
): Promise<Row | undefined> {
  const select = trx
    .selectFrom(table)
    .selectAll()
    .where(`${table}.id`, "=", id)
    .where(`${table}.deleted_at`, "is", null);
  return (await scope(select).executeTakeFirst()) as Row | undefined;
}

export async function modelNameAndNumber(trx: AnyKysely, modelId: number) {
  return trx
    .selectFrom("models")
    .select(["name", "model_number"])
    .where("id", "=", modelId)
    .executeTakeFirst();
}

/**
 * Gives the asset to its holder if it is still free, undeleted and deployable; whether this
 * statement won it. Assets checked out to this one travel with it to `changes.location_id`.
 */
export async function claimAssetCheckout(
  trx: AnyKysely,
  assetId: number,
  changes: Record<string, unknown>,
): Promise<boolean> {
  const result = await trx
    .updateTable("assets")
    .set({ ...changes, checkout_counter: sql`checkout_counter + 1` })
    .where("id", "=", assetId)
    .where("assigned_to", "is", null)
    .where("deleted_at", "is", null)
    .where("status_id", "in", deployableLabels)
    .executeTakeFirst();
  if (!claimed(result)) return false;
  await trx
    .updateTable("assets")
    .set({ location_id: changes.location_id as number | null })
    .where("assigned_type", "=", "asset")
    .where("assigned_to", "=", assetId)
    .execute();
  return true;
}

/** Takes the asset back from the holder it had when read; whether this statement did. */
export async function claimAssetCheckin(
  trx: AnyKysely,
  asset: { id: number; holder: { type: string; id: number } },
  changes: Record<string, unknown>,
): Promise<boolean> {
  const result = await trx
    .updateTable("assets")
    .set({ ...changes, checkin_counter: sql`checkin_counter + 1` })
    .where("id", "=", asset.id)
    .where("assigned_to", "=", asset.holder.id)
    .where("assigned_type", "=", asset.holder.type)
    .executeTakeFirst();
  return claimed(result);
}

/**
 * The first `quantity` assets of the model that can be checked out now, narrowed by `scope` (the
 * caller's company), locked until the transaction ends: of two kits racing for the last one, the
 * second waits, then finds none.
 */
export async function freeAssetsOfModel(
  trx: AnyKysely,
  dialect: DialectName,
  wanted: { modelId: number; quantity: number },
  scope: (select: AnySelect) => AnySelect,
): Promise<Row[]> {
  const select = trx
    .selectFrom("assets")
    .selectAll("assets")
    .where("assets.model_id", "=", wanted.modelId)
    .where("assets.assigned_to", "is", null)
    .where("assets.deleted_at", "is", null)
    .where("assets.status_id", "in", deployableLabels)
    .orderBy("assets.id")
    .limit(wanted.quantity);
  return (await scope(select).$call(forUpdate(dialect)).execute()) as Row[];
}
