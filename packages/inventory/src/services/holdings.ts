import { type AnyKysely, NotFound } from "@anvil/core";
import { datetime, escaped, related } from "../convert/format.ts";
import { assetsAssignedTo, assetsAt } from "../repositories/asset-lists.ts";
import { licensesOfSeatsHeldBy } from "../repositories/license-seats.ts";
import { type AnySelect, namesOf, type Row } from "../repositories/records.ts";
import {
  accessoriesCheckedOutTo,
  accessoryUnitsCheckedOutTo,
  consumablesCheckedOutTo,
} from "../repositories/stock-checkouts.ts";
import { accessories } from "../resources/accessories.ts";
import { consumables } from "../resources/consumables.ts";
import { licenses } from "../resources/licenses.ts";
import { locations } from "../resources/locations.ts";
import { users } from "../resources/users.ts";
import { ASSET_NOT_FOUND_BY_ROUTE, type AssetListScope, findAsset, listAssets } from "./assets.ts";
import { inCallersCompany } from "./companies.ts";
import type { InventoryDatabase } from "./database.ts";
import type { Holder } from "./holders.ts";
import { imageUrl } from "./images.ts";
import { type ListParams, listParams } from "./listing.ts";
import { type Caller, can } from "./permissions.ts";
import { findResource, listResource, presentRows, type ResourceDefinition } from "./resource.ts";

// What an asset, a location or a user holds (spec §7.1, §12, §19): the licenses of their seats,
// the accessories and assets checked out to them. Each list first finds the holder (the caller's
// to see, or NotFound), then lists; seats and accessory units one row each, in the order they were
// checked out, paged as every list (§4).

type Query = Record<string, unknown>;

interface Page {
  total: number;
  rows: Record<string, unknown>[];
  params: ListParams;
}

/** These lists have one order, the check-out's: they offer no sort. */
function checkoutOrderParams(query: Query): ListParams {
  return listParams(query, { allowed: [], default: "id" });
}

/** Rows of `table` the caller may see (spec §6: a holder's list hides other companies' items). */
function callersOnly(caller: Caller, table: string) {
  return (select: AnySelect) => inCallersCompany(select, caller, table);
}

/** The page the query asks for, read by `read`, of a resource's rows as that resource presents them. */
async function presentedPage(
  database: InventoryDatabase,
  caller: Caller,
  definition: ResourceDefinition,
  query: Query,
  read: (page: ListParams) => Promise<{ total: number; rows: Row[] }>,
): Promise<Page> {
  const params = checkoutOrderParams(query);
  const page = await read(params);
  return { ...page, params, rows: await presentRows(database, definition, caller, page.rows) };
}

/** An undeleted asset, as Snipe-IT's route binding finds it. */
async function boundAsset(database: InventoryDatabase, caller: Caller, id: number): Promise<Holder> {
  const asset = await findAsset(database.db as AnyKysely, id, caller, ASSET_NOT_FOUND_BY_ROUTE);
  if (asset.deleted_at !== null) throw new NotFound(ASSET_NOT_FOUND_BY_ROUTE);
  return { type: "asset", id: asset.id };
}

async function location(database: InventoryDatabase, caller: Caller, id: number): Promise<Holder> {
  return { type: "location", id: (await findResource(database, locations, id, undefined, caller)).id };
}

async function user(
  database: InventoryDatabase,
  caller: Caller,
  id: number,
  trashed: "with" | "without" = "without",
): Promise<Holder> {
  return { type: "user", id: (await findResource(database, users, id, undefined, caller, trashed)).id };
}

/** Assets checked out to the holder, whatever their label (what it holds is all it holds). */
function assetsOf(holder: Holder): AssetListScope {
  return { narrow: assetsAssignedTo(holder), everyStatus: true };
}

/** License objects of the seats a user or an asset holds. */
async function heldLicenses(
  database: InventoryDatabase,
  caller: Caller,
  holder: Holder,
  query: Query,
): Promise<Page> {
  return presentedPage(database, caller, licenses, query, (page) =>
    licensesOfSeatsHeldBy(database.db as AnyKysely, holder, callersOnly(caller, "licenses"), page),
  );
}

/**
 * The accessories checked out to an asset or a location, one row per unit with the check-out's
 * id (what `/accessories/{id}/checkin` takes), note and author.
 */
async function assignedAccessories(
  database: InventoryDatabase,
  caller: Caller,
  holder: Holder,
  query: Query,
): Promise<Page> {
  const db = database.db as AnyKysely;
  const params = checkoutOrderParams(query);
  const page = await accessoryUnitsCheckedOutTo(db, holder, callersOnly(caller, "accessories"), params);
  const creators = await namesOf(
    db,
    "users",
    page.rows.map((row) => row.created_by),
  );
  const mayCheckin = can(caller, "accessories.checkin");
  return {
    ...page,
    params,
    rows: page.rows.map((row) => ({
      id: Number(row.id),
      accessory: { id: Number(row.accessory_id), name: escaped(row.accessory_name as string) },
      image: imageUrl(caller, "accessories", row.accessory_image as string | null),
      note: escaped(row.note as string | null),
      created_by: related(row.created_by as number | null, creators),
      created_at: datetime(row.created_at as string | Date),
      available_actions: { checkout: false, checkin: mayCheckin },
    })),
  };
}

/** `/hardware/{id}/licenses`: this route reads deleted assets too, and says so in its own words (spec §7.1). */
export async function assetLicenses(
  database: InventoryDatabase,
  caller: Caller,
  assetId: number,
  query: Query,
) {
  const asset = await findAsset(database.db as AnyKysely, assetId, caller);
  return heldLicenses(database, caller, { type: "asset", id: asset.id }, query);
}

/** `/hardware/{id}/assigned/accessories`. */
export async function assetAccessories(
  database: InventoryDatabase,
  caller: Caller,
  assetId: number,
  query: Query,
) {
  return assignedAccessories(database, caller, await boundAsset(database, caller, assetId), query);
}

/** `/hardware/{id}/assigned/assets`. QUIRK kept (spec §7.1): upstream's handler is a stub that answers an empty array. */
export async function assetAssignedAssets(database: InventoryDatabase, caller: Caller, assetId: number) {
  await boundAsset(database, caller, assetId);
  return [];
}

/** `/locations/{id}/users`. */
export async function locationUsers(
  database: InventoryDatabase,
  caller: Caller,
  locationId: number,
  query: Query,
) {
  const { id } = await location(database, caller, locationId);
  return listResource(database, users, caller, { ...query, location_id: String(id) });
}

/** `/locations/{id}/assets`: the asset list of the assets whose current location it is, with every filter of GET /hardware. */
export async function locationAssets(
  database: InventoryDatabase,
  caller: Caller,
  locationId: number,
  query: Query,
) {
  const { id } = await location(database, caller, locationId);
  return listAssets(database, caller, query, { narrow: assetsAt(id) });
}

/** `/locations/{id}/assigned/assets`. */
export async function locationAssignedAssets(
  database: InventoryDatabase,
  caller: Caller,
  locationId: number,
  query: Query,
) {
  return listAssets(database, caller, query, assetsOf(await location(database, caller, locationId)));
}

/** `/locations/{id}/assigned/accessories`. */
export async function locationAccessories(
  database: InventoryDatabase,
  caller: Caller,
  locationId: number,
  query: Query,
) {
  return assignedAccessories(database, caller, await location(database, caller, locationId), query);
}

/**
 * `/users/{id}/assets`; besides every asset filter, Snipe-IT names category_id and model_id here
 * (spec §19). Snipe-IT reads a deleted user's assets on purpose (withTrashed), unlike their accessories.
 */
export async function userAssets(database: InventoryDatabase, caller: Caller, userId: number, query: Query) {
  return listAssets(database, caller, query, assetsOf(await user(database, caller, userId, "with")));
}

/** `/users/{id}/accessories`: accessory objects, one per unit checked out to the user. */
export async function userAccessories(
  database: InventoryDatabase,
  caller: Caller,
  userId: number,
  query: Query,
) {
  const holder = await user(database, caller, userId);
  return presentedPage(database, caller, accessories, query, (page) =>
    accessoriesCheckedOutTo(database.db as AnyKysely, holder, callersOnly(caller, "accessories"), page),
  );
}

/**
 * The consumables the user was given, one consumable object per unit, in check-out order (our
 * addition: Snipe-IT's user page shows them; its API has no route for them).
 */
export async function userConsumables(
  database: InventoryDatabase,
  caller: Caller,
  userId: number,
  query: Query,
) {
  const holder = await user(database, caller, userId);
  return presentedPage(database, caller, consumables, query, (page) =>
    consumablesCheckedOutTo(database.db as AnyKysely, holder.id, callersOnly(caller, "consumables"), page),
  );
}

/** `/users/{id}/licenses`: as for assets, Snipe-IT reads a deleted user's licenses on purpose (withTrashed). */
export async function userLicenses(
  database: InventoryDatabase,
  caller: Caller,
  userId: number,
  query: Query,
) {
  return heldLicenses(database, caller, await user(database, caller, userId, "with"), query);
}
