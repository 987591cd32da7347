import { type AnyKysely, type DialectName, forUpdate } from "@anvil/core";
import type { Executor } from "../services/database.ts";
import type { Holder } from "../services/holders.ts";
import { type AnySelect, pageInOrder } from "./records.ts";

// Who holds counted stock (spec §15–§17). An accessory or consumable unit checked out is a row of
// its own (accessories_checkout, consumables_users); a component check-out is one row with its
// quantity (components_assets).

export type StockKind = "accessory" | "consumable" | "component";

type Time = string | Date;

export interface StockCheckout {
  itemId: number;
  holder: { type: string; id: number };
  quantity: number;
  note: string | null;
  createdBy: number;
  now: Time;
}

/** The units of the item checked out now. */
export async function unitsCheckedOut(db: Executor, kind: StockKind, itemId: number): Promise<number> {
  if (kind === "component") {
    const row = await db
      .selectFrom("components_assets")
      .select((eb) => eb.fn.sum<number | string | null>("assigned_qty").as("held"))
      .where("component_id", "=", itemId)
      .executeTakeFirst();
    return Number(row?.held ?? 0);
  }
  const row =
    kind === "accessory"
      ? await db
          .selectFrom("accessories_checkout")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("accessory_id", "=", itemId)
          .executeTakeFirstOrThrow()
      : await db
          .selectFrom("consumables_users")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("consumable_id", "=", itemId)
          .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertStockCheckout(db: Executor, kind: StockKind, checkout: StockCheckout) {
  const { itemId, holder, quantity, note, createdBy, now } = checkout;
  const stamps = { note, created_by: createdBy, created_at: now, updated_at: now };
  if (kind === "component") {
    await db
      .insertInto("components_assets")
      .values({ component_id: itemId, asset_id: holder.id, assigned_qty: quantity, ...stamps })
      .execute();
    return;
  }
  const units = Array.from({ length: quantity }, () => stamps);
  if (kind === "accessory")
    await db
      .insertInto("accessories_checkout")
      .values(
        units.map((unit) => ({
          accessory_id: itemId,
          assigned_to: holder.id,
          assigned_type: holder.type,
          ...unit,
        })),
      )
      .execute();
  else
    await db
      .insertInto("consumables_users")
      .values(units.map((unit) => ({ consumable_id: itemId, assigned_to: holder.id, ...unit })))
      .execute();
}

/** Deletes one checked-out accessory unit and answers it; of two takers of a unit, one gets it. */
export async function takeAccessoryUnit(db: Executor, checkoutId: number) {
  return db.deleteFrom("accessories_checkout").where("id", "=", checkoutId).returningAll().executeTakeFirst();
}

/** A component check-out row, locked until the transaction ends. */
export async function lockComponentCheckout(db: Executor, dialect: DialectName, pivotId: number) {
  return db
    .selectFrom("components_assets")
    .selectAll()
    .where("id", "=", pivotId)
    .$call(forUpdate(dialect))
    .executeTakeFirst();
}

/** Sets a component check-out's quantity; the row goes when nothing is left in it. */
export async function setComponentCheckoutQuantity(
  db: Executor,
  pivotId: number,
  quantity: number,
  now: Time,
) {
  if (quantity === 0) await db.deleteFrom("components_assets").where("id", "=", pivotId).execute();
  else
    await db
      .updateTable("components_assets")
      .set({ assigned_qty: quantity, updated_at: now })
      .where("id", "=", pivotId)
      .execute();
}

/** A page of an accessory's checked-out units, the note matching `search` when it is not empty. */
export async function accessoryUnitsPage(
  db: Executor,
  accessoryId: number,
  page: { limit: number; offset: number; search: string },
) {
  let select = db.selectFrom("accessories_checkout").where("accessory_id", "=", accessoryId);
  if (page.search !== "")
    select = select.where((eb) =>
      eb(eb.fn("lower", ["note"]), "like", `%${page.search.replace(/[%_\\]/g, "")}%`),
    );
  const total = Number(
    (await select.select((eb) => eb.fn.countAll<number>().as("count")).executeTakeFirstOrThrow()).count,
  );
  const rows = await select.selectAll().orderBy("id").limit(page.limit).offset(page.offset).execute();
  return { total, rows };
}

export async function consumableUnits(db: Executor, consumableId: number) {
  return db
    .selectFrom("consumables_users")
    .selectAll()
    .where("consumable_id", "=", consumableId)
    .orderBy("id")
    .execute();
}

export async function componentCheckoutsPage(
  db: Executor,
  componentId: number,
  page: { limit: number; offset: number },
) {
  const select = db.selectFrom("components_assets").where("component_id", "=", componentId);
  const total = Number(
    (await select.select((eb) => eb.fn.countAll<number>().as("count")).executeTakeFirstOrThrow()).count,
  );
  const rows = await select.selectAll().orderBy("id").limit(page.limit).offset(page.offset).execute();
  return { total, rows };
}

type Scope = (select: AnySelect) => AnySelect;

/** The check-outs of the undeleted accessories a holder has, joined to their accessory, as `scope` keeps them. */
function accessoryCheckoutsOf(db: AnyKysely, holder: Holder, scope: Scope): AnySelect {
  return scope(
    db
      .selectFrom("accessories_checkout")
      .innerJoin("accessories", "accessories.id", "accessories_checkout.accessory_id")
      .where("accessories_checkout.assigned_type", "=", holder.type)
      .where("accessories_checkout.assigned_to", "=", holder.id)
      .where("accessories.deleted_at", "is", null),
  );
}

/** A page of the accessory rows, one per unit checked out to the holder, in check-out order. */
export function accessoriesCheckedOutTo(
  db: AnyKysely,
  holder: Holder,
  scope: Scope,
  page: { limit: number; offset: number },
) {
  const select = accessoryCheckoutsOf(db, holder, scope).selectAll("accessories");
  return pageInOrder(db, select, "accessories_checkout.id", page);
}

/** A page of the consumable rows, one per unit checked out to the user, in check-out order, as `scope` keeps them. */
export function consumablesCheckedOutTo(
  db: AnyKysely,
  userId: number,
  scope: Scope,
  page: { limit: number; offset: number },
) {
  const select = scope(
    db
      .selectFrom("consumables_users")
      .innerJoin("consumables", "consumables.id", "consumables_users.consumable_id")
      .where("consumables_users.assigned_to", "=", userId)
      .where("consumables.deleted_at", "is", null),
  ).selectAll("consumables");
  return pageInOrder(db, select, "consumables_users.id", page);
}

/** A page of the holder's check-outs (id, note, author, time) with their accessory's id, name and image. */
export function accessoryUnitsCheckedOutTo(
  db: AnyKysely,
  holder: Holder,
  scope: Scope,
  page: { limit: number; offset: number },
) {
  const select = accessoryCheckoutsOf(db, holder, scope).select([
    "accessories_checkout.id",
    "accessories_checkout.note",
    "accessories_checkout.created_by",
    "accessories_checkout.created_at",
    "accessories.id as accessory_id",
    "accessories.name as accessory_name",
    "accessories.image as accessory_image",
  ]);
  return pageInOrder(db, select, "accessories_checkout.id", page);
}
