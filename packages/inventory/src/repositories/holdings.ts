import { type AnyKysely, countRows } from "@anvil/core";
import type { HolderType } from "../services/holders.ts";
import type { AnySelect, Row } from "./records.ts";

// What a user, a location or an asset holds, read from the license seats and the accessory units
// checked out (spec §7.1, §12, §19): one row per seat or per unit, in the order they were checked
// out. `scope` narrows the rows to the caller's (the service decides how).

export interface Holder {
  type: HolderType;
  id: number;
}

type Scope = (select: AnySelect) => AnySelect;

export interface Window {
  limit: number;
  offset: number;
}

/** The page of `select`'s rows in `order`, and their total; an offset past the end gives none. */
async function pageInOrder(
  db: AnyKysely,
  select: AnySelect,
  order: string,
  { limit, offset }: Window,
): Promise<{ total: number; rows: Row[] }> {
  const total = await countRows(db, select);
  const rows = (await select.orderBy(order).limit(limit).offset(Math.min(offset, total)).execute()) as Row[];
  return { total, rows };
}

/** The licenses of the seats a user or an asset holds, one row per seat. */
export function licensesOfSeats(db: AnyKysely, holder: Holder, scope: Scope, window: Window) {
  const column = holder.type === "asset" ? "asset_id" : "assigned_to";
  const select = db
    .selectFrom("license_seats")
    .innerJoin("licenses", "licenses.id", "license_seats.license_id")
    .selectAll("licenses")
    .where(`license_seats.${column}`, "=", holder.id)
    .where("licenses.deleted_at", "is", null);
  return pageInOrder(db, scope(select), "license_seats.id", window);
}

/** The check-outs of the undeleted accessories a holder has, joined to their accessory. */
function accessoryCheckouts(db: AnyKysely, holder: Holder, scope: Scope): AnySelect {
  return scope(
    db
      .selectFrom("accessories_checkout")
      .innerJoin("accessories", "accessories.id", "accessories_checkout.accessory_id")
      .where("accessories_checkout.assigned_type", "=", holder.type)
      .where("accessories_checkout.assigned_to", "=", holder.id)
      .where("accessories.deleted_at", "is", null),
  );
}

/** The accessory rows, one per unit checked out to the holder. */
export function accessoriesCheckedOut(db: AnyKysely, holder: Holder, scope: Scope, window: Window) {
  const select = accessoryCheckouts(db, holder, scope).selectAll("accessories");
  return pageInOrder(db, select, "accessories_checkout.id", window);
}

/** The holder's check-out rows (id, note, author, time) with their accessory's id, name and image. */
export function accessoryUnitsCheckedOut(db: AnyKysely, holder: Holder, scope: Scope, window: Window) {
  const select = accessoryCheckouts(db, holder, scope).select([
    "accessories_checkout.id",
    "accessories_checkout.note",
    "accessories_checkout.created_by",
    "accessories_checkout.created_at",
    "accessories.id as accessory_id",
    "accessories.name as accessory_name",
    "accessories.image as accessory_image",
  ]);
  return pageInOrder(db, select, "accessories_checkout.id", window);
}
