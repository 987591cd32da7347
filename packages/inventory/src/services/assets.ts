import {
  type AnyKysely,
  containingDocs,
  containsText,
  type DialectName,
  dialectOf,
  hasNul,
  Invalid,
  isUniqueViolation,
  keptRows,
  NotFound,
  NulCharacter,
  prepared,
  toStoredTime,
} from "@anvil/core";
import { type Expression, type Kysely, type SqlBool, sql } from "kysely";
import { presentAssets } from "../convert/asset.ts";
import { assetById, assetsWithValue } from "../repositories/asset-lookups.ts";
import { ASSET_SEARCH } from "../repositories/asset-search.ts";
import {
  type AnyExpressionBuilder,
  type AnySelect,
  listRecords,
  type Row,
  type SortedPage,
} from "../repositories/records.ts";
import { ASSET_NOT_FOUND, assets, holderType, RESTORE_MESSAGES, toDay } from "../resources/assets.ts";
import type { InventoryTables } from "../schemas/tables.ts";
import type { RequestOrigin } from "./activity.ts";
import {
  type CheckinOptions,
  type CheckoutOptions,
  checkinWithin,
  checkoutWithin,
  lockedAsset,
} from "./checkout.ts";
import { inCallersCompany, visibleTo } from "./companies.ts";
import {
  type CustomFieldListing,
  customFieldListing,
  customValueAssets,
  saveAssetValues,
} from "./custom-values.ts";
import { type InventoryDatabase, storedNow } from "./database.ts";
import { type ListParams, listParams } from "./listing.ts";
import { recordAction } from "./notifications.ts";
import type { Caller } from "./permissions.ts";
import type { WriteContext } from "./resource.ts";
import { releaseAssetSeats } from "./seats.ts";

// Assets beyond the generic create/update (spec §7): their list with its many filters, lookups by
// tag and serial, check-out, check-in, delete (checking in first), restore and audit.

/** What routes that bind the asset by id answer when it does not exist (Snipe-IT's findOrFail). */
export const ASSET_NOT_FOUND_BY_ROUTE = assets.notFound;
/** Snipe-IT's defaults for how far ahead audits and expected check-ins count as due. */
const AUDIT_WARNING_DAYS = 14;
const DUE_CHECKIN_DAYS = 14;
/** Months until the next audit when an audit does not say (Snipe-IT's audit_interval). */
const AUDIT_INTERVAL_MONTHS = 12;

const PLAIN_SORTS = [
  "id",
  "name",
  "asset_tag",
  "serial",
  "last_checkout",
  "last_checkin",
  "notes",
  "expected_checkin",
  "order_number",
  "image",
  "created_at",
  "updated_at",
  "purchase_date",
  "purchase_cost",
  "last_audit_date",
  "next_audit_date",
  "warranty_months",
  "checkout_counter",
  "checkin_counter",
  "requests_counter",
  "byod",
  "asset_eol_date",
  "requestable",
];

/** `(select <name> from <table> where id = assets.<column>)`: a related row's name. */
function nameOf(table: string, column: string, name = sql`name`): Expression<unknown> {
  return sql`(select ${name} from ${sql.table(table)} as related where related.id = assets.${sql.ref(column)})`;
}

function throughModel(table: string, column: string, name = sql`related.name`): Expression<unknown> {
  return sql`(select ${name} from ${sql.table(table)} as related join models as m on m.${sql.ref(
    column,
  )} = related.id where m.id = assets.model_id)`;
}

const USER_NAME = sql`related.first_name || ' ' || coalesce(related.last_name, '')`;

/** Whom the asset is checked out to, by name. */
const HOLDER_NAME = sql`(case assets.assigned_type
  when 'user' then (select ${USER_NAME} from users as related where related.id = assets.assigned_to)
  when 'location' then (select related.name from locations as related where related.id = assets.assigned_to)
  when 'asset' then (select coalesce(related.name, related.asset_tag) from assets as related where related.id = assets.assigned_to)
  end)`;

const RELATION_SORTS: Record<string, Expression<unknown>> = {
  model: nameOf("models", "model_id"),
  model_number: nameOf("models", "model_id", sql`model_number`),
  category: throughModel("categories", "category_id"),
  manufacturer: throughModel("manufacturers", "manufacturer_id"),
  company: nameOf("companies", "company_id"),
  location: nameOf("locations", "location_id"),
  rtd_location: nameOf("locations", "rtd_location_id"),
  status_label: nameOf("status_labels", "status_id"),
  supplier: nameOf("suppliers", "supplier_id"),
  assigned_to: HOLDER_NAME,
  created_by: nameOf("users", "created_by", sql`first_name`),
};

const SORTS = [...PLAIN_SORTS, ...Object.keys(RELATION_SORTS)];

/**
 * How a page sorted by a related row's name is read on PostgreSQL (relationPage): `groups` selects
 * the related rows as (group_type, group_id, sort_key), `member` is the condition that an asset
 * belongs to the group `g`, and `unrelated`, where an asset may have no related row, the condition
 * that its key is NULL. The key is the one RELATION_SORTS orders by, so the order is the same.
 */
interface RelationGroups {
  groups: Expression<unknown>;
  member: Expression<SqlBool>;
  unrelated?: Expression<SqlBool>;
}

/** Groups of the rows of `table` that assets.`column` points at. */
function relatedGroups(
  table: string,
  column: string,
  nullable: boolean,
  key = sql`related.name`,
): RelationGroups {
  return {
    groups: sql`select '' as group_type, related.id as group_id, ${key} as sort_key from ${sql.table(table)} as related`,
    member: sql<SqlBool>`assets.${sql.ref(column)} = g.group_id`,
    unrelated: nullable ? sql<SqlBool>`assets.${sql.ref(column)} is null` : undefined,
  };
}

/** Groups of the models, keyed by the name of the row of `table` their `column` points at. */
function groupsThroughModel(table: string, column: string): RelationGroups {
  return {
    groups: sql`select '' as group_type, m.id as group_id, related.name as sort_key from models as m left join ${sql.table(table)} as related on related.id = m.${sql.ref(column)}`,
    member: sql<SqlBool>`assets.model_id = g.group_id`,
  };
}

// Sorts by a column that has an index to find a group's assets by (created_by has none: a group
// would be a scan of every asset, so that sort orders the filtered rows as the others do).
const RELATION_GROUPS: Record<string, RelationGroups> = {
  model: relatedGroups("models", "model_id", false),
  model_number: relatedGroups("models", "model_id", false, sql`related.model_number`),
  category: groupsThroughModel("categories", "category_id"),
  manufacturer: groupsThroughModel("manufacturers", "manufacturer_id"),
  company: relatedGroups("companies", "company_id", true),
  location: relatedGroups("locations", "location_id", true),
  rtd_location: relatedGroups("locations", "rtd_location_id", true),
  status_label: relatedGroups("status_labels", "status_id", false),
  supplier: relatedGroups("suppliers", "supplier_id", true),
  // Only the assets that hold assets are holders: all of them would be a sort of every asset.
  assigned_to: {
    groups: sql`select 'user' as group_type, related.id as group_id, ${USER_NAME} as sort_key from users as related
      union all select 'location', related.id, related.name from locations as related
      union all select 'asset', related.id, coalesce(related.name, related.asset_tag) from assets as related
        where related.id in (select held.assigned_to from assets as held where held.assigned_type = 'asset')`,
    member: sql<SqlBool>`assets.assigned_type = g.group_type and assets.assigned_to = g.group_id`,
    unrelated: sql<SqlBool>`${HOLDER_NAME} is null`,
  },
};

/**
 * The labels whose assets a list sorted by label can show, when its filters name them: the ones
 * asked for, or all but the hidden ones. PostgreSQL reads a label's assets in id order by walking
 * the whole table when it expects them spread over it, which a label no asset of the list has
 * defeats: without this, the archived label's group read every asset.
 */
function labelGroups(
  query: Record<string, unknown>,
  hidden: readonly number[],
): Expression<SqlBool> | undefined {
  const asked = strings(query.status_id);
  if (asked.length > 0) {
    const ids = idsOf(asked);
    return ids && ids.length > 0 ? sql<SqlBool>`candidate.group_id in (${sql.join(ids)})` : undefined;
  }
  return hidesLabels(query, hidden)
    ? sql<SqlBool>`candidate.group_id not in (${sql.join(hidden)})`
    : undefined;
}

/** The `status=` values the list filters by (refineList); any other shows every label's assets. */
const STATUS_FILTERS = [
  "rtd",
  "deployed",
  "pending",
  "undeployable",
  "archived",
  "requestable",
  "byod",
  "deleted",
];

/**
 * Whether the list leaves out the assets of the hidden (archived) labels: unless a status or a
 * label is asked for (Snipe-IT's show_archived_in_list, default off).
 */
function hidesLabels(query: Record<string, unknown>, hidden: readonly number[]): boolean {
  const status = typeof query.status === "string" ? query.status.toLowerCase() : "";
  return hidden.length > 0 && !STATUS_FILTERS.includes(status) && strings(query.status_id).length === 0;
}

/**
 * A page sorted by a related row's name, on PostgreSQL: ordering the filtered assets by a subquery
 * each read and sorted every one of them (0.2 s for 97,000; bench/inventory.ts). Instead the
 * related rows (a few thousand at most) are sorted by name, and each one's assets read in id
 * order from the column's index, at most a page's worth (offset and limit) each; PostgreSQL then
 * sorts by id only within each name, as it reads the groups in order, and stops once it has the
 * page. Assets with no related row form one more group, with a NULL name.
 */
function relationPage(
  db: AnyKysely,
  query: AnySelect,
  relation: RelationGroups,
  page: SortedPage,
  /** Which groups can have assets in the list, when the list's filters say (see labelGroups). */
  candidates: Expression<SqlBool> = sql<SqlBool>`true`,
): AnySelect {
  const ascending = page.order === "asc";
  const [direction, nulls] = ascending ? [sql`asc`, sql`nulls first`] : [sql`desc`, sql`nulls last`];
  const inGroup = (condition: Expression<SqlBool>) =>
    query
      .where(condition)
      .orderBy("assets.id", page.order)
      .limit(page.offset + page.limit);
  // Each branch only for its own groups: `x = NULL` finds nothing, but PostgreSQL may look for it
  // by walking every asset.
  const members = db
    .selectFrom(inGroup(sql<SqlBool>`g.group_id is not null and ${relation.member}`).as("member"))
    .selectAll();
  const assets = relation.unrelated
    ? members.unionAll(
        db
          .selectFrom(inGroup(sql<SqlBool>`g.group_id is null and ${relation.unrelated}`).as("unrelated"))
          .selectAll(),
      )
    : members;
  const groups = relation.unrelated
    ? sql`${relation.groups} union all select null, null, null`
    : relation.groups;
  return db
    .selectFrom(
      sql`(select * from (${groups}) as candidate where ${candidates} order by sort_key ${direction} ${nulls}, group_type ${direction}, group_id ${direction})`.as(
        "g",
      ),
    )
    .innerJoinLateral(assets.as("assets"), (join) => join.onTrue())
    .selectAll("assets")
    .orderBy(sql`g.sort_key`, (item) => (ascending ? item.asc().nullsFirst() : item.desc().nullsLast()))
    .orderBy("assets.id", page.order)
    .limit(page.limit)
    .offset(page.offset);
}

/** An asset column as text, to look for words in. */
function asText(column: string): Expression<unknown> {
  return sql`cast(assets.${sql.ref(column)} as text)`;
}

/** The ids of the assets a search term finds one way, as a select of `id`. */
type Finds = (db: AnyKysely, term: string) => Expression<unknown>;

// A search is the union of these id sets, one query for the whole term: each set comes from an
// index (the asset's own text from its substring index, the related rows' names through the
// asset's foreign-key indexes), where one OR of them all made the database read every asset and
// test each condition (~100 ms a search over 100,000 assets; bench/inventory.ts). The related
// tables are small and scanned for the term as before.

/** Assets whose `column` points at a row of `table` with the term in `text`. */
function relatedText(column: string, table: string, text = sql`related.name`): Finds {
  return (db, term) =>
    sql`select assets.id from assets where assets.${sql.ref(column)} in (select related.id from ${sql.table(table)} as related where ${containsText(dialectOf(db), text, term)})`;
}

/** Assets whose model points at a row of `table` (through `column`) with the term in its name. */
function throughModelText(column: string, table: string): Finds {
  return (db, term) =>
    sql`select assets.id from assets where assets.model_id in (select m.id from models as m join ${sql.table(table)} as related on related.id = m.${sql.ref(column)} where ${containsText(dialectOf(db), sql`related.name`, term)})`;
}

/** Assets checked out to a `type` holder (a row of `table`) with the term in `text`. */
function holderText(type: string, table: string, text: Expression<unknown>): Finds {
  return (db, term) =>
    sql`select assets.id from assets where assets.assigned_type = ${type} and assets.assigned_to in (select related.id from ${sql.table(table)} as related where ${containsText(dialectOf(db), text, term)})`;
}

/** What the search looks in: the asset's own text and the names of everything related to it. */
const SEARCHED: Finds[] = [
  (db, term) => containingDocs(db, ASSET_SEARCH, term),
  relatedText("model_id", "models"),
  relatedText("model_id", "models", sql`related.model_number`),
  relatedText("model_id", "models", sql`cast(related.eol as text)`),
  throughModelText("category_id", "categories"),
  throughModelText("manufacturer_id", "manufacturers"),
  relatedText("company_id", "companies"),
  relatedText("location_id", "locations"),
  relatedText("rtd_location_id", "locations"),
  relatedText("status_id", "status_labels"),
  relatedText("supplier_id", "suppliers"),
  holderText("user", "users", USER_NAME),
  holderText("user", "users", sql`related.username`),
  holderText("location", "locations", sql`related.name`),
  // Assets holding assets are few (the holder index finds them): each is checked by its holder's name.
  (db, term) =>
    sql`select assets.id from assets where assets.assigned_type = 'asset' and ${containsText(dialectOf(db), HOLDER_NAME, term)}`,
  (db, term) => customValueAssets(dialectOf(db), term),
];

/**
 * Alternatives a search reads (" OR " separates them), the first distinct ones: each adds a select
 * per way of matching, and SQLite takes at most 500 selects in one union.
 */
const MAX_SEARCH_TERMS = 20;

/** Assets matching any of the terms any way (a search's terms are alternatives). */
function searchMatch(db: AnyKysely, terms: readonly string[]): Expression<SqlBool> {
  const found = sql.join(
    [...new Set(terms)]
      .slice(0, MAX_SEARCH_TERMS)
      .flatMap((term) => SEARCHED.map((finds) => finds(db, term))),
    sql` union `,
  );
  // On PostgreSQL the ids are read first, once (as core's textMatch does): given `in (…)` with an
  // order and a limit, the planner may rather walk the sort's index and probe the set per asset.
  return dialectOf(db) === "sqlite"
    ? sql<SqlBool>`assets.id in (${found})`
    : sql<SqlBool>`assets.id = any(array(${found}))`;
}

/**
 * What each key of `filter` (spec §4) looks in, as Snipe-IT's per-column filter does: the asset's
 * own columns and the names of what is related to it. Only these keys, and custom-field columns
 * known to exist, ever reach the query.
 */
const FILTERED: Readonly<Record<string, Expression<unknown>>> = {
  ...Object.fromEntries(
    [
      "name",
      "asset_tag",
      "serial",
      "order_number",
      "purchase_cost",
      "purchase_date",
      "notes",
      "warranty_months",
      "asset_eol_date",
      "expected_checkin",
      "last_checkout",
      "last_checkin",
      "last_audit_date",
      "next_audit_date",
      "created_at",
      "updated_at",
    ].map((column) => [column, asText(column)]),
  ),
  ...RELATION_SORTS,
};

/**
 * `filter`: a JSON object of column → text, each column's value containing its text. Snipe-IT
 * drops a value that does not decode to an object (its json_decode answers null), so malformed
 * JSON, an array or a bare value mean no filter, and `search` applies. Keys may carry Snipe-IT's
 * `custom_fields.` prefix; a value that is not text, a number or a boolean filters nothing.
 */
export function assetFilter(value: unknown): Record<string, string> | undefined {
  if (typeof value !== "string") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const entries = Object.entries(parsed);
  // A JSON escape brings back the NUL the query string may not hold: refused the same way.
  if (entries.some(([key, given]) => hasNul(key) || (typeof given === "string" && hasNul(given))))
    throw new NulCharacter("filter");
  if (entries.length === 0) return undefined;
  // As PHP joins them into its LIKE pattern: true is "1", false is "".
  const text = (given: unknown) =>
    typeof given === "boolean" ? (given ? "1" : "") : typeof given === "number" ? String(given) : given;
  return Object.fromEntries(
    entries.flatMap(([key, given]) => {
      const wanted = text(given);
      return typeof wanted === "string" ? [[key.replace(/^custom_fields\./, ""), wanted]] : [];
    }),
  );
}

const LABEL_TYPES: Record<string, Record<string, boolean>> = {
  deployable: { deployable: true, pending: false, archived: false },
  pending: { pending: true },
  archived: { archived: true },
  undeployable: { deployable: false, pending: false, archived: false },
};

// The archived labels, as values: the default list hides their assets, and a list of ids lets the
// database check each asset against them in its index (~3 ms for 100,000 on SQLite), where
// `not in (select …)` probed a temporary table for every asset (~8 ms), for the total and again
// for every row a deep page steps over.
const archivedLabels = prepared((db: Kysely<InventoryTables>) =>
  db.selectFrom("status_labels").select("id").where("archived", "=", true),
);

/** Assets whose label is of this type. */
function labelled(eb: AnyExpressionBuilder, type: string) {
  return eb("assets.status_id", "in", (sub: AnyExpressionBuilder) => {
    let labels = sub.selectFrom("status_labels").select("id");
    for (const [flag, value] of Object.entries(LABEL_TYPES[type])) labels = labels.where(flag, "=", value);
    return labels;
  });
}

function strings(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((item): item is string => typeof item === "string" && item !== "");
}

/** Ids from a filter's value(s); `null` when a value is not an id (no row matches it). */
function idsOf(values: string[]): number[] | null {
  const ids = values.flatMap((value) => value.split(",")).map((value) => value.trim());
  return ids.every((id) => /^\d+$/.test(id)) ? ids.map(Number) : null;
}

interface ListSearch {
  db: AnyKysely;
  params: ListParams;
  dialect: DialectName;
  /** The per-column filter, when one was given: then `search` is not applied. */
  filter?: Record<string, string>;
  /** The custom fields the query names: their filters, sorts and the filter's custom columns. */
  custom: CustomFieldListing;
}

function refineList(
  select: AnySelect,
  query: Record<string, unknown>,
  search: ListSearch,
  /** Labels whose assets show only when a status or label is asked for. */
  hiddenLabels: readonly number[],
) {
  let q = select;
  const none = () => q.where(sql<SqlBool>`1 = 0`);
  const idFilter = (values: string[], apply: (ids: number[]) => AnySelect) => {
    if (values.length === 0) return;
    const ids = idsOf(values);
    q = ids ? apply(ids) : none();
  };
  for (const column of ["status_id", "company_id", "location_id", "rtd_location_id", "supplier_id"])
    idFilter(strings(query[column]), (ids) => q.where(`assets.${column}`, "in", ids));
  idFilter([...strings(query.model_id), ...strings(query["model_id[]"])], (ids) =>
    q.where("assets.model_id", "in", ids),
  );
  for (const column of ["category_id", "manufacturer_id", "depreciation_id"])
    idFilter(strings(query[column]), (ids) =>
      q.where("assets.model_id", "in", (eb: AnyExpressionBuilder) =>
        eb.selectFrom("models").select("id").where(column, "in", ids),
      ),
    );
  for (const column of ["asset_tag", "serial", "order_number"]) {
    const [value] = strings(query[column]);
    if (value !== undefined) q = q.where(`assets.${column}`, "=", value);
  }
  const [eol] = strings(query.asset_eol_date);
  if (eol !== undefined)
    q = /^\d{4}-\d{2}-\d{2}$/.test(eol) ? q.where("assets.asset_eol_date", "=", eol) : none();
  const [byod] = strings(query.byod);
  if (byod !== undefined) q = q.where("assets.byod", "=", byod === "1" || byod === "true");
  if (query.requestable === "true" || query.requestable === "1") q = q.where("assets.requestable", "=", true);
  const [assignedTo] = strings(query.assigned_to);
  const [assignedType] = strings(query.assigned_type);
  if (assignedTo !== undefined && assignedType !== undefined) {
    const type = holderType(assignedType);
    q =
      type && /^\d+$/.test(assignedTo)
        ? q.where("assets.assigned_to", "=", Number(assignedTo)).where("assets.assigned_type", "=", type)
        : none();
  }

  const status = typeof query.status === "string" ? query.status.toLowerCase() : "";
  if (status === "rtd")
    q = q.where("assets.assigned_to", "is", null).where((eb) => labelled(eb, "deployable"));
  else if (status === "deployed") q = q.where("assets.assigned_to", "is not", null);
  else if (status === "pending" || status === "undeployable" || status === "archived")
    q = q.where((eb) => labelled(eb, status));
  else if (status === "requestable")
    q = q.where("assets.requestable", "=", true).where((eb) => labelled(eb, "deployable"));
  else if (status === "byod") q = q.where("assets.byod", "=", true);
  else if (hidesLabels(query, hiddenLabels)) q = q.where("assets.status_id", "not in", hiddenLabels);

  const { params, dialect, filter } = search;
  if (filter) {
    for (const [column, text] of Object.entries(filter)) {
      const looked = FILTERED[column] ?? search.custom.columnValue(column);
      if (looked) q = q.where(containsText(dialect, looked, text));
    }
  } else if (params.search.length > 0) q = q.where(searchMatch(search.db, params.search));
  return search.custom.refine(q);
}

/** Which assets a list is of, beyond its query. */
export interface AssetListScope {
  /** Conditions of the route (due audits, one holder's assets…). */
  narrow?: (select: AnySelect) => AnySelect;
  /** Archived assets too when no status is asked for (what a holder holds, whatever its label). */
  everyStatus?: boolean;
  /** How the page's rows are shown, when not as asset objects (the depreciation report's rows…). */
  present?: (db: AnyKysely, caller: Caller, rows: Row[]) => Promise<unknown[]>;
}

/** `components=true` embeds each asset's components (spec §7.3), on every route that shows assets. */
export function withComponents(query: Record<string, unknown>): boolean {
  return query.components === "true";
}

/** A page of the asset list as rows, with its total: what listAssets shows, and the list route answers. */
export async function findAssetPage(
  database: InventoryDatabase,
  caller: Caller,
  query: Record<string, unknown>,
  scope: Omit<AssetListScope, "present"> = {},
) {
  const db = database.db as AnyKysely;
  const custom = await customFieldListing(db, database.dialect, query);
  const params = listParams(query, {
    allowed: [...SORTS, ...custom.sorts],
    default: "created_at",
    keyset: true,
  });
  const status = typeof query.status === "string" ? query.status.toLowerCase() : "";
  const filter = assetFilter(query.filter);
  const search: ListSearch = { db, params, dialect: database.dialect, filter, custom };
  const hidden = scope.everyStatus ? [] : (await archivedLabels(db)).map((label) => Number(label.id));
  const page = await listRecords(
    db,
    database.dialect,
    {
      table: "assets",
      softDeletes: true,
      trashed: status === "deleted" ? "only" : "without",
      searchColumns: [],
      filters: {},
      refine: (select) => {
        const refined = refineList(select, query, search, hidden);
        return inCallersCompany(scope.narrow ? scope.narrow(refined) : refined, caller, "assets");
      },
      sortExpression: (sort) => RELATION_SORTS[sort] ?? custom.sortExpression(sort),
      sortedPage: (select, page) =>
        database.dialect === "postgres" && RELATION_GROUPS[page.sort]
          ? relationPage(
              db,
              select,
              RELATION_GROUPS[page.sort],
              page,
              page.sort === "status_label" ? labelGroups(query, hidden) : undefined,
            )
          : undefined,
    },
    params,
  );
  return { total: page.total, rows: page.rows, params, next: page.next };
}

export async function listAssets(
  database: InventoryDatabase,
  caller: Caller,
  query: Record<string, unknown>,
  scope: AssetListScope = {},
) {
  const db = database.db as AnyKysely;
  const page = await findAssetPage(database, caller, query, scope);
  const rows = scope.present
    ? await scope.present(db, caller, page.rows)
    : await presentAssets(db, caller, page.rows, { components: withComponents(query) });
  return { ...page, rows };
}

/** Assets whose audit (or expected check-in) is due soon, overdue, or either (spec §7.1). */
export function dueFilter(
  kind: "audits" | "checkins",
  when: "due" | "overdue" | "due-or-overdue",
): (select: AnySelect) => AnySelect {
  const column = kind === "audits" ? "assets.next_audit_date" : "assets.expected_checkin";
  const days = kind === "audits" ? AUDIT_WARNING_DAYS : DUE_CHECKIN_DAYS;
  return (select) => {
    // Days are computed per request: a process runs across midnights.
    const today = new Date().toISOString().slice(0, 10);
    const horizon = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
    let dated = select.where(column, "is not", null);
    if (kind === "checkins") dated = dated.where("assets.assigned_to", "is not", null);
    if (when === "due") return dated.where(column, ">=", today).where(column, "<=", horizon);
    if (when === "overdue") return dated.where(column, "<", today);
    return dated.where(column, "<=", horizon);
  };
}

/**
 * Only the assets checked out (to a user, a location or an asset), or only those that are not:
 * the asset list page's filter, which Snipe-IT's `status` words (RTD, Deployed…) mix with labels.
 */
export function assignedFilter(assigned: boolean): (select: AnySelect) => AnySelect {
  return (select) => select.where("assets.assigned_to", assigned ? "is not" : "is", null);
}

/** One asset by id, deleted or not, if the caller may see it. */
export async function findAsset(
  db: AnyKysely,
  id: number,
  caller: Caller,
  message = ASSET_NOT_FOUND,
): Promise<Row> {
  const row = Number.isSafeInteger(id) ? await assetById(db, id) : undefined;
  if (!row || !visibleTo(caller, "assets", row)) throw new NotFound(message);
  return row;
}

/**
 * The assets the caller may see whose `column` is exactly `value`, or one of the values of a list;
 * deleted ones too when asked.
 */
export async function assetsWhere(
  db: AnyKysely,
  column: "id" | "asset_tag" | "serial",
  value: string | readonly (string | number)[],
  withDeleted: boolean,
  caller: Caller,
): Promise<Row[]> {
  if (typeof value === "string" && column !== "id")
    return (await assetsWithValue(db, column, value, withDeleted)).filter((row) =>
      visibleTo(caller, "assets", row),
    );
  const select = db
    .selectFrom("assets")
    .selectAll()
    .where(`assets.${column}`, typeof value === "string" ? "=" : "in", value)
    .$if(!withDeleted, (q) => q.where("assets.deleted_at", "is", null));
  return (await keptRows(db, inCallersCompany(select, caller, "assets").orderBy("assets.id"))) as Row[];
}

/** The undeleted asset with this tag, if the caller may see it. */
export async function assetByTag(db: AnyKysely, tag: string, message: string, caller: Caller): Promise<Row> {
  const [row] = await assetsWhere(db, "asset_tag", tag, false, caller);
  if (!row) throw new NotFound(message);
  return row;
}

/** Runs one asset's write in a transaction of its own (the single-asset routes). */
export async function inAssetTransaction<T>(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  work: (context: WriteContext) => Promise<T>,
): Promise<T> {
  return (database.db as AnyKysely)
    .transaction()
    .execute((trx) => work({ database, trx: trx as AnyKysely, caller, origin }));
}

/** The undeleted asset, read inside the transaction (locked on PostgreSQL), if the caller may see it. */
export async function liveAsset(context: WriteContext, id: number, message: string): Promise<Row> {
  const row = Number.isSafeInteger(id) ? await lockedAsset(context, id) : undefined;
  if (!row || row.deleted_at !== null || !visibleTo(context.caller, "assets", row))
    throw new NotFound(message);
  return row;
}

// Each write below comes twice: `…Within` runs inside the caller's transaction (a bulk request
// runs many in one), the other in a transaction of its own.

export async function checkoutAssetWithin(
  context: WriteContext,
  id: number,
  target: Parameters<typeof checkoutWithin>[2],
  options: CheckoutOptions,
): Promise<Row> {
  return checkoutWithin(context, await liveAsset(context, id, ASSET_NOT_FOUND_BY_ROUTE), target, options);
}

export async function checkoutAsset(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  id: number,
  target: Parameters<typeof checkoutWithin>[2],
  options: CheckoutOptions,
): Promise<Row> {
  return inAssetTransaction(database, caller, origin, (context) =>
    checkoutAssetWithin(context, id, target, options),
  );
}

export async function checkinAssetWithin(
  context: WriteContext,
  id: number,
  options: CheckinOptions,
): Promise<Row> {
  return checkinWithin(context, await liveAsset(context, id, ASSET_NOT_FOUND_BY_ROUTE), options);
}

export async function checkinAsset(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  id: number,
  options: CheckinOptions,
): Promise<Row> {
  return inAssetTransaction(database, caller, origin, (context) => checkinAssetWithin(context, id, options));
}

/**
 * Soft-deletes an asset, checking it in first when it is out (spec §7.7). Its license seats are
 * freed: a deleted asset uses no license.
 */
export async function deleteAssetWithin(context: WriteContext, id: number): Promise<void> {
  const { database } = context;
  const asset = await liveAsset(context, id, ASSET_NOT_FOUND);
  if (asset.assigned_to !== null) await checkinWithin(context, asset, {});
  await releaseAssetSeats(context, id, "all");
  const now = storedNow(database.dialect);
  await context.trx
    .updateTable("assets")
    .set({ deleted_at: now, updated_at: now })
    .where("id", "=", id)
    .execute();
  await recordAction(context, { actionType: "delete", item: { type: "asset", id } });
}

export async function deleteAsset(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  id: number,
): Promise<void> {
  await inAssetTransaction(database, caller, origin, (context) => deleteAssetWithin(context, id));
}

export interface RestoreAnswer {
  restored: boolean;
  message: string;
}

/**
 * Undeletes an asset; the answer says whether it was, in Snipe-IT's words (spec §7.7). Throws the
 * database's unique violation when another undeleted asset has its tag: PostgreSQL refuses any
 * further statement of the transaction then, so the caller answers it (`restoreRefusal`) once the
 * transaction, or its savepoint, is rolled back.
 */
export async function restoreAssetWithin(context: WriteContext, id: number): Promise<RestoreAnswer> {
  const { database, caller } = context;
  const asset = await findAsset(context.trx, id, caller, ASSET_NOT_FOUND_BY_ROUTE);
  if (asset.deleted_at === null) return { restored: false, message: RESTORE_MESSAGES.notDeleted };
  await context.trx
    .updateTable("assets")
    .set({ deleted_at: null, updated_at: storedNow(database.dialect) })
    .where("id", "=", id)
    .execute();
  await recordAction(context, { actionType: "restore", item: { type: "asset", id } });
  return { restored: true, message: RESTORE_MESSAGES.success };
}

/** What a restore that failed with `error` answers; the error itself when it is not a taken tag. */
export function restoreRefusal(error: unknown): RestoreAnswer {
  if (isUniqueViolation(error)) return { restored: false, message: RESTORE_MESSAGES.tagTaken };
  throw error;
}

export async function restoreAsset(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  id: number,
): Promise<RestoreAnswer> {
  try {
    return await inAssetTransaction(database, caller, origin, (context) => restoreAssetWithin(context, id));
  } catch (error) {
    return restoreRefusal(error);
  }
}

export interface AuditInput {
  note?: string | null;
  nextAuditDate?: string | null;
  locationId?: number;
  /** The request body: values of the custom fields shown on the audit form (display_audit). */
  customValues?: Readonly<Record<string, unknown>>;
}

export interface AuditAnswer {
  id: unknown;
  asset_tag: unknown;
  note: string | null;
  next_audit_date: string | null;
}

/** Records an audit of the asset: when it was seen, where, and when it is next due. */
export async function auditAsset(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  asset: Row,
  input: AuditInput,
): Promise<AuditAnswer> {
  return inAssetTransaction(database, caller, origin, (context) => auditAssetWithin(context, asset, input));
}

export async function auditAssetWithin(
  context: WriteContext,
  asset: Row,
  input: AuditInput,
): Promise<AuditAnswer> {
  const { database } = context;
  const now = new Date();
  const next =
    input.nextAuditDate ??
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + AUDIT_INTERVAL_MONTHS, now.getUTCDate()))
      .toISOString()
      .slice(0, 10);
  const changes: Record<string, unknown> = {
    last_audit_date: toStoredTime(now, database.dialect),
    next_audit_date: next,
    updated_at: toStoredTime(now, database.dialect),
  };
  if (input.locationId !== undefined) {
    const found = await context.trx
      .selectFrom("locations")
      .select("id")
      .where("id", "=", input.locationId)
      .where("deleted_at", "is", null)
      .executeTakeFirst();
    if (!found)
      throw new Invalid("The given data was invalid.", {
        location_id: ["The selected location id is invalid."],
      });
    changes.location_id = input.locationId;
  }
  await context.trx.updateTable("assets").set(changes).where("id", "=", asset.id).execute();
  const changed = input.customValues
    ? await saveAssetValues(context, asset, input.customValues, "audit")
    : {};
  await recordAction(context, {
    actionType: "audit",
    item: { type: "asset", id: asset.id },
    note: input.note ?? null,
    meta: changed,
    locationId: (changes.location_id as number | undefined) ?? (asset.location_id as number | null),
  });
  return {
    id: asset.id,
    asset_tag: asset.asset_tag,
    note: input.note ?? null,
    next_audit_date: toDay(next),
  };
}
