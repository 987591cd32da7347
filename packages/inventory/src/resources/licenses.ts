import { Conflict, Invalid } from "@anvil/core";
import { bool, date, datetime, escaped, money, related } from "../convert/format.ts";
import {
  addSeats,
  anySeatHeld,
  deleteSeats,
  freeSeatCount,
  seatsNewestFirst,
} from "../repositories/license-seats.ts";
import type { AnySelect } from "../repositories/records.ts";
import { type Executor, storedNow } from "../services/database.ts";
import { recordAction } from "../services/notifications.ts";
import { can } from "../services/permissions.ts";
import type { ResourceDefinition, WriteContext } from "../services/resource.ts";
import { actions, CREATED_BY, recordFields } from "./common.ts";
import { lockItem } from "./stock.ts";

export const LICENSE_IN_USE =
  "This license is currently checked out to a user and cannot be deleted. Please check the license in first, and then try deleting again. ";
const HIDDEN_KEY = "------------";
/** Who may read a product key (the `serial` column), and so find or order licenses by it. */
const KEYS_PERMISSION = "licenses.keys";

/**
 * Makes the license have `wanted` seat rows: adds free seats, or removes free ones (the newest
 * first). Runs after the license row's update, which holds its lock, so no seat is checked out
 * meanwhile; refuses to remove seats someone holds.
 */
async function matchSeats(context: WriteContext, licenseId: number, wanted: number): Promise<void> {
  const { trx } = context;
  const seats = await seatsNewestFirst(trx, licenseId);
  if (wanted > seats.length) {
    const added = wanted - seats.length;
    await addSeats(trx, {
      licenseId,
      count: added,
      createdBy: context.caller.user.id,
      now: storedNow(context.database.dialect),
    });
    await logSeats(context, licenseId, "add seats", `added ${added} seats`);
  } else if (wanted < seats.length) {
    const free = seats.filter((seat) => seat.assigned_to === null && seat.asset_id === null);
    const removed = seats.length - wanted;
    if (free.length < removed)
      throw new Invalid("The given data was invalid.", {
        seats: [
          `The seats field must be at least ${seats.length - free.length}: that many seats are checked out. Check some in first.`,
        ],
      });
    await deleteSeats(
      trx,
      free.slice(0, removed).map((seat) => Number(seat.id)),
    );
    await logSeats(context, licenseId, "delete seats", `deleted ${removed} seats`);
  }
}

async function logSeats(context: WriteContext, licenseId: number, actionType: string, note: string) {
  await recordAction(context, { actionType, item: { type: "license", id: licenseId }, note });
}

const COLUMNS = [
  "name",
  "seats",
  "category_id",
  "serial",
  "license_name",
  "license_email",
  "company_id",
  "manufacturer_id",
  "supplier_id",
  "depreciation_id",
  "purchase_cost",
  "purchase_date",
  "expiration_date",
  "termination_date",
  "order_number",
  "purchase_order",
  "reassignable",
  "maintained",
  "min_amt",
  "notes",
];

/** Licenses (spec §18): `seats` seat rows each, checked out through the seat routes. */
export const licenses: ResourceDefinition = {
  table: "licenses",
  path: "licenses",
  permission: "licenses",
  itemType: "license",
  notFound: "License not found",
  messages: {
    create: "License created successfully.",
    update: "License updated successfully.",
    delete: "License deleted successfully.",
  },
  rules: {
    name: "required|string|min:3|max:255",
    seats: "required|integer|min:1|max:10000",
    category_id: "required|integer|exists:categories",
    serial: "nullable|string|max:2048",
    license_name: "nullable|string|max:100",
    license_email: "nullable|email|max:120",
    company_id: "nullable|integer|exists:companies",
    manufacturer_id: "nullable|integer|exists:manufacturers",
    supplier_id: "nullable|integer|exists:suppliers",
    depreciation_id: "nullable|integer|exists:depreciations",
    purchase_cost: "nullable|numeric|min:0",
    purchase_date: "nullable|date",
    expiration_date: "nullable|date",
    termination_date: "nullable|date",
    order_number: "nullable|string|max:255",
    purchase_order: "nullable|string|max:255",
    reassignable: "boolean",
    maintained: "boolean",
    min_amt: "nullable|integer|min:0",
    notes: "nullable|string|max:65535",
  },
  columns: COLUMNS,
  // The serial is the product key, for `licenses.keys` holders only: the log never holds it.
  logged: COLUMNS.filter((column) => column !== "serial"),
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: [
      "id",
      "name",
      "seats",
      "serial",
      "purchase_cost",
      "purchase_date",
      "expiration_date",
      "termination_date",
      "order_number",
      "purchase_order",
      "license_name",
      "license_email",
      "notes",
      "reassignable",
      "maintained",
      "created_at",
      "updated_at",
      "deleted_at",
      "company",
      "category",
      "depreciation",
      "supplier",
      "manufacturer",
    ],
    defaultSort: "created_at",
    search: ["name", "serial", "order_number", "purchase_order", "license_name", "license_email", "notes"],
    filters: {
      company_id: "id",
      name: "text",
      order_number: "text",
      purchase_order: "text",
      license_name: "text",
      license_email: "text",
      manufacturer_id: "id",
      supplier_id: "id",
      category_id: "id",
      depreciation_id: "id",
      created_by: "id",
      maintained: "bool",
    },
    trashed: (query) => (query.deleted === "true" ? "only" : "without"),
    secret: { columns: ["serial"], permission: KEYS_PERMISSION },
    refine: (select: AnySelect, query, caller) => {
      let refined = select;
      const key = query.product_key;
      if (typeof key === "string" && key !== "" && can(caller, KEYS_PERMISSION))
        refined = refined.where("licenses.serial", "=", key);
      if (query.expires === "true") refined = refined.where("licenses.expiration_date", "is not", null);
      if (query.expires === "false") refined = refined.where("licenses.expiration_date", "is", null);
      return refined;
    },
  },
  relations: {
    ...CREATED_BY,
    company: { table: "companies", column: "company_id" },
    category: { table: "categories", column: "category_id" },
    manufacturer: { table: "manufacturers", column: "manufacturer_id" },
    supplier: { table: "suppliers", column: "supplier_id" },
    depreciation: { table: "depreciations", column: "depreciation_id" },
  },
  counts: [],
  prepare: async (_context, values, before) => {
    const depreciation =
      values.depreciation_id !== undefined ? values.depreciation_id : before?.depreciation_id;
    const bought = values.purchase_date !== undefined ? values.purchase_date : before?.purchase_date;
    if (depreciation !== null && depreciation !== undefined && (bought === null || bought === undefined))
      throw new Invalid("The given data was invalid.", {
        purchase_date: ["The purchase date field is required when depreciation id is present."],
      });
    return {};
  },
  afterSave: async (context, row, values) => {
    if (typeof values.seats === "number") await matchSeats(context, row.id, values.seats);
  },
  checkDelete: async (context, row) => {
    await lockItem(context.trx, context.database.dialect, "licenses", row.id);
    if (await anySeatHeld(context.trx, row.id)) throw new Conflict(LICENSE_IN_USE);
  },
  present: async (row, context) => {
    const free = await freeSeatCount(context.db as Executor, row.id);
    const deleted = row.deleted_at !== null;
    const may = actions(context, "licenses", { clone: "create" });
    const of = (name: string, column: string) => related(row[column] as number | null, context.names[name]);
    const cost = row.purchase_cost === null ? null : Number(row.purchase_cost);
    return {
      id: row.id,
      name: escaped(row.name as string),
      company: of("company", "company_id"),
      manufacturer: of("manufacturer", "manufacturer_id"),
      product_key: can(context.caller, KEYS_PERMISSION) ? escaped(row.serial as string | null) : HIDDEN_KEY,
      order_number: escaped(row.order_number as string | null),
      purchase_order: escaped(row.purchase_order as string | null),
      purchase_date: date(row.purchase_date as string | null),
      termination_date: date(row.termination_date as string | null),
      depreciation: of("depreciation", "depreciation_id"),
      purchase_cost: money(cost),
      purchase_cost_numeric: cost,
      notes: escaped(row.notes as string | null),
      expiration_date: date(row.expiration_date as string | null),
      seats: Number(row.seats),
      free_seats_count: free,
      remaining: free,
      min_amt: row.min_amt === null ? null : Number(row.min_amt),
      license_name: escaped(row.license_name as string | null),
      license_email: escaped(row.license_email as string | null),
      reassignable: bool(row.reassignable as number),
      maintained: bool(row.maintained as number),
      supplier: of("supplier", "supplier_id"),
      category: of("category", "category_id"),
      ...recordFields(row, context),
      deleted_at: datetime(row.deleted_at as string | null),
      user_can_checkout: !deleted && free > 0,
      available_actions: {
        checkout: can(context.caller, "licenses.checkout") && !deleted && free > 0,
        checkin: can(context.caller, "licenses.checkout"),
        clone: may.clone,
        update: may.update && !deleted,
        delete: may.delete && !deleted && free === Number(row.seats),
      },
    };
  },
};
