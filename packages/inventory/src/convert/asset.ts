import { type AnyKysely, keptRows, RowMemo } from "@anvil/core";
import { type Expression, sql } from "kysely";
import type { Row } from "../repositories/records.ts";
import { statusType } from "../resources/statuslabels.ts";
import { customFieldsOf, ENCRYPTED_PERMISSION } from "../services/custom-values.ts";
import { imageUrl } from "../services/images.ts";
import { type Caller, can } from "../services/permissions.ts";
import { bool, date, datetime, escaped, forHumans, money, related } from "./format.ts";

// Snipe-IT's asset transformer (spec §7.3): rows → the asset object. Everything related to a page
// of assets (models, labels, holders…) is loaded once for the page, not per row.

/** The short holder type stored in assigned_type, and the class name Snipe-IT's clients send. */
export const HOLDER_CLASSES = {
  user: "App\\Models\\User",
  location: "App\\Models\\Location",
  asset: "App\\Models\\Asset",
} as const;
export type HolderType = keyof typeof HOLDER_CLASSES;

interface Loaded {
  models: Map<number, Row>;
  labels: Map<number, Row>;
  users: Map<number, Row>;
  names: Record<string, ReadonlyMap<number, string>>;
  /** Each asset's installed components, when asked for. */
  components?: Map<number, Record<string, unknown>[]>;
  /** Each asset's `custom_fields` object; assets whose model has no fieldset have none. */
  customFields?: Map<number, Record<string, unknown>>;
}

export interface PresentOptions {
  /** Embed `components[]` (`?components=true`, spec §7.3). */
  components?: boolean;
}

function ids(rows: Row[], column: string): number[] {
  return [...new Set(rows.map((row) => row[column]).filter((id) => id !== null && id !== undefined))].map(
    Number,
  );
}

function holderIds(rows: Row[], type: HolderType): number[] {
  return ids(
    rows.filter((row) => row.assigned_type === type),
    "assigned_to",
  );
}

// What a page of assets shows of its related rows, read in one union of one select per kind of
// row: on PostgreSQL one round trip, where the models, labels and holders (in parallel) and then
// the names of the rest took two and four statements. Each select names the same columns: the
// kind, the id, a name and typed slots for the rest of its row (a union takes no columns of its
// own per select); the NULLs are typed, or PostgreSQL would make a first select's NULL text.
const SLOTS = {
  t1: sql`cast(null as text)`,
  t2: sql`cast(null as text)`,
  t3: sql`cast(null as text)`,
  t4: sql`cast(null as text)`,
  n1: sql`cast(null as bigint)`,
  n2: sql`cast(null as bigint)`,
  n3: sql`cast(null as bigint)`,
  n4: sql`cast(null as bigint)`,
  b1: sql`cast(null as boolean)`,
  b2: sql`cast(null as boolean)`,
  b3: sql`cast(null as boolean)`,
};
type Slot = keyof typeof SLOTS;

/** The rows of `table` (as `related`) with these ids, as `kind`: their name and slots. */
function lookup(
  db: AnyKysely,
  kind: string,
  table: string,
  ids: readonly number[] | Expression<unknown>,
  name: Expression<unknown>,
  slots: Partial<Record<Slot, Expression<unknown>>> = {},
) {
  // The kind is one of this file's own words, never request data.
  return db
    .selectFrom(`${table} as related`)
    .select([
      sql.lit(kind).as("kind"),
      "related.id as id",
      sql`${name}`.as("name"),
      ...(Object.keys(SLOTS) as Slot[]).map((slot) => sql`${slots[slot] ?? SLOTS[slot]}`.as(slot)),
    ])
    .where("related.id", "in", ids as number[]);
}

/** The kinds of related rows shown by name only. */
const NAMED = [
  "category",
  "manufacturer",
  "supplier",
  "company",
  "location",
  "created_by",
  "holder_location",
  "holder_asset",
];

const NAME = sql`related.name`;
const FULL_NAME = sql`trim(related.first_name || ' ' || coalesce(related.last_name, ''))`;
const ASSET_NAME = sql`coalesce(nullif(related.name, ''), related.asset_tag)`;

async function load(db: AnyKysely, rows: Row[]): Promise<Loaded> {
  const models = ids(rows, "model_id");
  const ofModels = (column: string) =>
    sql`(select m.${sql.ref(column)} from models as m where m.id in (${sql.join(models)}))`;
  const selects = [
    models.length > 0 &&
      lookup(db, "model", "models", models, NAME, {
        t1: sql`related.model_number`,
        n1: sql`related.category_id`,
        n2: sql`related.manufacturer_id`,
        n3: sql`related.eol`,
        n4: sql`related.fieldset_id`,
      }),
    models.length > 0 && lookup(db, "category", "categories", ofModels("category_id"), NAME),
    models.length > 0 && lookup(db, "manufacturer", "manufacturers", ofModels("manufacturer_id"), NAME),
    ...(
      [
        [
          "label",
          "status_labels",
          ids(rows, "status_id"),
          NAME,
          { b1: sql`related.deployable`, b2: sql`related.pending`, b3: sql`related.archived` },
        ],
        [
          "user",
          "users",
          holderIds(rows, "user"),
          sql`related.first_name`,
          {
            t1: sql`related.username`,
            t2: sql`related.last_name`,
            t3: sql`related.email`,
            t4: sql`related.employee_num`,
          },
        ],
        ["supplier", "suppliers", ids(rows, "supplier_id"), NAME],
        ["company", "companies", ids(rows, "company_id"), NAME],
        [
          "location",
          "locations",
          [...new Set([...ids(rows, "location_id"), ...ids(rows, "rtd_location_id")])],
          NAME,
        ],
        ["created_by", "users", ids(rows, "created_by"), FULL_NAME],
        ["holder_location", "locations", holderIds(rows, "location"), NAME],
        ["holder_asset", "assets", holderIds(rows, "asset"), ASSET_NAME],
      ] as [string, string, number[], Expression<unknown>, Partial<Record<Slot, Expression<unknown>>>?][]
    ).map(
      ([kind, table, wanted, name, slots]) =>
        wanted.length > 0 && lookup(db, kind, table, wanted, name, slots),
    ),
  ].filter((select) => select !== false);
  const names: Record<string, Map<number, string>> = Object.fromEntries(
    NAMED.map((kind) => [kind, new Map<number, string>()]),
  );
  const loaded: Loaded = { models: new Map(), labels: new Map(), users: new Map(), names };
  if (selects.length === 0) return loaded;
  const union = selects.slice(1).reduce((all, select) => all.unionAll(select), selects[0]);
  for (const row of await keptRows(db, union)) {
    const id = Number(row.id);
    if (row.kind === "model")
      loaded.models.set(id, {
        id,
        name: row.name,
        model_number: row.t1,
        category_id: row.n1,
        manufacturer_id: row.n2,
        eol: row.n3,
        fieldset_id: row.n4,
      });
    else if (row.kind === "label")
      loaded.labels.set(id, { id, name: row.name, deployable: row.b1, pending: row.b2, archived: row.b3 });
    else if (row.kind === "user")
      loaded.users.set(id, {
        id,
        username: row.t1,
        first_name: row.name,
        last_name: row.t2,
        email: row.t3,
        employee_num: row.t4,
      });
    else names[row.kind].set(id, String(row.name));
  }
  return loaded;
}

/** The components installed in each asset (one entry per check-out row), read once for the page. */
async function componentsOf(
  db: AnyKysely,
  assetIds: number[],
): Promise<Map<number, Record<string, unknown>[]>> {
  const installed = new Map<number, Record<string, unknown>[]>(assetIds.map((id) => [id, []]));
  if (assetIds.length === 0) return installed;
  const rows = await db
    .selectFrom("components_assets")
    .innerJoin("components", "components.id", "components_assets.component_id")
    .select([
      "components_assets.id as pivot_id",
      "components_assets.asset_id",
      "components_assets.assigned_qty",
      "components_assets.created_at",
      "components.id",
      "components.name",
      "components.purchase_cost",
    ])
    .where("components_assets.asset_id", "in", assetIds)
    .where("components.deleted_at", "is", null)
    .orderBy("components_assets.id")
    .execute();
  for (const row of rows) {
    const qty = Number(row.assigned_qty);
    const cost = row.purchase_cost === null ? null : Number(row.purchase_cost);
    installed.get(Number(row.asset_id))?.push({
      id: Number(row.id),
      pivot_id: Number(row.pivot_id),
      name: escaped(row.name as string),
      qty,
      // Snipe-IT prints the stored decimal as it is, and the total as the product.
      price_cost: cost === null ? null : cost.toFixed(2),
      purchase_total: Math.round((cost ?? 0) * qty * 100) / 100,
      checkout_date: datetime(row.created_at as string | Date),
    });
  }
  return installed;
}

/** Whole months from one `YYYY-MM-DD` to another, as Carbon's diffInMonths counts them. */
export function monthsBetween(from: string, to: string): number {
  const [fy, fm, fd] = from.split("-").map(Number);
  const [ty, tm, td] = to.split("-").map(Number);
  let months = (ty - fy) * 12 + (tm - fm);
  if (months > 0 && td < fd) months -= 1;
  if (months < 0 && td > fd) months += 1;
  return months;
}

/** `YYYY-MM-DD` plus a number of months (the day clamped to the month's end). */
export function addMonths(day: string, months: number): string {
  // Plain arithmetic: it runs for every asset of a list, where Date objects were a visible cost.
  const total = Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1 + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12 + 1;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const last = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  const date = Math.min(Number(day.slice(8, 10)), last);
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(date).padStart(2, "0")}`;
}

/** Carbon's diffForHumans for a past or future day: "1 year ago", "3 days from now". */
export function age(day: string | null, now = new Date()): string {
  if (!day) return "";
  const then = new Date(`${day.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(then.getTime())) return "";
  return forHumans(then, now);
}

function text(value: unknown): string {
  return escaped((value as string | null) ?? "") ?? "";
}

function holderOf(row: Row, loaded: Loaded) {
  if (row.assigned_to === null || row.assigned_to === undefined) return null;
  const id = Number(row.assigned_to);
  if (row.assigned_type === "user") {
    const user = loaded.users.get(id);
    if (!user) return null;
    return {
      id,
      username: escaped(user.username as string),
      name: escaped(`${user.first_name} ${user.last_name ?? ""}`.trim()),
      first_name: escaped(user.first_name as string),
      last_name: escaped(user.last_name as string | null),
      email: escaped(user.email as string | null),
      employee_number: escaped(user.employee_num as string | null),
      type: "user",
    };
  }
  const names = row.assigned_type === "location" ? loaded.names.holder_location : loaded.names.holder_asset;
  const name = names.get(id);
  return name === undefined ? null : { id, name: escaped(name), type: row.assigned_type };
}

/** Whether the asset may be checked out now: unassigned, not deleted, its label deployable. */
export function availableForCheckout(row: Row, label: Row | undefined): boolean {
  return (
    (row.assigned_to === null || row.assigned_to === undefined) &&
    row.deleted_at === null &&
    label !== undefined &&
    statusType(label) === "deployable"
  );
}

function present(row: Row, loaded: Loaded, caller: Caller, now: number): Record<string, unknown> {
  const model = loaded.models.get(Number(row.model_id));
  const label = loaded.labels.get(Number(row.status_id));
  const assigned = row.assigned_to !== null && row.assigned_to !== undefined;
  const deleted = row.deleted_at !== null;
  const type = label ? statusType(label) : "undeployable";
  const purchased = (row.purchase_date as string | null) ?? null;
  const eolDate = (row.asset_eol_date as string | null) ?? null;
  const warranty = row.warranty_months === null ? null : Number(row.warranty_months);
  const cost = money(row.purchase_cost as string | null);
  const canCheckout = availableForCheckout(row, label);
  const may = (permission: string) => can(caller, `assets.${permission}`);
  return {
    id: row.id,
    name: text(row.name),
    asset_tag: text(row.asset_tag),
    serial: text(row.serial),
    model: model ? { id: Number(model.id), name: escaped(String(model.name)) } : null,
    byod: bool(row.byod as number),
    requestable: bool(row.requestable as number),
    model_number: model ? escaped(model.model_number as string | null) : null,
    eol: eolDate && purchased ? `${monthsBetween(purchased, eolDate)} months` : null,
    asset_eol_date: date(eolDate),
    status_label: label
      ? {
          id: Number(label.id),
          name: escaped(label.name as string),
          status_type: type,
          status_meta: assigned ? "deployed" : type,
        }
      : null,
    category: related(model?.category_id as number | null, loaded.names.category),
    manufacturer: related(model?.manufacturer_id as number | null, loaded.names.manufacturer),
    supplier: related(row.supplier_id as number | null, loaded.names.supplier),
    notes: escaped(row.notes as string | null),
    order_number: escaped(row.order_number as string | null),
    company: related(row.company_id as number | null, loaded.names.company),
    location: related(row.location_id as number | null, loaded.names.location),
    rtd_location: related(row.rtd_location_id as number | null, loaded.names.location),
    image: imageUrl(caller, "assets", row.image),
    assigned_to: holderOf(row, loaded),
    warranty_months: warranty === null ? null : `${warranty} months`,
    warranty_expires: warranty !== null && purchased ? date(addMonths(purchased, warranty)) : null,
    created_by: related(row.created_by as number | null, loaded.names.created_by),
    created_at: datetime(row.created_at as string),
    updated_at: datetime(row.updated_at as string),
    last_audit_date: datetime(row.last_audit_date as string | null),
    next_audit_date: date(row.next_audit_date as string | null),
    deleted_at: datetime(row.deleted_at as string | null),
    purchase_date: date(purchased),
    age: age(purchased, new Date(now)),
    last_checkout: datetime(row.last_checkout as string | null),
    last_checkin: datetime(row.last_checkin as string | null),
    expected_checkin: date(row.expected_checkin as string | null),
    purchase_cost: cost,
    checkin_counter: Number(row.checkin_counter ?? 0),
    checkout_counter: Number(row.checkout_counter ?? 0),
    requests_counter: Number(row.requests_counter ?? 0),
    user_can_checkout: canCheckout,
    book_value: cost,
    custom_fields: loaded.customFields?.get(row.id) ?? {},
    ...(loaded.components ? { components: loaded.components.get(row.id) ?? [] } : {}),
    available_actions: {
      checkout: may("checkout") && canCheckout,
      checkin: may("checkin") && assigned && !deleted,
      clone: may("create"),
      restore: may("delete") && deleted,
      update: may("edit") && !deleted,
      audit: may("audit") && !deleted,
      delete: may("delete") && !assigned && !deleted,
    },
  };
}

const DAY_MS = 86_400_000;

/**
 * What of the time an asset object depends on: its `age`, counted from midnight UTC of its
 * purchase day in seconds rounded (format.ts forHumans). A day or more away it is in units of
 * whole days, so it reads the same from half a second before midnight to half a second before
 * the next for a past day, half a second after for a future one: the key is that day. Nearer, it
 * counts hours, minutes or seconds: the key is the rounded second. Without a purchase date, it
 * never changes. A key per minute for every asset made each kept page render again every minute
 * (1,000 pages of a model list, bench/inventory.ts), and was a minute late for seconds.
 */
export function ageKey(row: Row, now: number): string {
  const then = Date.parse(`${String(row.purchase_date ?? "").slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(then)) return "";
  // Days since 1970 (a past day's and a future one's never meet for one purchase day); seconds.
  const sinceMidnight = Math.floor((now + 500) / DAY_MS);
  if (then <= (sinceMidnight - 1) * DAY_MS) return `d${sinceMidnight}`;
  const untilMidnight = Math.floor((now - 500) / DAY_MS);
  if (then >= (untilMidnight + 2) * DAY_MS) return `d${untilMidnight}`;
  return `s${Math.round(now / 1000)}`;
}

/**
 * What an asset object depends on beyond the rows: what the caller may do and see, the URL images
 * are under, the components asked for; with ageKey, the time.
 */
function answerKey(caller: Caller, options: PresentOptions): string {
  const allowed = ["checkout", "checkin", "create", "delete", "edit", "audit"].map((permission) =>
    can(caller, `assets.${permission}`) ? 1 : 0,
  );
  return `${allowed.join("")}${can(caller, ENCRYPTED_PERMISSION) ? 1 : 0}|${options.components === true}|${caller.rootUrl.href}`;
}

// One asset's answer (GET /hardware/{id}, /hardware/bytag/{tag}) is also kept serialized and
// encoded, as the forge keeps a repository's: rendering was not all of a kept asset's cost,
// serializing its object for every request was the larger part. Kept per row object (a row read
// through keptRows is the same object until a write, and with it all the asset object is made of),
// one per key: a new ageKey replaces the answer rather than adding one.
const assetAnswers = new RowMemo<{ age: string; body: Buffer }>();

/** One asset as its JSON answer's bytes. */
export async function assetAnswer(
  db: AnyKysely,
  caller: Caller,
  row: Row,
  options: PresentOptions = {},
): Promise<Buffer> {
  const key = answerKey(caller, options);
  const age = ageKey(row, Date.now());
  const kept = assetAnswers.find([row], key);
  if (kept?.age === age) return kept.body;
  const [shown] = await presentAssets(db, caller, [row], options);
  const body = Buffer.from(JSON.stringify(shown));
  assetAnswers.keep([row], key, { age, body });
  return body;
}

// A page of the asset list is kept serialized and encoded too, by its rows: a row read through
// keptRows is the same object until a write, so while all of a page's are, everything its asset
// objects are made from (models, labels, holders, names, custom values) is unchanged too. The
// rendered objects are not kept: a page's answer is all a kept page needs, and 60,000 rendered
// assets (each a dozen objects: names, dates, actions) were most of what the garbage collector
// traced (bench/inventory.ts, all lists). It is found by the first row under the total, the last
// row and the caller's key, and holds all its rows and their ageKeys to compare.
const listAnswers = new RowMemo<{ rows: readonly Row[]; ages: readonly string[]; body: Buffer }>();

/** A page of asset rows and the list's total as the list's JSON answer's bytes. */
export async function assetListAnswer(
  db: AnyKysely,
  caller: Caller,
  total: number,
  rows: readonly Row[],
  options: PresentOptions = {},
): Promise<Buffer> {
  if (rows.length === 0) return Buffer.from(JSON.stringify({ total, rows }));
  const key = `${total}|${rows.length}|${rows[rows.length - 1].id}|${answerKey(caller, options)}`;
  const now = Date.now();
  const ages = rows.map((row) => ageKey(row, now));
  const kept = listAnswers.find([rows[0]], key);
  if (kept?.rows.every((row, i) => row === rows[i] && kept.ages[i] === ages[i])) return kept.body;
  const body = Buffer.from(
    JSON.stringify({ total, rows: await presentAssets(db, caller, [...rows], options) }),
  );
  listAnswers.keep([rows[0]], key, { rows, ages, body });
  return body;
}

/** Asset objects for a page of rows. */
export async function presentAssets(
  db: AnyKysely,
  caller: Caller,
  rows: Row[],
  options: PresentOptions = {},
) {
  const now = Date.now();
  const [loaded, components] = await Promise.all([
    load(db, rows),
    options.components ? componentsOf(db, [...new Set(rows.map((row) => row.id))]) : undefined,
  ]);
  const customFields = await customFieldsOf(db, caller, rows, (modelId) => {
    const fieldset = loaded.models.get(modelId)?.fieldset_id;
    return fieldset === null || fieldset === undefined ? null : Number(fieldset);
  });
  return rows.map((row) => present(row, { ...loaded, components, customFields }, caller, now));
}
