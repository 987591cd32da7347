import { type AnyKysely, Conflict, Invalid, NotFound } from "@anvil/core";
import { datetime, escaped, related } from "../convert/format.ts";
import { namesOf } from "../repositories/records.ts";
import {
  accessoryUnitsPage,
  componentCheckoutsPage,
  consumableUnits,
  insertStockCheckout,
  lockComponentCheckout,
  type StockKind,
  setComponentCheckoutQuantity,
  takeAccessoryUnit,
  unitsCheckedOut,
} from "../repositories/stock-checkouts.ts";
import { accessories } from "../resources/accessories.ts";
import { components } from "../resources/components.ts";
import { consumables } from "../resources/consumables.ts";
import { lockItem } from "../resources/stock.ts";
import type { RequestOrigin } from "./activity.ts";
import { rowVisibleTo, visibleTo } from "./companies.ts";
import { type InventoryDatabase, storedNow } from "./database.ts";
import { assetsById, fullName, type HolderType, holderExists, locationsById, usersById } from "./holders.ts";
import { recordAction } from "./notifications.ts";
import { type Caller, can } from "./permissions.ts";
import { findResource, type WriteContext } from "./resource.ts";
import { type Rules, validate } from "./validation.ts";

// Check-out and check-in of counted stock (spec §15–§17, §24). Each runs in one transaction that
// first locks the item's row (core's claim pattern 2), so what remains is counted after every
// earlier check-out has committed: however many requests race for the last unit, one gets it. The
// activity entry and the notifications are written in the same transaction. The three kinds share
// one check-out path; what differs between them is in their rules (CHECKOUT_RULES).

const HOLDER_LABELS: Record<HolderType, string> = { user: "User", location: "Location", asset: "Asset" };
const TYPES: readonly HolderType[] = ["user", "location", "asset"];
// Each unit of an accessory or consumable checked out is a row of its own: one request makes at
// most this many, so a quantity never turns into a statement or transaction without bound.
const CHECKOUT_QTY = "nullable|integer|min:1|max:1000";

interface Actor {
  database: InventoryDatabase;
  caller: Caller;
  origin: RequestOrigin;
}

/** A checked-out list's page: limit defaults to 50 (spec §4 exceptions), at most 500. */
function pageOf(query: Record<string, unknown>) {
  const number = (value: unknown) =>
    typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Math.abs(Number(value)) : undefined;
  const limit = Math.min(number(query.limit) || 50, 500);
  return { limit, offset: number(query.offset) ?? 0 };
}

function accessoryQtyMessage(remaining: number, asked: number): string {
  return remaining === 1
    ? `There is currently only one available accessory of this type, and you are trying to check out ${asked}. Please adjust the checkout quantity or the total stock of this accessory and try again.`
    : `There are ${remaining} total available accessories, and you are trying to check out ${asked}. Please adjust the checkout quantity or the total stock of this accessory and try again.`;
}

export const NOT_ENOUGH_CONSUMABLES =
  "There are not enough consumables for this checkout. Please check the quantity left. ";

/** Component check-out validation failures, which Snipe-IT answers in the payload slot (§2.3). */
export class ComponentCheckoutInvalid extends Error {
  readonly details: Record<string, string[]>;
  constructor(details: Record<string, string[]>) {
    super("The given data was invalid.");
    this.details = details;
  }
}

type Holder = { type: HolderType; id: number };

/** What differs between the kinds' check-outs: their input, holders, and refusals in Snipe-IT's words. */
interface CheckoutRules {
  table: "accessories" | "consumables" | "components";
  notFound: string;
  input: Rules;
  /** The input field of the units asked for (1 when absent and optional). */
  quantity: string;
  /** Whom the units go to, from the validated input; throws the kind's refusal. */
  holder(context: WriteContext, values: Record<string, unknown>): Promise<Holder>;
  /** The refusal when fewer than `asked` units remain. */
  shortage(remaining: number, asked: number): Error;
  /** Snipe-IT counts a consumable's stock before it looks for the user. */
  stockFirst?: boolean;
  /** Snipe-IT answers a component's invalid input in the payload slot. */
  invalid?: (details: Record<string, string[]>) => Error;
}

const CHECKOUT_RULES: Record<StockKind, CheckoutRules> = {
  accessory: {
    table: "accessories",
    notFound: "Accessory not found",
    input: {
      checkout_to_type: "nullable|string|in:user,location,asset",
      assigned_user: "nullable|integer",
      assigned_location: "nullable|integer",
      assigned_asset: "nullable|integer",
      checkout_qty: CHECKOUT_QTY,
      note: "nullable|string|max:65535",
    },
    quantity: "checkout_qty",
    async holder({ trx, caller }, values) {
      const type = (values.checkout_to_type ?? "user") as HolderType;
      const id = values[`assigned_${type}`];
      if (typeof id !== "number") {
        const others = TYPES.filter((other) => other !== type).map((other) => `assigned ${other}`);
        throw new Invalid("The given data was invalid.", {
          [`assigned_${type}`]: [
            `The assigned ${type} field is required when none of ${others.join(" / ")} are present.`,
          ],
        });
      }
      if (!(await holderExists(trx, caller, type, id)))
        throw new NotFound(`${HOLDER_LABELS[type]} not found`);
      return { type, id };
    },
    shortage: (remaining, asked) =>
      new Invalid("The given data was invalid.", { checkout_qty: [accessoryQtyMessage(remaining, asked)] }),
  },
  consumable: {
    table: "consumables",
    notFound: "Consumable not found",
    input: { assigned_to: "required|integer", checkout_qty: CHECKOUT_QTY, note: "nullable|string|max:65535" },
    quantity: "checkout_qty",
    async holder({ trx, caller }, values) {
      const id = values.assigned_to as number;
      if (!(await holderExists(trx, caller, "user", id))) throw new NotFound("No user found");
      return { type: "user", id };
    },
    shortage: () => new Conflict(NOT_ENOUGH_CONSUMABLES),
    stockFirst: true,
  },
  component: {
    table: "components",
    notFound: "Component does not exist.",
    input: {
      assigned_to: "required|integer|exists:assets",
      assigned_qty: "required|integer|min:1",
      note: "nullable|string|max:65535",
    },
    quantity: "assigned_qty",
    async holder({ trx, caller }, values) {
      const id = values.assigned_to as number;
      // `exists:assets` found the asset; only a company may still hide it from the caller.
      if (!(await rowVisibleTo(trx, caller, "assets", id)))
        throw new ComponentCheckoutInvalid({ assigned_to: ["The selected assigned to is invalid."] });
      return { type: "asset", id };
    },
    shortage: (remaining, asked) =>
      new Conflict(`Not enough components remaining: ${remaining} remaining, ${asked} requested `),
    invalid: (details) => new ComponentCheckoutInvalid(details),
  },
};

/** Checks units of an accessory, consumable or component out, in a transaction of its own. */
export async function checkoutStock(
  actor: Actor,
  kind: StockKind,
  id: number,
  input: Record<string, unknown>,
): Promise<void> {
  await actor.database.db
    .transaction()
    .execute((trx) => checkoutStockWithin({ ...actor, trx: trx as AnyKysely }, kind, id, input));
}

/** A check-out inside the caller's transaction (a kit's check-out holds several). */
export async function checkoutStockWithin(
  context: WriteContext,
  kind: StockKind,
  id: number,
  input: Record<string, unknown>,
): Promise<void> {
  const rules = CHECKOUT_RULES[kind];
  const { database, trx, caller } = context;
  const item = await lockItem(trx, database.dialect, rules.table, id);
  if (!item || !visibleTo(caller, rules.table, item)) throw new NotFound(rules.notFound);
  const values = await validate(trx, input, rules.input).catch((error) => {
    throw rules.invalid && error instanceof Invalid ? rules.invalid(error.details) : error;
  });
  const asked = (values[rules.quantity] as number | undefined) ?? 1;
  let holder = rules.stockFirst ? undefined : await rules.holder(context, values);
  const remaining = Number(item.qty) - (await unitsCheckedOut(trx, kind, id));
  if (asked > remaining) throw rules.shortage(remaining, asked);
  holder ??= await rules.holder(context, values);
  const note = (values.note as string | null | undefined) ?? null;
  await insertStockCheckout(trx, kind, {
    itemId: id,
    holder,
    quantity: asked,
    note,
    createdBy: caller.user.id,
    now: storedNow(database.dialect),
  });
  await recordAction(context, {
    actionType: "checkout",
    item: { type: kind, id },
    target: holder,
    note,
    quantity: asked,
  });
}

/** Returns one checked-out unit; the row's id is what `/accessories/{id}/checkedout` lists. */
export async function checkinAccessory(
  actor: Actor,
  checkoutId: number,
  input: Record<string, unknown>,
): Promise<void> {
  const { database, caller } = actor;
  await database.db.transaction().execute(async (trx) => {
    const values = await validate(trx, input, { note: "nullable|string|max:65535" });
    // One statement decides: of two check-ins of the same row, only one deletes it.
    const row = Number.isSafeInteger(checkoutId) ? await takeAccessoryUnit(trx, checkoutId) : undefined;
    // An accessory of another company's: the delete rolls back with the answer.
    if (!row || !(await rowVisibleTo(trx, caller, "accessories", Number(row.accessory_id))))
      throw new NotFound("AccessoryCheckout not found");
    await recordAction(
      { ...actor, trx: trx as AnyKysely },
      {
        actionType: "checkin from",
        item: { type: "accessory", id: Number(row.accessory_id) },
        target: { type: row.assigned_type, id: Number(row.assigned_to) },
        note: (values.note as string | null | undefined) ?? null,
      },
    );
  });
}

export async function accessoryCheckouts(
  database: InventoryDatabase,
  caller: Caller,
  id: number,
  query: Record<string, unknown>,
) {
  const db = database.db;
  await findResource(database, accessories, id, undefined, caller);
  const { limit, offset } = pageOf(query);
  const search = typeof query.search === "string" ? query.search.trim().toLowerCase() : "";
  const { total, rows } = await accessoryUnitsPage(db, id, { limit, offset, search });
  const idsOf = (type: string) =>
    rows.filter((r) => r.assigned_type === type).map((r) => Number(r.assigned_to));
  const [users, locations, assets, creators] = await Promise.all([
    usersById(db, idsOf("user")),
    locationsById(db, idsOf("location")),
    assetsById(db, idsOf("asset")),
    namesOf(
      db,
      "users",
      rows.map((row) => row.created_by),
    ),
  ]);
  const mayCheckin = can(caller, "accessories.checkin");
  return {
    total,
    rows: rows.map((row) => {
      const holder = Number(row.assigned_to);
      let assigned: Record<string, unknown> | null = null;
      if (row.assigned_type === "user") {
        const user = users.get(holder);
        if (user)
          assigned = {
            id: holder,
            image: null,
            type: "user",
            name: fullName(user),
            first_name: escaped(user.first_name),
            last_name: escaped(user.last_name),
            username: escaped(user.username),
            created_by: user.created_by === null ? null : Number(user.created_by),
            created_at: datetime(user.created_at),
            deleted_at: datetime(user.deleted_at),
          };
      } else if (row.assigned_type === "location") {
        const location = locations.get(holder);
        if (location) assigned = { id: holder, image: null, type: "location", name: escaped(location.name) };
      } else {
        const asset = assets.get(holder);
        if (asset)
          assigned = {
            id: holder,
            image: null,
            type: "asset",
            name: escaped(asset.name ?? asset.asset_tag),
            model: escaped(asset.model),
            model_number: escaped(asset.model_number),
            asset_tag: escaped(asset.asset_tag),
            serial: escaped(asset.serial),
          };
      }
      return {
        id: Number(row.id),
        assigned_to: assigned,
        note: escaped(row.note),
        created_by: related(row.created_by, creators),
        created_at: datetime(row.created_at),
        available_actions: { checkin: mayCheckin },
      };
    }),
  };
}

export async function consumableUsers(database: InventoryDatabase, caller: Caller, id: number) {
  const db = database.db;
  await findResource(database, consumables, id, undefined, caller);
  const rows = await consumableUnits(db, id);
  const [users, creators] = await Promise.all([
    namesOf(
      db,
      "users",
      rows.map((row) => row.assigned_to),
    ),
    namesOf(
      db,
      "users",
      rows.map((row) => row.created_by),
    ),
  ]);
  return {
    total: rows.length,
    rows: rows.map((row) => ({
      avatar: null,
      user: related(row.assigned_to, users),
      created_at: datetime(row.created_at),
      note: escaped(row.note),
      created_by: related(row.created_by, creators),
    })),
  };
}

/** Takes `checkin_qty` units back from one check-out row; the row goes when nothing is left in it. */
export async function checkinComponent(
  actor: Actor,
  pivotId: number,
  input: Record<string, unknown>,
): Promise<void> {
  const { database, caller } = actor;
  await database.db.transaction().execute(async (trx) => {
    const row = Number.isSafeInteger(pivotId)
      ? await lockComponentCheckout(trx, database.dialect, pivotId)
      : undefined;
    if (!row || !(await rowVisibleTo(trx, caller, "components", Number(row.component_id))))
      throw new NotFound("No matching checkouts for that component join record");
    const held = Number(row.assigned_qty);
    const raw = input.checkin_qty;
    const asked = typeof raw === "string" && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
    if (typeof asked !== "number" || !Number.isInteger(asked) || asked < 1 || asked > held)
      throw new Invalid(`Checkin quantity must be between 1 and ${held}`);
    await setComponentCheckoutQuantity(trx, pivotId, held - asked, storedNow(database.dialect));
    await recordAction(
      { ...actor, trx: trx as AnyKysely },
      {
        actionType: "checkin from",
        item: { type: "component", id: Number(row.component_id) },
        target: { type: "asset", id: Number(row.asset_id) },
        note: typeof input.note === "string" && input.note !== "" ? input.note : null,
        quantity: asked,
      },
    );
  });
}

export async function componentAssets(
  database: InventoryDatabase,
  caller: Caller,
  id: number,
  query: Record<string, unknown>,
) {
  const db = database.db;
  await findResource(database, components, id, undefined, caller);
  const { limit, offset } = pageOf(query);
  const { total, rows } = await componentCheckoutsPage(db, id, { limit, offset });
  const assets = await assetsById(
    db,
    rows.map((row) => Number(row.asset_id)),
  );
  const mayCheckin = can(caller, "components.checkin");
  return {
    total,
    rows: rows.map((row) => {
      const asset = assets.get(Number(row.asset_id));
      return {
        assigned_pivot_id: Number(row.id),
        id: Number(row.asset_id),
        name: asset ? escaped(asset.name ?? asset.asset_tag) : null,
        qty: Number(row.assigned_qty),
        note: escaped(row.note),
        type: "asset",
        created_at: datetime(row.created_at),
        available_actions: { checkin: mayCheckin },
      };
    }),
  };
}
