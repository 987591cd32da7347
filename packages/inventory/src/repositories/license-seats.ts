import { claimed, type DialectName, forUpdate } from "@anvil/core";
import { sql } from "kysely";
import type { Executor } from "../services/database.ts";

// License seats (spec §18) and the license rows they belong to; services/seats.ts holds the rules.

type Time = string | Date;

export type SeatRow = {
  id: number;
  license_id: number;
  assigned_to: number | null;
  asset_id: number | null;
  notes: string | null;
  created_by: number | null;
  created_at: Time;
  updated_at: Time;
};

export interface SeatHolder {
  assigned_to: number | null;
  asset_id: number | null;
}

/** An undeleted license's id, reassignable flag and company. */
export async function liveLicenseRow(db: Executor, id: number) {
  return db
    .selectFrom("licenses")
    .select(["id", "reassignable", "company_id"])
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export async function seatRow(db: Executor, seatId: number): Promise<SeatRow | undefined> {
  return (await db.selectFrom("license_seats").selectAll().where("id", "=", seatId).executeTakeFirst()) as
    | SeatRow
    | undefined;
}

/** A page of a license's seats, by update time or by their user's department, and their count. */
export async function seatsPage(
  db: Executor,
  licenseId: number,
  page: { sort: "department" | "updated_at"; order: "asc" | "desc"; limit: number; offset: number },
) {
  const base = db.selectFrom("license_seats").where("license_seats.license_id", "=", licenseId);
  const total = Number(
    (await base.select((eb) => eb.fn.countAll<number>().as("count")).executeTakeFirstOrThrow()).count,
  );
  // QUIRK (spec §4): an offset at or past the end starts over at the first page.
  const offset = page.offset >= total ? 0 : page.offset;
  const order =
    page.sort === "department"
      ? sql`(select departments.name from users join departments on departments.id = users.department_id where users.id = license_seats.assigned_to)`
      : sql.ref("license_seats.updated_at");
  const seats = (await base
    .selectAll("license_seats")
    .orderBy(order, page.order)
    .orderBy("license_seats.id", "asc")
    .limit(page.limit)
    .offset(offset)
    .execute()) as SeatRow[];
  return { total, offset, seats };
}

export async function updateSeatRow(
  db: Executor,
  seatId: number,
  changes: SeatHolder & { notes: string | null; updated_at: Time },
): Promise<SeatRow> {
  return (await db
    .updateTable("license_seats")
    .set(changes)
    .where("id", "=", seatId)
    .returningAll()
    .executeTakeFirstOrThrow()) as SeatRow;
}

export async function firstFreeSeat(db: Executor, licenseId: number): Promise<SeatRow | undefined> {
  return (await db
    .selectFrom("license_seats")
    .selectAll()
    .where("license_id", "=", licenseId)
    .where("assigned_to", "is", null)
    .where("asset_id", "is", null)
    .orderBy("id")
    .executeTakeFirst()) as SeatRow | undefined;
}

/** Gives the seat to its holder if it is still free; whether this statement won it. */
export async function claimSeat(
  db: Executor,
  seatId: number,
  changes: SeatHolder & { notes: string | null; updated_at: Time },
): Promise<boolean> {
  const result = await db
    .updateTable("license_seats")
    .set(changes)
    .where("id", "=", seatId)
    .where("assigned_to", "is", null)
    .where("asset_id", "is", null)
    .executeTakeFirstOrThrow();
  return claimed(result);
}

/** The seats an asset holds (only those given to a user through it, for "user"), locked. */
export async function lockAssetSeats(
  db: Executor,
  dialect: DialectName,
  assetId: number,
  which: "user" | "all",
) {
  return db
    .selectFrom("license_seats")
    .select(["id", "license_id", "assigned_to"])
    .where("asset_id", "=", assetId)
    .$if(which === "user", (q) => q.where("assigned_to", "is not", null))
    .orderBy("id")
    .$call(forUpdate(dialect))
    .execute();
}

/** Empties the seats: of their users, and of their asset too for "all". */
export async function vacateSeats(
  db: Executor,
  seatIds: readonly number[],
  which: "user" | "all",
  now: Time,
) {
  await db
    .updateTable("license_seats")
    .set({ assigned_to: null, ...(which === "all" ? { asset_id: null } : {}), updated_at: now })
    .where("id", "in", seatIds)
    .execute();
}

/** The seats of a license held by nobody. */
export async function freeSeatCount(db: Executor, licenseId: number): Promise<number> {
  const row = await db
    .selectFrom("license_seats")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("license_id", "=", licenseId)
    .where("assigned_to", "is", null)
    .where("asset_id", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** All of a license's seats, newest first. */
export async function seatsNewestFirst(db: Executor, licenseId: number) {
  return db
    .selectFrom("license_seats")
    .select(["id", "assigned_to", "asset_id"])
    .where("license_id", "=", licenseId)
    .orderBy("id", "desc")
    .execute();
}

/** Rows inserted or deleted per statement: a seat count of any size never makes one statement without bound. */
const SEAT_BATCH = 500;

export async function addSeats(
  db: Executor,
  seats: { licenseId: number; count: number; createdBy: number; now: Time },
): Promise<void> {
  for (let done = 0; done < seats.count; done += SEAT_BATCH)
    await db
      .insertInto("license_seats")
      .values(
        Array.from({ length: Math.min(SEAT_BATCH, seats.count - done) }, () => ({
          license_id: seats.licenseId,
          created_by: seats.createdBy,
          created_at: seats.now,
          updated_at: seats.now,
        })),
      )
      .execute();
}

export async function deleteSeats(db: Executor, seatIds: readonly number[]): Promise<void> {
  for (let done = 0; done < seatIds.length; done += SEAT_BATCH)
    await db
      .deleteFrom("license_seats")
      .where("id", "in", seatIds.slice(done, done + SEAT_BATCH))
      .execute();
}

/** Whether anyone or any asset holds a seat of the license. */
export async function anySeatHeld(db: Executor, licenseId: number): Promise<boolean> {
  const held = await db
    .selectFrom("license_seats")
    .select("id")
    .where("license_id", "=", licenseId)
    .where((eb) => eb.or([eb("assigned_to", "is not", null), eb("asset_id", "is not", null)]))
    .executeTakeFirst();
  return held !== undefined;
}
