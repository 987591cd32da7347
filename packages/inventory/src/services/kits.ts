import { type AnyKysely, DomainError, Invalid, isUniqueViolation, NotFound } from "@anvil/core";
import { escaped } from "../convert/format.ts";
import { Refused } from "../errors.ts";
import { freeAssetsOfModel } from "../repositories/asset-checkouts.ts";
import {
  deleteKitItem,
  insertKitItem,
  type KitPivot,
  kitItem,
  kitItemCount,
  kitItems,
  lockKit,
  setKitItemQuantity,
} from "../repositories/kit-items.ts";
import type { Row } from "../repositories/records.ts";
import { kits } from "../resources/kits.ts";
import type { RequestOrigin } from "./activity.ts";
import { checkoutWithin } from "./checkout.ts";
import { checkoutStockWithin } from "./checkouts.ts";
import { inCallersCompany } from "./companies.ts";
import { type InventoryDatabase, storedNow } from "./database.ts";
import { holderExists } from "./holders.ts";
import { recordAction } from "./notifications.ts";
import { type Caller, can, requirePermission } from "./permissions.ts";
import { findResource, type WriteContext } from "./resource.ts";
import { checkoutLicenseWithin } from "./seats.ts";
import { validate } from "./validation.ts";

// What a predefined kit holds (Snipe-IT's kits_models, kits_licenses, kits_accessories and
// kits_consumables: an item and a quantity each), and checking a whole kit out to a user. The
// check-out goes through each item's own check-out path, all in one transaction: when any item
// cannot be checked out, nothing is, and the answer names every item that could not.

interface Kind extends KitPivot {
  table: "models" | "licenses" | "accessories" | "consumables";
  /** The body field naming the item, and the key of its errors. */
  field: "model" | "license" | "accessory" | "consumable";
  label: string;
  /** What checking this kind of item out takes. */
  checkout: string;
  messages: { added: string; updated: string; removed: string };
}

export const KIT_KINDS = {
  models: {
    pivot: "kits_models",
    column: "model_id",
    table: "models",
    field: "model",
    label: "Model",
    checkout: "assets.checkout",
    // Snipe-IT's own words (QUIRK: "successfull").
    messages: {
      added: "Model added successfull",
      updated: "Model updated successfully.",
      removed: "Model removed successfully.",
    },
  },
  licenses: {
    pivot: "kits_licenses",
    column: "license_id",
    table: "licenses",
    field: "license",
    label: "License",
    checkout: "licenses.checkout",
    messages: {
      added: "License added successfully.",
      updated: "License updated successfully.",
      removed: "License removed successfully.",
    },
  },
  accessories: {
    pivot: "kits_accessories",
    column: "accessory_id",
    table: "accessories",
    field: "accessory",
    label: "Accessory",
    checkout: "accessories.checkout",
    messages: {
      added: "Accessory added successfully.",
      updated: "Accessory updated successfully.",
      removed: "Accessory removed successfully.",
    },
  },
  consumables: {
    pivot: "kits_consumables",
    column: "consumable_id",
    table: "consumables",
    field: "consumable",
    label: "Consumable",
    checkout: "consumables.checkout",
    messages: {
      added: "Consumable added successfully.",
      updated: "Consumable updated successfully.",
      removed: "Consumable removed successfully.",
    },
  },
} as const satisfies Record<string, Kind>;

export type KitKind = keyof typeof KIT_KINDS;

// A kit's check-out writes a row per unit of stock and claims an asset or a seat per unit, all in
// one transaction: these bound it (at most 4 × 100 × 100 units).
const MAX_ITEMS_PER_KIND = 100;
const QUANTITY = "nullable|integer|max:100";

/** The bodies of a kit's routes, for their documentation (the services validate them). */
export const KIT_BODIES = {
  item: (kind: KitKind) => ({ [KIT_KINDS[kind].field]: "required|integer", quantity: QUANTITY }),
  quantity: { quantity: QUANTITY },
  checkout: {
    user_id: "required|integer",
    checkout_at: "nullable|date",
    expected_checkin: "nullable|date",
    note: "nullable|string|max:65535",
  },
} as const;

interface Actor {
  database: InventoryDatabase;
  caller: Caller;
  origin: RequestOrigin;
}

interface KitItem {
  pivot_id: number;
  id: number;
  name: string;
  quantity: number;
}

/** GET /kits/{id}/{kind}: Snipe-IT's kit elements. */
export async function listKitItems(
  database: InventoryDatabase,
  caller: Caller,
  kitId: number,
  kind: KitKind,
) {
  const db = database.db as AnyKysely;
  await findResource(database, kits, kitId, db, caller);
  const items = await kitItems(db, kitId, KIT_KINDS[kind]);
  const actions = { update: can(caller, "kits.edit"), delete: can(caller, "kits.delete") };
  return {
    total: items.length,
    rows: items.map((item) => ({
      id: item.id,
      pivot_id: item.pivot_id,
      owner_id: kitId,
      quantity: item.quantity,
      name: escaped(item.name),
      available_actions: actions,
    })),
  };
}

/** The kit, locked so that changes to what it holds take turns (the count of its items stays bounded). */
async function lockedKit(context: WriteContext, kitId: number): Promise<Row> {
  const kit = Number.isSafeInteger(kitId)
    ? await lockKit(context.trx, context.database.dialect, kitId)
    : undefined;
  if (!kit) throw new NotFound(kits.notFound);
  return kit;
}

/** Snipe-IT's quantity: 1 when absent or below 1 (QUIRK kept), at most our bound. */
async function quantityOf(trx: AnyKysely, input: Record<string, unknown>): Promise<number> {
  const { quantity } = await validate(trx, input, KIT_BODIES.quantity);
  return Math.max(1, typeof quantity === "number" ? quantity : 1);
}

/** Puts the item in the kit, unless the kit already holds as many of its kind as it may. */
async function addItem(context: WriteContext, kitId: number, kind: Kind, itemId: number, quantity: number) {
  if ((await kitItemCount(context.trx, kitId, kind)) >= MAX_ITEMS_PER_KIND)
    throw new Invalid("The given data was invalid.", {
      [kind.field]: [`A kit holds at most ${MAX_ITEMS_PER_KIND} ${kind.table}.`],
    });
  await insertKitItem(context.trx, kind, {
    kitId,
    itemId,
    quantity,
    now: storedNow(context.database.dialect),
  });
}

/** What a change to the kit's items leaves in the activity log: the item's quantity before and after. */
function logItemChange(
  context: WriteContext,
  kitId: number,
  kind: Kind,
  itemId: number,
  old: unknown,
  now: unknown,
) {
  return recordAction(context, {
    actionType: "update",
    item: { type: "kit", id: kitId },
    meta: { [`${kind.column}:${itemId}`]: { old: old ?? null, new: now ?? null } },
  });
}

function inTransaction<T>(actor: Actor, work: (context: WriteContext) => Promise<T>): Promise<T> {
  return actor.database.db.transaction().execute((trx) => work({ ...actor, trx: trx as AnyKysely }));
}

/** POST /kits/{id}/{kind} `{<item>: id, quantity}`; an item already in the kit is refused. */
export async function attachKitItem(
  actor: Actor,
  kitId: number,
  kindName: KitKind,
  input: Record<string, unknown>,
) {
  const kind = KIT_KINDS[kindName];
  return inTransaction(actor, async (context) => {
    const kit = await lockedKit(context, kitId);
    const values = await validate(context.trx, input, {
      [kind.field]: `required|integer|exists:${kind.table}`,
    });
    const itemId = values[kind.field] as number;
    const quantity = await quantityOf(context.trx, input);
    const duplicate = () =>
      new Invalid("The given data was invalid.", { [kind.field]: [`${kind.label} already attached to kit`] });
    if (await kitItem(context.trx, kitId, kind, itemId)) throw duplicate();
    await addItem(context, kitId, kind, itemId, quantity).catch((error: unknown) => {
      throw isUniqueViolation(error) ? duplicate() : error;
    });
    await logItemChange(context, kitId, kind, itemId, null, quantity);
    return kit;
  });
}

/**
 * PUT/PATCH /kits/{id}/{kind}/{item} `{quantity}`. Snipe-IT syncs the pivot without detaching, so
 * an item not yet in the kit is added (QUIRK kept).
 */
export async function updateKitItem(
  actor: Actor,
  kitId: number,
  kindName: KitKind,
  itemId: number,
  input: Record<string, unknown>,
) {
  const kind = KIT_KINDS[kindName];
  return inTransaction(actor, async (context) => {
    const kit = await lockedKit(context, kitId);
    await validate(
      context.trx,
      { [kind.field]: itemId },
      { [kind.field]: `required|integer|exists:${kind.table}` },
    );
    const quantity = await quantityOf(context.trx, input);
    const before = await kitItem(context.trx, kitId, kind, itemId);
    if (before)
      await setKitItemQuantity(context.trx, kind, before.id, quantity, storedNow(context.database.dialect));
    else await addItem(context, kitId, kind, itemId, quantity);
    await logItemChange(context, kitId, kind, itemId, before?.quantity, quantity);
    return kit;
  });
}

/** DELETE /kits/{id}/{kind}/{item}: takes the item out of the kit; one that is not in it is no error. */
export async function detachKitItem(actor: Actor, kitId: number, kindName: KitKind, itemId: number) {
  const kind = KIT_KINDS[kindName];
  return inTransaction(actor, async (context) => {
    const kit = await lockedKit(context, kitId);
    const before = Number.isSafeInteger(itemId) ? await kitItem(context.trx, kitId, kind, itemId) : undefined;
    if (before) {
      await deleteKitItem(context.trx, kind, before.id);
      await logItemChange(context, kitId, kind, itemId, before.quantity, null);
    }
    return kit;
  });
}

/** An item that could not be checked out, and why. */
interface Failure {
  type: Kind["field"];
  id: number;
  message: string;
}

// Snipe-IT's words for an item the kit needs more of than is available.
const SHORTAGE: Record<Kind["field"], (item: KitItem) => string> = {
  model: (item) =>
    `There are not enough available assets for ${item.name} to checkout. ${item.quantity} are required. `,
  license: (item) =>
    `There are not enough available seats for ${item.name} to checkout. ${item.quantity} are required. `,
  accessory: (item) =>
    `There are not enough available units of ${item.name} to checkout. ${item.quantity} are required. `,
  consumable: (item) =>
    `There are not enough available units of ${item.name} to checkout. ${item.quantity} are required. `,
};

/** Whether an item's own check-out refused for want of stock (its other refusals keep their words). */
function isShortage(field: Kind["field"], error: DomainError): boolean {
  if (field === "accessory") return error instanceof Invalid && "checkout_qty" in error.details;
  return error.kind === "conflict";
}

/** The model's assets the caller may check out now, locked (freeAssetsOfModel). */
async function availableAssets(context: WriteContext, modelId: number, quantity: number): Promise<Row[]> {
  return freeAssetsOfModel(context.trx, context.database.dialect, { modelId, quantity }, (select) =>
    inCallersCompany(select, context.caller, "assets"),
  );
}

const USER_NOT_FOUND = "User does not exist or you do not have permission view them.";

/**
 * POST /kits/{id}/checkout `{user_id, checkout_at?, expected_checkin?, note?}`: every item of the
 * kit to the user, each through its own check-out (and its own activity entry), in one transaction.
 */
export async function checkoutKit(actor: Actor, kitId: number, input: Record<string, unknown>) {
  return inTransaction(actor, async (context) => {
    const { trx, caller } = context;
    await findResource(context.database, kits, kitId, trx, caller);
    const items = Object.fromEntries(
      await Promise.all(
        (Object.keys(KIT_KINDS) as KitKind[]).map(
          // By item id: two kits holding the same items lock them in the same order, never crosswise.
          async (name) =>
            [name, (await kitItems(trx, kitId, KIT_KINDS[name])).sort((a, b) => a.id - b.id)] as const,
        ),
      ),
    ) as Record<KitKind, KitItem[]>;
    for (const name of Object.keys(KIT_KINDS) as KitKind[])
      if (items[name].length > 0) requirePermission(caller, KIT_KINDS[name].checkout);
    const values = await validate(trx, input, KIT_BODIES.checkout);
    const userId = values.user_id as number;
    if (!(await holderExists(trx, caller, "user", userId))) throw new NotFound(USER_NOT_FOUND);
    const note = (values.note as string | null | undefined) ?? null;
    const failures: Failure[] = [];
    // Each item's own refusal is collected and the next item tried, so the answer names them all;
    // anything else (a database error) ends the transaction at once.
    const attempt = async (field: Kind["field"], item: KitItem, work: () => Promise<void>) => {
      try {
        await work();
        return true;
      } catch (error) {
        if (!(error instanceof DomainError) || error.kind === "forbidden") throw error;
        failures.push({
          type: field,
          id: item.id,
          message: isShortage(field, error)
            ? SHORTAGE[field](item)
            : (Object.values(error.details)[0]?.[0] ?? error.message),
        });
        return false;
      }
    };
    const done = {
      assets: [] as { id: number; asset_tag: string }[],
      licenses: [] as { id: number; seat_id: number }[],
    };
    for (const item of items.models) {
      const assets = await availableAssets(context, item.id, item.quantity);
      if (assets.length < item.quantity) {
        failures.push({ type: "model", id: item.id, message: SHORTAGE.model(item) });
        continue;
      }
      for (const asset of assets) {
        const ok = await attempt("model", item, async () => {
          await checkoutWithin(
            context,
            asset,
            { type: "user", id: userId },
            {
              note,
              checkoutAt:
                typeof values.checkout_at === "string" ? new Date(Date.parse(values.checkout_at)) : undefined,
              expectedCheckin:
                typeof values.expected_checkin === "string" ? values.expected_checkin.slice(0, 10) : null,
            },
          );
          done.assets.push({ id: asset.id, asset_tag: String(asset.asset_tag) });
        });
        if (!ok) break;
      }
    }
    for (const item of items.licenses)
      for (let seat = 0; seat < item.quantity; seat++) {
        const ok = await attempt("license", item, async () => {
          const taken = await checkoutLicenseWithin(context, item.id, { assigned_to: userId, note });
          done.licenses.push({ id: item.id, seat_id: Number(taken.id) });
        });
        if (!ok) break;
      }
    for (const item of items.accessories)
      await attempt("accessory", item, () =>
        checkoutStockWithin(context, "accessory", item.id, {
          checkout_to_type: "user",
          assigned_user: userId,
          checkout_qty: item.quantity,
          note,
        }),
      );
    for (const item of items.consumables)
      await attempt("consumable", item, () =>
        checkoutStockWithin(context, "consumable", item.id, {
          assigned_to: userId,
          checkout_qty: item.quantity,
          note,
        }),
      );
    if (failures.length > 0)
      throw new Refused(failures.map((failure) => failure.message).join(""), {
        kit: kitId,
        failed: failures,
      });
    const quantities = (list: KitItem[]) => list.map((item) => ({ id: item.id, quantity: item.quantity }));
    return {
      kit: kitId,
      user_id: userId,
      assets: done.assets,
      licenses: done.licenses,
      accessories: quantities(items.accessories),
      consumables: quantities(items.consumables),
    };
  });
}
