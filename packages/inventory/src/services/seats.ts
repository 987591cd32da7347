import { type AnyKysely, Conflict, Invalid, NotFound } from "@anvil/core";
import { bool, datetime, escaped, related } from "../convert/format.ts";
import {
  claimSeat,
  firstFreeSeat,
  liveLicenseRow,
  lockAssetSeats,
  type SeatRow,
  seatRow,
  seatsPage,
  updateSeatRow,
  vacateSeats,
} from "../repositories/license-seats.ts";
import { namesOf } from "../repositories/records.ts";
import { lockItem } from "../resources/stock.ts";
import type { RequestOrigin } from "./activity.ts";
import { visibleTo } from "./companies.ts";
import { type Executor, type InventoryDatabase, storedNow } from "./database.ts";
import { assetsById, fullName, holderExists, locationsById, usersById } from "./holders.ts";
import { listParams } from "./listing.ts";
import { recordAction } from "./notifications.ts";
import { type Caller, can } from "./permissions.ts";
import type { WriteContext } from "./resource.ts";
import { validate } from "./validation.ts";

// License seats (spec §18): listed, shown, and checked out or in by PATCH. Every change to a seat
// first locks its license's row, as seat-count changes and deletes do, so they take turns.

interface Actor {
  database: InventoryDatabase;
  caller: Caller;
  origin: RequestOrigin;
}

const NO_LICENSE = "License not found";
const NO_FREE_SEAT = "Not enough license seats available for checkout";
const SEAT_RULES = {
  assigned_to: "nullable|integer",
  asset_id: "nullable|integer",
  notes: "nullable|string|max:65535",
  note: "nullable|string|max:65535",
};

async function liveLicense(db: Executor, caller: Caller, id: number) {
  const license = Number.isSafeInteger(id) ? await liveLicenseRow(db, id) : undefined;
  if (!license || !visibleTo(caller, "licenses", license)) throw new NotFound(NO_LICENSE);
  return license;
}

async function seatOf(db: Executor, licenseId: number, seatId: number): Promise<SeatRow> {
  const seat = Number.isSafeInteger(seatId) ? await seatRow(db, seatId) : undefined;
  if (!seat) throw new NotFound("Seat not found");
  if (Number(seat.license_id) !== licenseId)
    throw new Invalid("Seat does not belong to the specified license");
  return seat;
}

/** The seat objects of seats of one license. */
async function presentSeats(db: Executor, caller: Caller, reassignable: boolean, seats: SeatRow[]) {
  const users = await usersById(
    db,
    seats.flatMap((seat) => (seat.assigned_to === null ? [] : [Number(seat.assigned_to)])),
  );
  const assets = await assetsById(
    db,
    seats.flatMap((seat) => (seat.asset_id === null ? [] : [Number(seat.asset_id)])),
  );
  const departments = await namesOf(
    db,
    "departments",
    [...users.values()].map((user) => user.department_id),
  );
  const locations = await locationsById(
    db,
    [
      ...[...users.values()].map((user) => user.location_id),
      ...[...assets.values()].map((asset) => asset.location_id),
    ]
      .filter((id) => id !== null)
      .map(Number),
  );
  const mayCheckout = can(caller, "licenses.checkout");
  const may = (level: string) => can(caller, `licenses.${level}`);
  return seats.map((seat) => {
    const user = seat.assigned_to === null ? undefined : users.get(Number(seat.assigned_to));
    const asset = seat.asset_id === null ? undefined : assets.get(Number(seat.asset_id));
    const locationId = user?.location_id ?? asset?.location_id ?? null;
    const location = locationId === null ? undefined : locations.get(Number(locationId));
    const free = seat.assigned_to === null && seat.asset_id === null;
    return {
      id: Number(seat.id),
      license_id: Number(seat.license_id),
      updated_at: datetime(seat.updated_at),
      assigned_user: user
        ? {
            id: Number(user.id),
            name: fullName(user),
            email: escaped(user.email),
            department: related(user.department_id, departments),
            created_at: datetime(user.created_at),
          }
        : null,
      assigned_asset: asset
        ? { id: Number(asset.id), name: escaped(asset.name), created_at: datetime(asset.created_at) }
        : null,
      location: location
        ? { id: Number(location.id), name: escaped(location.name), created_at: datetime(location.created_at) }
        : null,
      reassignable,
      notes: escaped(seat.notes),
      user_can_checkout: free,
      available_actions: {
        checkout: mayCheckout && free,
        checkin: mayCheckout && !free,
        clone: may("create"),
        update: may("edit"),
        delete: may("delete"),
      },
    };
  });
}

export async function listSeats(
  database: InventoryDatabase,
  caller: Caller,
  licenseId: number,
  query: Record<string, unknown>,
) {
  const db = database.db;
  const license = await liveLicense(db, caller, licenseId);
  const params = listParams(query, { allowed: ["department"], default: "updated_at" });
  const { total, offset, seats } = await seatsPage(db, licenseId, {
    sort: params.sort === "department" ? "department" : "updated_at",
    order: params.order,
    limit: params.limit,
    offset: params.offset,
  });
  return {
    total,
    rows: await presentSeats(db, caller, bool(license.reassignable), seats),
    params: { ...params, offset },
  };
}

export async function showSeat(
  database: InventoryDatabase,
  caller: Caller,
  licenseId: number,
  seatId: number,
) {
  const license = await liveLicense(database.db, caller, licenseId);
  const seat = await seatOf(database.db, licenseId, seatId);
  return (await presentSeats(database.db, caller, bool(license.reassignable), [seat]))[0];
}

/** The seat's new holder; "Target not found" when a given id names nobody. */
async function checkTargets(db: Executor, caller: Caller, values: Record<string, unknown>) {
  for (const [field, type] of [
    ["assigned_to", "user"],
    ["asset_id", "asset"],
  ] as const) {
    const id = values[field];
    if (typeof id === "number" && !(await holderExists(db, caller, type, id)))
      throw new NotFound("Target not found");
  }
}

async function logSeatChange(
  trx: Executor,
  actor: Actor,
  licenseId: number,
  before: SeatRow,
  after: { assigned_to: number | null; asset_id: number | null },
  note: string | null,
) {
  const checkin = after.assigned_to === null && after.asset_id === null;
  const holder = checkin ? before : after;
  await recordAction(
    { ...actor, trx: trx as AnyKysely },
    {
      actionType: checkin ? "checkin from" : "checkout",
      item: { type: "license", id: licenseId },
      target:
        holder.asset_id !== null
          ? { type: "asset", id: Number(holder.asset_id) }
          : { type: "user", id: Number(holder.assigned_to) },
      note,
    },
  );
}

/**
 * PATCH /licenses/{id}/seats/{seat}: check out (assigned_to / asset_id), check in (both null) or
 * edit the notes. QUIRK (spec §18): a held seat is silently re-assigned, unless `strict` asks to refuse.
 */
export async function updateSeat(
  actor: Actor,
  licenseId: number,
  seatId: number,
  input: Record<string, unknown>,
  strict: boolean,
): Promise<SeatRow> {
  const { database } = actor;
  return database.db.transaction().execute(async (trx) => {
    const license = await lockItem(trx, database.dialect, "licenses", licenseId);
    if (!license || !visibleTo(actor.caller, "licenses", license)) throw new NotFound(NO_LICENSE);
    const seat = await seatOf(trx, licenseId, seatId);
    const values = await validate(trx, input, SEAT_RULES);
    await checkTargets(trx, actor.caller, values);
    const after = {
      assigned_to: "assigned_to" in values ? (values.assigned_to as number | null) : seat.assigned_to,
      asset_id: "asset_id" in values ? (values.asset_id as number | null) : seat.asset_id,
    };
    const held = seat.assigned_to !== null || seat.asset_id !== null;
    const changed =
      after.assigned_to !== (seat.assigned_to === null ? null : Number(seat.assigned_to)) ||
      after.asset_id !== (seat.asset_id === null ? null : Number(seat.asset_id));
    const checkout = after.assigned_to !== null || after.asset_id !== null;
    if (strict && changed && held && checkout) throw new Conflict("This seat is not available for checkout.");
    const notes = "notes" in values ? (values.notes as string | null) : seat.notes;
    const updated = await updateSeatRow(trx, Number(seat.id), {
      ...after,
      notes,
      updated_at: storedNow(database.dialect),
    });
    if (changed) await logSeatChange(trx, actor, licenseId, seat, after, notes);
    return updated;
  });
}

/** The refusal of a seat check-out that names neither a user nor an asset. */
export const SEAT_HOLDER_REQUIRED = "The assigned to field is required when asset id is not present.";

/** Our addition (spec §26): checks out the license's first free seat; each seat goes once. */
export async function checkoutLicense(
  actor: Actor,
  licenseId: number,
  input: Record<string, unknown>,
): Promise<SeatRow> {
  return actor.database.db
    .transaction()
    .execute((trx) => checkoutLicenseWithin({ ...actor, trx: trx as AnyKysely }, licenseId, input));
}

/** A free seat's check-out inside the caller's transaction (a kit's check-out holds several). */
export async function checkoutLicenseWithin(
  context: WriteContext,
  licenseId: number,
  input: Record<string, unknown>,
): Promise<SeatRow> {
  const { database, trx } = context;
  const license = await lockItem(trx, database.dialect, "licenses", licenseId);
  if (!license || !visibleTo(context.caller, "licenses", license)) throw new NotFound(NO_LICENSE);
  const values = await validate(trx, input, SEAT_RULES);
  if (typeof values.assigned_to !== "number" && typeof values.asset_id !== "number")
    throw new Invalid("The given data was invalid.", {
      assigned_to: [SEAT_HOLDER_REQUIRED],
    });
  await checkTargets(trx, context.caller, values);
  const seat = await firstFreeSeat(trx, licenseId);
  if (!seat) throw new Conflict(NO_FREE_SEAT);
  const after = {
    assigned_to: (values.assigned_to as number | null | undefined) ?? null,
    asset_id: (values.asset_id as number | null | undefined) ?? null,
  };
  const note =
    (values.note as string | null | undefined) ?? (values.notes as string | null | undefined) ?? null;
  if (
    !(await claimSeat(trx, Number(seat.id), {
      ...after,
      notes: note,
      updated_at: storedNow(database.dialect),
    }))
  )
    throw new Conflict(NO_FREE_SEAT);
  await logSeatChange(trx, context, licenseId, seat, after, note);
  return (await seatRow(trx, Number(seat.id))) as SeatRow;
}

/**
 * Frees the license seats an asset holds, inside its check-in or delete. "user": the users given
 * seats through the asset lose them and the asset keeps them (spec §7.6: a check-in releases the
 * asset's user-assigned seats); "all": the asset gives its seats up too (a deleted asset uses no
 * license). Each freed seat is logged as checked in from whoever lost it.
 */
export async function releaseAssetSeats(
  context: WriteContext,
  assetId: number,
  which: "user" | "all",
): Promise<void> {
  const { trx, database } = context;
  const held = await lockAssetSeats(trx, database.dialect, assetId, which);
  if (held.length === 0) return;
  await vacateSeats(
    trx,
    held.map((seat) => Number(seat.id)),
    which,
    storedNow(database.dialect),
  );
  for (const seat of held)
    await recordAction(context, {
      actionType: "checkin from",
      item: { type: "license", id: Number(seat.license_id) },
      // Whoever lost the seat: its user on a check-in, the asset on a delete.
      target:
        which === "user" ? { type: "user", id: Number(seat.assigned_to) } : { type: "asset", id: assetId },
    });
}
