import { type AnyKysely, toStoredTime } from "@anvil/core";
import { availableForCheckout, type HolderType } from "../convert/asset.ts";
import { Refused } from "../errors.ts";
import {
  assetRow,
  claimAssetCheckin,
  claimAssetCheckout,
  lockAsset,
  modelNameAndNumber,
} from "../repositories/asset-checkouts.ts";
import { findRecord, type Row } from "../repositories/records.ts";
import { storedNow } from "./database.ts";
import { findHolder } from "./holders.ts";
import { recordAction } from "./notifications.ts";
import type { WriteContext } from "./resource.ts";
import { releaseAssetSeats } from "./seats.ts";

// Checking an asset out and in (spec §7.5, §7.6, §24). A check-out is a claim: the UPDATE only
// changes a row that is still free, undeleted and deployable, and the number of rows it changed
// decides who won; its log entry is written by the same transaction, so exactly one request gets
// both the asset and the entry however many race.

export const NOT_AVAILABLE = "That asset is not available for checkout!";
export const ALREADY_CHECKED_IN = "That asset is already checked in.";

/** A row by its id alone, deleted or not. */
const ANY_ROW = { softDeletes: false, trashed: "with" } as const;

export interface CheckoutOptions {
  note?: string | null;
  /** When the asset left (last_checkout); now when absent. */
  checkoutAt?: Date;
  expectedCheckin?: string | null;
  /** A deployable label replacing the asset's. */
  statusId?: number;
  /** A new name for the asset. */
  name?: string | null;
}

export interface CheckinOptions {
  note?: string | null;
  checkinAt?: Date;
  statusId?: number;
  name?: string | null;
  /** Where the asset is now; its default location when absent. */
  locationId?: number;
  /** Whether locationId also becomes the default location. */
  updateDefaultLocation?: boolean;
}

/** The asset row as the transaction may change it: locked on PostgreSQL until the transaction ends. */
export function lockedAsset(context: WriteContext, id: number): Promise<Row | undefined> {
  return lockAsset(context.trx, context.database.dialect, id);
}

/** The target row, if it exists, is not deleted, is not the asset itself and the caller may see it. */
async function targetOf(
  context: WriteContext,
  asset: Row,
  type: HolderType,
  id: number,
): Promise<Row | undefined> {
  if (type === "asset" && id === asset.id) return undefined;
  return findHolder(context.trx, context.caller, type, id);
}

/** Checks `asset` out to the target inside the caller's transaction; throws Refused when it may not. */
export async function checkoutWithin(
  context: WriteContext,
  asset: Row,
  target: { type: HolderType; id: number },
  options: CheckoutOptions,
): Promise<Row> {
  const { trx } = context;
  const tag = asset.asset_tag as string;
  if (!availableForCheckout(asset, await findRecord(trx, "status_labels", Number(asset.status_id), ANY_ROW)))
    throw new Refused(NOT_AVAILABLE, { asset: tag });
  const holder = await targetOf(context, asset, target.type, target.id);
  if (!holder)
    throw new Refused(`Checkout target for asset ${tag} is invalid - ${target.type} does not exist.`, {
      asset: { id: asset.id, asset_tag: tag },
      target_id: target.id,
      target_type: target.type,
    });
  // The asset goes where its holder is.
  const locationId = target.type === "location" ? holder.id : ((holder.location_id as number | null) ?? null);
  const now = storedNow(context.database.dialect);
  const changes: Record<string, unknown> = {
    assigned_to: target.id,
    assigned_type: target.type,
    location_id: locationId,
    last_checkout: options.checkoutAt ? toStoredTime(options.checkoutAt, context.database.dialect) : now,
    expected_checkin: options.expectedCheckin ?? null,
    updated_at: now,
  };
  if (options.statusId !== undefined) changes.status_id = options.statusId;
  if (options.name !== undefined) changes.name = options.name;
  if (!(await claimAssetCheckout(trx, Number(asset.id), changes)))
    throw new Refused(NOT_AVAILABLE, { asset: tag });
  await recordAction(context, {
    actionType: "checkout",
    item: { type: "asset", id: asset.id },
    target,
    note: options.note ?? null,
    locationId,
  });
  return assetRow(trx, Number(asset.id));
}

/** What check-in answers carry: the asset's tag and its model's name and number. */
export async function checkinPayload(trx: AnyKysely, asset: Row) {
  const model = await modelNameAndNumber(trx, Number(asset.model_id));
  return {
    asset_tag: asset.asset_tag,
    model: model?.name ?? null,
    model_number: model?.model_number ?? null,
  };
}

async function existing(trx: AnyKysely, table: string, id: number | undefined): Promise<boolean> {
  return id !== undefined && (await findRecord(trx, table, id, ANY_ROW)) !== undefined;
}

/** Checks `asset` in inside the caller's transaction; throws Refused when it is not checked out. */
export async function checkinWithin(
  context: WriteContext,
  asset: Row,
  options: CheckinOptions,
): Promise<Row> {
  const { trx } = context;
  if (asset.assigned_to === null) throw new Refused(ALREADY_CHECKED_IN, await checkinPayload(trx, asset));
  const now = storedNow(context.database.dialect);
  // Snipe-IT does not validate these (QUIRK); an id that names nothing is not applied.
  const location = (await existing(trx, "locations", options.locationId)) ? options.locationId : undefined;
  const changes: Record<string, unknown> = {
    assigned_to: null,
    assigned_type: null,
    expected_checkin: null,
    last_checkin: options.checkinAt ? toStoredTime(options.checkinAt, context.database.dialect) : now,
    location_id: location ?? asset.rtd_location_id ?? null,
    updated_at: now,
  };
  if (location !== undefined && options.updateDefaultLocation) changes.rtd_location_id = location;
  if (await existing(trx, "status_labels", options.statusId)) changes.status_id = options.statusId;
  if (options.name !== undefined) changes.name = options.name;
  const holder = { type: String(asset.assigned_type), id: Number(asset.assigned_to) };
  if (!(await claimAssetCheckin(trx, { id: Number(asset.id), holder }, changes)))
    throw new Refused(ALREADY_CHECKED_IN, await checkinPayload(trx, asset));
  await recordAction(context, {
    actionType: "checkin from",
    item: { type: "asset", id: asset.id },
    target: holder,
    note: options.note ?? null,
    locationId: (changes.location_id as number | null) ?? null,
  });
  await releaseAssetSeats(context, asset.id, "user");
  return assetRow(trx, Number(asset.id));
}
