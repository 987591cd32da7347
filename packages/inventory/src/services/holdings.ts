import { type AnyKysely, countRows } from "@anvil/core";
import { datetime, escaped, related } from "../convert/format.ts";
import { type AnySelect, namesOf, type Row } from "../repositories/records.ts";
import { accessories } from "../resources/accessories.ts";
import { licenses } from "../resources/licenses.ts";
import { inCallersCompany } from "./companies.ts";
import type { InventoryDatabase } from "./database.ts";
import type { HolderType } from "./holders.ts";
import { imageUrl } from "./images.ts";
import { type ListParams, listParams } from "./listing.ts";
import { type Caller, can } from "./permissions.ts";
import { presentRows, type ResourceDefinition } from "./resource.ts";

// What a user, a location or an asset holds (spec §7.1, §12, §19): the license seats and the
// accessories checked out to it. Each list is one row per seat or per checked-out unit, as
// Snipe-IT's relations list them, in the order they were checked out, paged as every list (§4).

export interface Holder {
  type: HolderType;
  id: number;
}

interface Page {
  total: number;
  rows: Record<string, unknown>[];
  params: ListParams;
}

/** The rows of `select` for the page the query asks for, in check-out order; an offset past the end gives none. */
async function pageOf(
  db: AnyKysely,
  select: AnySelect,
  order: string,
  query: Record<string, unknown>,
): Promise<{ total: number; rows: Row[]; params: ListParams }> {
  const params = listParams(query, { allowed: [], default: order });
  const total = await countRows(db, select);
  const rows = (await select
    .orderBy(order)
    .limit(params.limit)
    .offset(Math.min(params.offset, total))
    .execute()) as Row[];
  return { total, rows, params };
}

/** The page of `select`'s rows of a resource, as that resource presents them. */
async function presentedPage(
  database: InventoryDatabase,
  definition: ResourceDefinition,
  caller: Caller,
  select: AnySelect,
  query: Record<string, unknown>,
  order: string,
): Promise<Page> {
  const page = await pageOf(database.db as AnyKysely, select, order, query);
  return { ...page, rows: await presentRows(database, definition, caller, page.rows) };
}

/** License objects of the seats a user or an asset holds (`/users/{id}/licenses`, `/hardware/{id}/licenses`). */
export async function heldLicenses(
  database: InventoryDatabase,
  caller: Caller,
  holder: Holder,
  query: Record<string, unknown>,
): Promise<Page> {
  const db = database.db as AnyKysely;
  const column = holder.type === "asset" ? "asset_id" : "assigned_to";
  const select = db
    .selectFrom("license_seats")
    .innerJoin("licenses", "licenses.id", "license_seats.license_id")
    .selectAll("licenses")
    .where(`license_seats.${column}`, "=", holder.id)
    .where("licenses.deleted_at", "is", null);
  const scoped = inCallersCompany(select, caller, "licenses");
  return presentedPage(database, licenses, caller, scoped, query, "license_seats.id");
}

/** The check-out rows of the accessories a holder has, with the accessory's id, name and image. */
function checkedOutAccessories(db: AnyKysely, caller: Caller, holder: Holder): AnySelect {
  const select = db
    .selectFrom("accessories_checkout")
    .innerJoin("accessories", "accessories.id", "accessories_checkout.accessory_id")
    .where("accessories_checkout.assigned_type", "=", holder.type)
    .where("accessories_checkout.assigned_to", "=", holder.id)
    .where("accessories.deleted_at", "is", null);
  return inCallersCompany(select, caller, "accessories");
}

/** Accessory objects, one per unit checked out to the user (`/users/{id}/accessories`). */
export async function userAccessories(
  database: InventoryDatabase,
  caller: Caller,
  userId: number,
  query: Record<string, unknown>,
): Promise<Page> {
  const held = checkedOutAccessories(database.db as AnyKysely, caller, { type: "user", id: userId });
  return presentedPage(
    database,
    accessories,
    caller,
    held.selectAll("accessories"),
    query,
    "accessories_checkout.id",
  );
}

/**
 * The accessories checked out to an asset or a location, one row per unit with the check-out's
 * id (what `/accessories/{id}/checkin` takes), note and author.
 */
export async function assignedAccessories(
  database: InventoryDatabase,
  caller: Caller,
  holder: Holder,
  query: Record<string, unknown>,
): Promise<Page> {
  const db = database.db as AnyKysely;
  const select = checkedOutAccessories(db, caller, holder).select([
    "accessories_checkout.id",
    "accessories_checkout.note",
    "accessories_checkout.created_by",
    "accessories_checkout.created_at",
    "accessories.id as accessory_id",
    "accessories.name as accessory_name",
    "accessories.image as accessory_image",
  ]);
  const page = await pageOf(db, select, "accessories_checkout.id", query);
  const creators = await namesOf(
    db,
    "users",
    page.rows.map((row) => row.created_by),
  );
  const mayCheckin = can(caller, "accessories.checkin");
  return {
    ...page,
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
