import { type AnyKysely, isUniqueViolation } from "@anvil/core";
import { presentAssets } from "../convert/asset.ts";
import { datetime } from "../convert/format.ts";
import { assetsWithIds, isRequestableAsset, requestableAssets } from "../repositories/asset-lists.ts";
import {
  cancelRequest,
  countAssetRequest,
  openRequest,
  openRequestsOf,
  requestedBy,
} from "../repositories/checkout-requests.ts";
import type { Row } from "../repositories/records.ts";
import { logAction, type RequestOrigin } from "./activity.ts";
import { findAsset, listAssets } from "./assets.ts";
import { type InventoryDatabase, storedNow } from "./database.ts";
import { MAX_RESULTS } from "./listing.ts";
import type { Caller } from "./permissions.ts";

// Self-service requests of requestable assets (spec §7.1, /account): a user asks for an asset
// that is marked requestable and whose label is deployable or pending; an administrator then
// checks it out to them. One open request per user and asset, however often or concurrently asked.

export const REQUEST_MESSAGES = {
  success: "Request successfully submitted.",
  canceled: "Request successfully canceled.",
  notRequestable: "Asset is not requestable",
} as const;

const ASSET_TYPE = "asset";

/** Rows of the requestable list, as Snipe-IT's requested-asset transformer shows them. */
async function presentRequestable(db: AnyKysely, caller: Caller, rows: Row[]) {
  const [assets, requested] = await Promise.all([
    presentAssets(db, caller, rows),
    requestedBy(
      db,
      caller.user.id,
      ASSET_TYPE,
      rows.map((row) => row.id),
    ),
  ]);
  return rows.map((row, index) => {
    const asset = assets[index];
    const mine = requested.has(row.id);
    return {
      id: row.id,
      name: asset.name,
      asset_tag: asset.asset_tag,
      serial: asset.serial,
      image: asset.image,
      model: (asset.model as { name: string } | null)?.name ?? null,
      model_number: asset.model_number,
      expected_checkin: asset.expected_checkin,
      location: (asset.location as { name: string } | null)?.name ?? null,
      status: (asset.status_label as { status_meta: string } | null)?.status_meta ?? null,
      assigned_to_self: row.assigned_type === "user" && Number(row.assigned_to) === caller.user.id,
      available_actions: { cancel: mine, request: !mine },
    };
  });
}

/** The page of the assets the caller may request that the query asks for (every asset filter applies). */
export function requestableList(database: InventoryDatabase, caller: Caller, query: Record<string, unknown>) {
  return listAssets(database, caller, query, { narrow: requestableAssets, present: presentRequestable });
}

/**
 * Records the caller's request of the asset: "requested" (also when they had already asked: the
 * open request stands, nothing is counted twice), or "not-requestable".
 */
export async function requestAsset(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  assetId: number,
): Promise<"requested" | "not-requestable"> {
  const db = database.db as AnyKysely;
  const asset = await findAsset(db, assetId, caller, "Asset not found");
  // A deleted asset is not requestable, whatever its row says.
  if (asset.deleted_at !== null || !(await isRequestableAsset(db, asset.id))) return "not-requestable";
  const now = storedNow(database.dialect);
  try {
    await database.db.transaction().execute(async (trx) => {
      await openRequest(trx, { userId: caller.user.id, type: ASSET_TYPE, itemId: asset.id, now });
      await countAssetRequest(trx, asset.id);
      await logAction(trx, database.dialect, {
        createdBy: caller.user.id,
        actionType: "requested",
        item: { type: ASSET_TYPE, id: asset.id },
        target: { type: "user", id: caller.user.id },
        locationId: (asset.location_id as number | null) ?? null,
        origin,
      });
    });
  } catch (error) {
    // The open request already there (or made by a concurrent call) is the one.
    if (!isUniqueViolation(error)) throw error;
  }
  return "requested";
}

/** Cancels the caller's open request of the asset, if any. */
export async function cancelAssetRequest(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  assetId: number,
): Promise<void> {
  const asset = await findAsset(database.db as AnyKysely, assetId, caller, "Asset not found");
  await database.db.transaction().execute(async (trx) => {
    const now = storedNow(database.dialect);
    if (!(await cancelRequest(trx, { userId: caller.user.id, type: ASSET_TYPE, itemId: asset.id, now })))
      return;
    await logAction(trx, database.dialect, {
      createdBy: caller.user.id,
      actionType: "request canceled",
      item: { type: ASSET_TYPE, id: asset.id },
      target: { type: "user", id: caller.user.id },
      origin,
    });
  });
}

/** The caller's open requests (Snipe-IT's /account/requests rows). */
export async function ownRequests(database: InventoryDatabase, caller: Caller) {
  const db = database.db as AnyKysely;
  const page = await openRequestsOf(database.db, caller.user.id, MAX_RESULTS);
  const ids = page.rows.map((request) => Number(request.requestable_id));
  const shown = new Map(
    (await presentAssets(db, caller, await assetsWithIds(db, ids))).map((asset) => [asset.id, asset]),
  );
  const rows = page.rows.flatMap((request) => {
    const asset = shown.get(Number(request.requestable_id));
    if (!asset) return [];
    return [
      {
        image: asset.image,
        name: asset.name === "" ? asset.asset_tag : asset.name,
        type: ASSET_TYPE,
        qty: Number(request.quantity),
        location: (asset.location as { name: string } | null)?.name ?? null,
        expected_checkin: asset.expected_checkin,
        request_date: datetime(request.created_at),
      },
    ];
  });
  return { total: page.total, rows };
}
