import type { AnyKysely } from "@anvil/core";
import { datetime, escaped, related } from "../convert/format.ts";
import {
  aboutThing,
  entryAuthors,
  type LoggedThing,
  listLogEntries,
  madeBetween,
  ofItemType,
} from "../repositories/action-logs.ts";
import { namesOf, type Row, serialsOf } from "../repositories/records.ts";
import { actionLabel, entriesInCallersCompany, ITEM_TABLES } from "./activity.ts";
import type { InventoryDatabase } from "./database.ts";
import { listParams, MAX_RESULTS } from "./listing.ts";
import type { Caller } from "./permissions.ts";
import { dayOf, validate } from "./validation.ts";

// Reading the activity log: the report (GET /reports/activity, spec §22) and an asset's history
// (GET /hardware/{id}/history), newest first, each entry as the report shows it.

const SORTS = [
  "id",
  "created_at",
  "target_id",
  "created_by",
  "action_type",
  "note",
  "remote_ip",
  "user_agent",
  "target_type",
  "item_type",
  "action_source",
  "action_date",
];
const EXACT = ["action_type", "created_by", "action_source", "remote_ip"];
const REPORT_SEARCH = [
  "action_type",
  "note",
  "item_type",
  "target_type",
  "remote_ip",
  "user_agent",
  "log_meta",
];

/** Entries from and until these days, inclusive (our addition, spec §26: the web report's period). */
const PERIOD_RULES = { start_date: "nullable|date", end_date: "nullable|date" };

/** The `YYYY-MM-DD` day after a valid day. */
function dayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/**
 * The period a query asks for: `start_date` and `end_date` as days, either optional; a text that
 * is no date is refused with the validation's message (422), not read as no period.
 */
async function periodOf(database: InventoryDatabase, query: Record<string, unknown>) {
  const given = (field: string) => (query[field] === "" ? undefined : query[field]);
  const values = await validate(
    database.db as AnyKysely,
    {
      start_date: given("start_date"),
      end_date: given("end_date"),
    },
    PERIOD_RULES,
  );
  const day = (value: unknown) => (typeof value === "string" ? dayOf(value) : undefined);
  const until = day(values.end_date);
  return { from: day(values.start_date), until: until && dayAfter(until) };
}

/** The report's page the query asks for, of the entries the caller may read. */
export async function activityReport(
  database: InventoryDatabase,
  caller: Caller,
  query: Record<string, unknown>,
) {
  const params = listParams(query, { allowed: SORTS, default: "created_at" });
  const period = await periodOf(database, query);
  const filters: Record<string, unknown> = {};
  for (const column of EXACT)
    if (typeof query[column] === "string" && query[column] !== "") filters[column] = query[column];
  const createdBy = filters.created_by;
  if (createdBy !== undefined) filters.created_by = /^\d+$/.test(String(createdBy)) ? Number(createdBy) : 0;
  // A type and id name the thing on either side of the entry.
  const things: LoggedThing[] = [];
  for (const side of ["item", "target"] as const) {
    const type = query[`${side}_type`];
    const id = query[`${side}_id`];
    if (typeof type === "string" && typeof id === "string" && /^\d+$/.test(id))
      things.push({ type, id: Number(id) });
  }
  // An item type without an id (our addition): every entry about an item of that type.
  const itemType = query.item_type;
  const ofType =
    typeof itemType === "string" && itemType !== "" && (query.item_id === undefined || query.item_id === "")
      ? itemType
      : undefined;
  const db = database.db as AnyKysely;
  const page = await listLogEntries(
    db,
    database.dialect,
    {
      searchColumns: REPORT_SEARCH,
      filters,
      refine: (select) => {
        const about = things.reduce(aboutThing, madeBetween(select, period.from, period.until));
        return entriesInCallersCompany(ofType === undefined ? about : ofItemType(about, ofType), caller);
      },
    },
    params,
  );
  return { params, total: page.total, rows: await presentActivity(db, page.rows) };
}

/** The most entries one download of the report holds: the whole log of a large site would take minutes. */
export const MAX_EXPORTED_ENTRIES = 10_000;

/**
 * Every entry of the report the query asks for (its filters, search and order, not its page), read
 * a page at a time so that a download streams, and at most MAX_EXPORTED_ENTRIES of them.
 */
export async function* activityReportEntries(
  database: InventoryDatabase,
  caller: Caller,
  query: Record<string, unknown>,
) {
  let offset = 0;
  while (offset < MAX_EXPORTED_ENTRIES) {
    const limit = Math.min(MAX_RESULTS, MAX_EXPORTED_ENTRIES - offset);
    const page = await activityReport(database, caller, {
      ...query,
      offset: String(offset),
      limit: String(limit),
    });
    yield* page.rows;
    offset += page.rows.length;
    if (page.rows.length < limit) return;
  }
}

/** The page of the asset's history the query asks for: the entries about it, on either side. */
export async function assetHistory(
  database: InventoryDatabase,
  assetId: number,
  query: Record<string, unknown>,
) {
  const params = listParams(query, { allowed: ["id", "created_at"], default: "created_at" });
  const db = database.db as AnyKysely;
  const page = await listLogEntries(
    db,
    database.dialect,
    {
      searchColumns: ["action_type", "note"],
      filters: {},
      refine: (select) => aboutThing(select, { type: "asset", id: assetId }),
    },
    params,
  );
  return { params, total: page.total, rows: await presentActivity(db, page.rows) };
}

type Names = Map<string, Map<number, string>>;

/** Names of the items and targets of the rows, by type then id. */
async function namesByType(db: AnyKysely, rows: Row[]): Promise<Names> {
  const wanted = new Map<string, unknown[]>();
  for (const row of rows)
    for (const [type, id] of [
      [row.item_type, row.item_id],
      [row.target_type, row.target_id],
    ]) {
      if (typeof type === "string" && ITEM_TABLES[type]) wanted.set(type, [...(wanted.get(type) ?? []), id]);
    }
  const names: Names = new Map();
  await Promise.all(
    [...wanted].map(async ([type, ids]) => names.set(type, await namesOf(db, ITEM_TABLES[type], ids))),
  );
  return names;
}

function thing(names: Names, type: unknown, id: unknown) {
  if (typeof type !== "string" || id === null) return null;
  return { id: Number(id), name: escaped(names.get(type)?.get(Number(id)) ?? null), type };
}

/**
 * Item types whose serial the report shows (spec §22). A license's serial is its product key,
 * which only `licenses.keys` may read, so the report leaves it out.
 */
const SERIALS: Readonly<Record<string, string>> = { asset: "assets", component: "components" };

/** The serials of the rows' items, by type then id. */
async function serialsByType(db: AnyKysely, rows: Row[]): Promise<Names> {
  const serials: Names = new Map();
  await Promise.all(
    Object.entries(SERIALS).map(async ([type, table]) => {
      const ids = [
        ...new Set(rows.filter((row) => row.item_type === type).map((row) => Number(row.item_id))),
      ];
      serials.set(type, await serialsOf(db, table, ids));
    }),
  );
  return serials;
}

/** The entry's item, with its serial (null for items without one). */
function itemOf(names: Names, serials: Names, row: Row) {
  const item = thing(names, row.item_type, row.item_id);
  if (!item) return null;
  return { ...item, serial: escaped(serials.get(item.type)?.get(item.id) ?? null) };
}

/** Log entries as the report shows them (spec §22). */
async function presentActivity(db: AnyKysely, rows: Row[]) {
  const [names, serials, locations] = await Promise.all([
    namesByType(db, rows),
    serialsByType(db, rows),
    namesOf(
      db,
      "locations",
      rows.map((row) => row.location_id),
    ),
  ]);
  const admins = await entryAuthors(
    db,
    rows.map((row) => Number(row.created_by ?? 0)),
  );
  const adminOf = new Map(admins.map((user) => [Number(user.id), user]));
  return rows.map((row) => {
    const admin = adminOf.get(Number(row.created_by));
    const actor = admin
      ? {
          id: Number(admin.id),
          name: escaped(`${admin.first_name} ${admin.last_name ?? ""}`.trim()),
          first_name: escaped(admin.first_name),
          last_name: escaped(admin.last_name),
        }
      : null;
    return {
      id: row.id,
      icon: null,
      file: null,
      item: itemOf(names, serials, row),
      location: related(row.location_id as number | null, locations),
      created_at: datetime(row.created_at as string),
      updated_at: datetime(row.updated_at as string),
      next_audit_date: null,
      days_to_next_audit: null,
      action_type: actionLabel(String(row.action_type)),
      admin: actor,
      created_by: actor,
      target: thing(names, row.target_type, row.target_id),
      note: escaped(row.note as string | null),
      signature_file: null,
      log_meta: row.log_meta === null ? null : JSON.parse(String(row.log_meta)),
      remote_ip: row.remote_ip,
      user_agent: escaped(row.user_agent as string | null),
      action_source: row.action_source,
      action_date: datetime(row.action_date as string),
    };
  });
}
