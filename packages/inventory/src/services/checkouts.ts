import { type AnyKysely, Conflict, forUpdate, Invalid, NotFound } from "@anvil/core";
import { datetime, escaped, related } from "../convert/format.ts";
import { namesOf } from "../repositories/records.ts";
import { accessories } from "../resources/accessories.ts";
import { components } from "../resources/components.ts";
import { consumables } from "../resources/consumables.ts";
import { lockItem } from "../resources/stock.ts";
import { logAction, type RequestOrigin } from "./activity.ts";
import { rowVisibleTo, visibleTo } from "./companies.ts";
import { type InventoryDatabase, storedNow } from "./database.ts";
import { assetsById, fullName, type HolderType, holderExists, locationsById, usersById } from "./holders.ts";
import { queueNotifications } from "./notifications.ts";
import { type Caller, can } from "./permissions.ts";
import { findResource, type WriteContext } from "./resource.ts";
import { validate } from "./validation.ts";

// Check-out and check-in of counted stock (spec §15–§17, §24). Each runs in one transaction that
// first locks the item's row (core's claim pattern 2), so what remains is counted after every
// earlier check-out has committed: however many requests race for the last unit, one gets it. The
// activity entry is written in the same transaction.

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

export async function checkoutAccessory(
  actor: Actor,
  id: number,
  input: Record<string, unknown>,
): Promise<void> {
  await actor.database.db
    .transaction()
    .execute((trx) => checkoutAccessoryWithin({ ...actor, trx: trx as AnyKysely }, id, input));
}

/** An accessory check-out inside the caller's transaction (a kit's check-out holds several). */
export async function checkoutAccessoryWithin(
  context: WriteContext,
  id: number,
  input: Record<string, unknown>,
): Promise<void> {
  const { database, trx, caller, origin } = context;
  const accessory = await lockItem(trx, database.dialect, "accessories", id);
  if (!accessory || !visibleTo(caller, "accessories", accessory)) throw new NotFound("Accessory not found");
  const values = await validate(trx, input, {
    checkout_to_type: "nullable|string|in:user,location,asset",
    assigned_user: "nullable|integer",
    assigned_location: "nullable|integer",
    assigned_asset: "nullable|integer",
    checkout_qty: CHECKOUT_QTY,
    note: "nullable|string|max:65535",
  });
  const type = (values.checkout_to_type ?? "user") as HolderType;
  const targetId = values[`assigned_${type}`];
  if (typeof targetId !== "number") {
    const others = TYPES.filter((other) => other !== type).map((other) => `assigned ${other}`);
    throw new Invalid("The given data was invalid.", {
      [`assigned_${type}`]: [
        `The assigned ${type} field is required when none of ${others.join(" / ")} are present.`,
      ],
    });
  }
  if (!(await holderExists(trx, caller, type, targetId)))
    throw new NotFound(`${HOLDER_LABELS[type]} not found`);
  const asked = (values.checkout_qty as number | undefined) ?? 1;
  const held = await trx
    .selectFrom("accessories_checkout")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("accessory_id", "=", id)
    .executeTakeFirstOrThrow();
  const remaining = Number(accessory.qty) - Number(held.count);
  if (asked > remaining)
    throw new Invalid("The given data was invalid.", {
      checkout_qty: [accessoryQtyMessage(remaining, asked)],
    });
  const now = storedNow(database.dialect);
  const note = (values.note as string | null | undefined) ?? null;
  await trx
    .insertInto("accessories_checkout")
    .values(
      Array.from({ length: asked }, () => ({
        accessory_id: id,
        assigned_to: targetId,
        assigned_type: type,
        note,
        created_by: caller.user.id,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  await logAction(trx, database.dialect, {
    createdBy: caller.user.id,
    actionType: "checkout",
    item: { type: "accessory", id },
    target: { type, id: targetId },
    note,
    origin,
  });
  await queueNotifications(context, {
    action: "checkout",
    item: { type: "accessory", id },
    target: { type, id: targetId },
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
  const { database, caller, origin } = actor;
  await database.db.transaction().execute(async (trx) => {
    const values = await validate(trx, input, { note: "nullable|string|max:65535" });
    // One statement decides: of two check-ins of the same row, only one deletes it.
    const row = Number.isSafeInteger(checkoutId)
      ? await trx
          .deleteFrom("accessories_checkout")
          .where("id", "=", checkoutId)
          .returningAll()
          .executeTakeFirst()
      : undefined;
    // An accessory of another company's: the delete rolls back with the answer.
    if (!row || !(await rowVisibleTo(trx, caller, "accessories", Number(row.accessory_id))))
      throw new NotFound("AccessoryCheckout not found");
    const entry = {
      item: { type: "accessory", id: Number(row.accessory_id) },
      target: { type: row.assigned_type, id: Number(row.assigned_to) },
      note: (values.note as string | null | undefined) ?? null,
    };
    await logAction(trx, database.dialect, {
      createdBy: caller.user.id,
      actionType: "checkin from",
      ...entry,
      origin,
    });
    await queueNotifications({ ...actor, trx: trx as AnyKysely }, { action: "checkin", ...entry });
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
  let select = db.selectFrom("accessories_checkout").where("accessory_id", "=", id);
  if (search !== "")
    select = select.where((eb) => eb(eb.fn("lower", ["note"]), "like", `%${search.replace(/[%_\\]/g, "")}%`));
  const total = Number(
    (await select.select((eb) => eb.fn.countAll<number>().as("count")).executeTakeFirstOrThrow()).count,
  );
  const rows = await select.selectAll().orderBy("id").limit(limit).offset(offset).execute();
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

export const NOT_ENOUGH_CONSUMABLES =
  "There are not enough consumables for this checkout. Please check the quantity left. ";

export async function checkoutConsumable(
  actor: Actor,
  id: number,
  input: Record<string, unknown>,
): Promise<void> {
  await actor.database.db
    .transaction()
    .execute((trx) => checkoutConsumableWithin({ ...actor, trx: trx as AnyKysely }, id, input));
}

/** A consumable check-out inside the caller's transaction. */
export async function checkoutConsumableWithin(
  context: WriteContext,
  id: number,
  input: Record<string, unknown>,
): Promise<void> {
  const { database, trx, caller, origin } = context;
  const consumable = await lockItem(trx, database.dialect, "consumables", id);
  if (!consumable || !visibleTo(caller, "consumables", consumable))
    throw new NotFound("Consumable not found");
  const values = await validate(trx, input, {
    assigned_to: "required|integer",
    checkout_qty: CHECKOUT_QTY,
    note: "nullable|string|max:65535",
  });
  const asked = (values.checkout_qty as number | undefined) ?? 1;
  const given = await trx
    .selectFrom("consumables_users")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("consumable_id", "=", id)
    .executeTakeFirstOrThrow();
  const remaining = Number(consumable.qty) - Number(given.count);
  if (remaining <= 0 || asked > remaining) throw new Conflict(NOT_ENOUGH_CONSUMABLES);
  const userId = values.assigned_to as number;
  if (!(await holderExists(trx, caller, "user", userId))) throw new NotFound("No user found");
  const now = storedNow(database.dialect);
  const note = (values.note as string | null | undefined) ?? null;
  await trx
    .insertInto("consumables_users")
    .values(
      Array.from({ length: asked }, () => ({
        consumable_id: id,
        assigned_to: userId,
        note,
        created_by: caller.user.id,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  await logAction(trx, database.dialect, {
    createdBy: caller.user.id,
    actionType: "checkout",
    item: { type: "consumable", id },
    target: { type: "user", id: userId },
    note,
    origin,
  });
  await queueNotifications(context, {
    action: "checkout",
    item: { type: "consumable", id },
    target: { type: "user", id: userId },
    note,
    quantity: asked,
  });
}

export async function consumableUsers(database: InventoryDatabase, caller: Caller, id: number) {
  const db = database.db;
  await findResource(database, consumables, id, undefined, caller);
  const rows = await db
    .selectFrom("consumables_users")
    .selectAll()
    .where("consumable_id", "=", id)
    .orderBy("id")
    .execute();
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

/** Component check-out validation failures, which Snipe-IT answers in the payload slot (§2.3). */
export class ComponentCheckoutInvalid extends Error {
  readonly details: Record<string, string[]>;
  constructor(details: Record<string, string[]>) {
    super("The given data was invalid.");
    this.details = details;
  }
}

export async function checkoutComponent(
  actor: Actor,
  id: number,
  input: Record<string, unknown>,
): Promise<void> {
  const { database, caller, origin } = actor;
  await database.db.transaction().execute(async (trx) => {
    const component = await lockItem(trx, database.dialect, "components", id);
    if (!component || !visibleTo(caller, "components", component))
      throw new NotFound("Component does not exist.");
    const values = await validate(trx, input, {
      assigned_to: "required|integer|exists:assets",
      assigned_qty: "required|integer|min:1",
      note: "nullable|string|max:65535",
    }).catch((error) => {
      throw error instanceof Invalid ? new ComponentCheckoutInvalid(error.details) : error;
    });
    const asked = values.assigned_qty as number;
    const assetId = values.assigned_to as number;
    // `exists:assets` found the asset; only a company may still hide it from the caller.
    if (!(await rowVisibleTo(trx, caller, "assets", assetId)))
      throw new ComponentCheckoutInvalid({ assigned_to: ["The selected assigned to is invalid."] });
    const installed = await trx
      .selectFrom("components_assets")
      .select((eb) => eb.fn.sum<number | string | null>("assigned_qty").as("held"))
      .where("component_id", "=", id)
      .executeTakeFirst();
    const remaining = Number(component.qty) - Number(installed?.held ?? 0);
    if (asked > remaining)
      throw new Conflict(`Not enough components remaining: ${remaining} remaining, ${asked} requested `);
    const now = storedNow(database.dialect);
    const note = (values.note as string | null | undefined) ?? null;
    await trx
      .insertInto("components_assets")
      .values({
        component_id: id,
        asset_id: assetId,
        assigned_qty: asked,
        note,
        created_by: caller.user.id,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await logAction(trx, database.dialect, {
      createdBy: caller.user.id,
      actionType: "checkout",
      item: { type: "component", id },
      target: { type: "asset", id: assetId },
      note,
      origin,
    });
    await queueNotifications(
      { ...actor, trx: trx as AnyKysely },
      {
        action: "checkout",
        item: { type: "component", id },
        target: { type: "asset", id: assetId },
        note,
        quantity: asked,
      },
    );
  });
}

/** Takes `checkin_qty` units back from one check-out row; the row goes when nothing is left in it. */
export async function checkinComponent(
  actor: Actor,
  pivotId: number,
  input: Record<string, unknown>,
): Promise<void> {
  const { database, caller, origin } = actor;
  await database.db.transaction().execute(async (trx) => {
    const row = Number.isSafeInteger(pivotId)
      ? await trx
          .selectFrom("components_assets")
          .selectAll()
          .where("id", "=", pivotId)
          .$call(forUpdate(database.dialect))
          .executeTakeFirst()
      : undefined;
    if (!row || !(await rowVisibleTo(trx, caller, "components", Number(row.component_id))))
      throw new NotFound("No matching checkouts for that component join record");
    const held = Number(row.assigned_qty);
    const raw = input.checkin_qty;
    const asked = typeof raw === "string" && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
    if (typeof asked !== "number" || !Number.isInteger(asked) || asked < 1 || asked > held)
      throw new Invalid(`Checkin quantity must be between 1 and ${held}`);
    if (asked === held) await trx.deleteFrom("components_assets").where("id", "=", pivotId).execute();
    else
      await trx
        .updateTable("components_assets")
        .set({ assigned_qty: held - asked, updated_at: storedNow(database.dialect) })
        .where("id", "=", pivotId)
        .execute();
    const note = typeof input.note === "string" && input.note !== "" ? input.note : null;
    await logAction(trx, database.dialect, {
      createdBy: caller.user.id,
      actionType: "checkin from",
      item: { type: "component", id: Number(row.component_id) },
      target: { type: "asset", id: Number(row.asset_id) },
      note,
      origin,
    });
    await queueNotifications(
      { ...actor, trx: trx as AnyKysely },
      {
        action: "checkin",
        item: { type: "component", id: Number(row.component_id) },
        target: { type: "asset", id: Number(row.asset_id) },
        note,
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
  const select = db.selectFrom("components_assets").where("component_id", "=", id);
  const total = Number(
    (await select.select((eb) => eb.fn.countAll<number>().as("count")).executeTakeFirstOrThrow()).count,
  );
  const rows = await select.selectAll().orderBy("id").limit(limit).offset(offset).execute();
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
