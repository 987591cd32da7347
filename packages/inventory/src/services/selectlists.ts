import type { AnyKysely } from "@anvil/core";
import { namesOf, type Row } from "../repositories/records.ts";
import {
  categoriesOfType,
  labelsFlagged,
  locationsByName,
  type Refine,
  selectableAssets,
  selectlistRows,
} from "../repositories/selectlists.ts";
import { labelsWithIds } from "../repositories/status-labels.ts";
import { statusType } from "../resources/statuslabels.ts";
import { inCallersCompany } from "./companies.ts";
import type { InventoryDatabase } from "./database.ts";
import { imageUrl } from "./images.ts";
import { type Caller, can } from "./permissions.ts";

// The select2 lists the web UI fills its drop-downs from (spec §2.4): `{results: [{id, text, image}],
// pagination: {more, per_page}, total_count, page, page_count}`, searched by `search`, paged by
// `page`. Each resource words its entries as Snipe-IT's controller does.

export const PER_PAGE = 50;
/** Locations come as one indented tree, in pages of 500 (Snipe-IT's LocationsController). */
const LOCATION_PAGE = 500;

/** Snipe-IT's `view.selectlists` gate: anyone who picks things while creating, editing or moving them. */
const SELECTLIST_PERMISSIONS = [
  "assets.create",
  "assets.edit",
  "assets.checkout",
  "assets.checkin",
  "assets.audit",
  ...["licenses", "components", "consumables", "accessories", "users"].flatMap((resource) => [
    `${resource}.create`,
    `${resource}.edit`,
  ]),
];

export function maySelect(caller: Caller): boolean {
  return SELECTLIST_PERMISSIONS.some((permission) => can(caller, permission));
}

export interface SelectItem {
  id: number;
  text: string;
  image: string | null;
}

export interface Selectlist {
  results: SelectItem[];
  pagination: { more: boolean; per_page: number };
  total_count: number;
  page: number;
  page_count: number;
}

interface SelectQuery {
  search: string;
  page: number;
  query: Record<string, unknown>;
}

/** A list's source: its table, what the search looks in, its order and how an entry reads. */
export interface SelectSource {
  table: string;
  search: readonly string[];
  order: ReadonlyArray<readonly [string, "asc" | "desc"]>;
  /** The list's own conditions, for what the query asks. */
  refine?: (query: Record<string, unknown>) => Refine;
  /** The entries' texts, for a page of rows (related names are loaded once per page). */
  texts?: (db: AnyKysely, rows: Row[]) => Promise<string[]>;
}

const byName = [["name", "asc"]] as const;
const named = (table: string): SelectSource => ({ table, search: ["name"], order: byName });

/** An asset as Snipe-IT's presenter names it: `name (tag) - model`, its holder, and a pending mark. */
async function assetTexts(db: AnyKysely, rows: Row[]): Promise<string[]> {
  const models = await namesOf(
    db,
    "models",
    rows.map((row) => row.model_id),
  );
  const holders = await namesOf(
    db,
    "users",
    rows.filter((row) => row.assigned_type === "user").map((row) => row.assigned_to),
  );
  const labels = new Map(
    (await labelsWithIds(db, [...new Set(rows.map((row) => Number(row.status_id)))])).map((label) => [
      Number(label.id),
      statusType(label),
    ]),
  );
  return rows.map((row) => {
    let text = (row.name as string | null) ?? "";
    text += ` (${row.asset_tag})`;
    const model = models.get(Number(row.model_id));
    if (model) text += ` - ${model}`;
    const holder = row.assigned_type === "user" ? holders.get(Number(row.assigned_to)) : undefined;
    if (holder) text += ` → ${holder}`;
    if (labels.get(Number(row.status_id)) === "pending") text += "(pending)";
    return text.trim();
  });
}

/** A model as the default model list setting shows it: `Category - Maker Name (#number)`. */
async function modelTexts(db: AnyKysely, rows: Row[]): Promise<string[]> {
  const categories = await namesOf(
    db,
    "categories",
    rows.map((row) => row.category_id),
  );
  const makers = await namesOf(
    db,
    "manufacturers",
    rows.map((row) => row.manufacturer_id),
  );
  return rows.map((row) => {
    const category = categories.get(Number(row.category_id));
    const maker = makers.get(Number(row.manufacturer_id));
    const number = row.model_number as string | null;
    return `${category ? `${category} - ` : ""}${maker ? `${maker} ` : ""}${row.name}${number ? ` (#${number})` : ""}`;
  });
}

/** `Last, First (username) - #employee number`. */
async function userTexts(_db: AnyKysely, rows: Row[]): Promise<string[]> {
  return rows.map((row) => {
    let text = row.last_name ? `${row.last_name}, ` : "";
    text += String(row.first_name);
    if (row.username) text += ` (${row.username})`;
    if (row.employee_num) text += ` - #${row.employee_num}`;
    return text;
  });
}

/** Labels of the kinds asked for with `deployable`, `pending`, `archived`. */
function labelFlags(query: Record<string, unknown>): Refine {
  return labelsFlagged(
    ["deployable", "pending", "archived"].filter((flag) => query[flag] !== undefined && query[flag] !== ""),
  );
}

/** Only assets ready to deploy (`assetStatusType=RTD`); archived ones never. */
function assetStates(query: Record<string, unknown>): Refine {
  return selectableAssets(query.assetStatusType === "RTD");
}

/** Every select list but the locations' tree, by the path it is served under. */
export const SELECTLISTS: Readonly<Record<string, SelectSource>> = {
  hardware: {
    table: "assets",
    search: ["name", "asset_tag", "serial"],
    order: [["asset_tag", "asc"]],
    refine: assetStates,
    texts: assetTexts,
  },
  models: { table: "models", search: ["name", "model_number"], order: byName, texts: modelTexts },
  users: {
    table: "users",
    search: ["first_name", "last_name", "username", "employee_num"],
    order: [
      ["last_name", "asc"],
      ["first_name", "asc"],
    ],
    texts: userTexts,
  },
  statuslabels: {
    table: "status_labels",
    search: ["name"],
    order: [
      ["default_label", "desc"],
      ["name", "asc"],
    ],
    refine: labelFlags,
  },
  companies: named("companies"),
  departments: named("departments"),
  manufacturers: named("manufacturers"),
  suppliers: named("suppliers"),
  accessories: named("accessories"),
  consumables: named("consumables"),
  components: named("components"),
  licenses: named("licenses"),
};

/** `page` as select2 sends it; anything but a positive whole number is the first page. */
export function pageOf(value: unknown): number {
  const page = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : 1;
  return Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

function envelope(items: SelectItem[], total: number, page: number, perPage: number): Selectlist {
  const pageCount = Math.max(1, Math.ceil(total / perPage));
  return {
    results: items,
    pagination: { more: page < pageCount, per_page: perPage },
    total_count: total,
    page,
    page_count: pageCount,
  };
}

function imageOf(caller: Caller, table: string, row: Row): string | null {
  return imageUrl(caller, table, table === "users" ? row.avatar : row.image);
}

/** One page of a resource's select list. */
export async function selectlist(
  database: InventoryDatabase,
  caller: Caller,
  source: SelectSource,
  { search, page, query }: SelectQuery,
): Promise<Selectlist> {
  const db = database.db as AnyKysely;
  const own = source.refine?.(query);
  const { total, rows } = await selectlistRows(db, database.dialect, {
    table: source.table,
    search: source.search,
    term: search,
    order: source.order,
    refine: (select) => {
      const scoped = inCallersCompany(select, caller, source.table);
      return own ? own(scoped) : scoped;
    },
    limit: PER_PAGE,
    offset: (page - 1) * PER_PAGE,
  });
  const texts = source.texts ? await source.texts(db, rows) : rows.map((row) => String(row.name));
  const items = rows.map((row, index) => ({
    id: Number(row.id),
    text: texts[index],
    image: imageOf(caller, source.table, row),
  }));
  return envelope(items, total, page, PER_PAGE);
}

/** Categories of one type (`/categories/{type}/selectlist`). */
export function categorySource(type: string): SelectSource {
  return {
    ...named("categories"),
    refine: () => categoriesOfType(type.toLowerCase()),
  };
}

/**
 * The locations' select list: without a search, every location as one tree, each under its parent
 * and indented with `--` per level (roots read ` Name`, as upstream's indenter writes them); with
 * a search, the matching locations by name.
 */
/** A location in the tree of every location: its row and how many parents it has. */
export interface LocationInTree {
  row: Row;
  depth: number;
}

/**
 * Every location the search matches, as one tree in name order (each parent before its children);
 * a search lists the matches flat, by name.
 */
export async function locationTree(database: InventoryDatabase, search: string): Promise<LocationInTree[]> {
  const rows = await locationsByName(database.db as AnyKysely, database.dialect, search);
  if (search !== "") return rows.map((row) => ({ row, depth: 0 }));
  const children = new Map<number | null, Row[]>();
  const ids = new Set(rows.map((row) => Number(row.id)));
  for (const row of rows) {
    // A parent that is deleted leaves its children at the top.
    const parent = row.parent_id === null || !ids.has(Number(row.parent_id)) ? null : Number(row.parent_id);
    children.set(parent, [...(children.get(parent) ?? []), row]);
  }
  const ordered: LocationInTree[] = [];
  const walk = (parent: number | null, depth: number) => {
    for (const row of children.get(parent) ?? []) {
      ordered.push({ row, depth });
      walk(Number(row.id), depth + 1);
    }
  };
  walk(null, 0);
  return ordered;
}

export async function locationSelectlist(
  database: InventoryDatabase,
  caller: Caller,
  { search, page }: SelectQuery,
): Promise<Selectlist> {
  const ordered = (await locationTree(database, search)).map(({ row, depth }) => ({
    row,
    text: search !== "" ? String(row.name) : `${"--".repeat(depth)} ${row.name}`,
  }));
  const items = ordered
    .slice((page - 1) * LOCATION_PAGE, page * LOCATION_PAGE)
    .map(({ row, text }) => ({ id: Number(row.id), text, image: imageOf(caller, "locations", row) }));
  return envelope(items, ordered.length, page, LOCATION_PAGE);
}
