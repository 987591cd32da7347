import { type AnyKysely, type DialectName, forUpdate } from "@anvil/core";
import type { Row } from "./records.ts";

// What a kit holds (Snipe-IT's kits_models, kits_licenses, kits_accessories, kits_consumables:
// one row per item, with its quantity); services/kits.ts holds the rules.

type Time = string | Date;

/** One kind's pivot table, the item table it names and its column there. */
export interface KitPivot {
  pivot: "kits_models" | "kits_licenses" | "kits_accessories" | "kits_consumables";
  table: string;
  column: "model_id" | "license_id" | "accessory_id" | "consumable_id";
}

/** The kit's undeleted items of one kind, in the order they were added. */
export async function kitItems(db: AnyKysely, kitId: number, kind: KitPivot) {
  const rows = await db
    .selectFrom(`${kind.pivot} as pivot`)
    .innerJoin(`${kind.table} as item`, "item.id", `pivot.${kind.column}`)
    .select(["pivot.id as pivot_id", "item.id as id", "item.name as name", "pivot.quantity as quantity"])
    .where("pivot.kit_id", "=", kitId)
    .where("item.deleted_at", "is", null)
    .orderBy("pivot.id")
    .execute();
  return rows.map((row) => ({
    pivot_id: Number(row.pivot_id),
    id: Number(row.id),
    name: String(row.name),
    quantity: Number(row.quantity),
  }));
}

/** The kit row, locked on PostgreSQL until the transaction ends. */
export async function lockKit(trx: AnyKysely, dialect: DialectName, kitId: number): Promise<Row | undefined> {
  return (await trx
    .selectFrom("kits")
    .selectAll()
    .where("id", "=", kitId)
    .$call(forUpdate(dialect))
    .executeTakeFirst()) as Row | undefined;
}

/** The kit's row for the item, if it holds it. */
export async function kitItem(trx: AnyKysely, kitId: number, kind: KitPivot, itemId: number) {
  return trx
    .selectFrom(kind.pivot)
    .select(["id", "quantity"])
    .where("kit_id", "=", kitId)
    .where(kind.column, "=", itemId)
    .executeTakeFirst();
}

export async function kitItemCount(trx: AnyKysely, kitId: number, kind: KitPivot): Promise<number> {
  const { count } = await trx
    .selectFrom(kind.pivot)
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("kit_id", "=", kitId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

export async function insertKitItem(
  trx: AnyKysely,
  kind: KitPivot,
  item: { kitId: number; itemId: number; quantity: number; now: Time },
) {
  await trx
    .insertInto(kind.pivot)
    .values({
      kit_id: item.kitId,
      [kind.column]: item.itemId,
      quantity: item.quantity,
      created_at: item.now,
      updated_at: item.now,
    })
    .execute();
}

export async function setKitItemQuantity(
  trx: AnyKysely,
  kind: KitPivot,
  pivotId: number,
  quantity: number,
  now: Time,
) {
  await trx.updateTable(kind.pivot).set({ quantity, updated_at: now }).where("id", "=", pivotId).execute();
}

export async function deleteKitItem(trx: AnyKysely, kind: KitPivot, pivotId: number) {
  await trx.deleteFrom(kind.pivot).where("id", "=", pivotId).execute();
}
