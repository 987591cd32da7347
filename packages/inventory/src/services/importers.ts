import { randomBytes } from "node:crypto";
import { Invalid } from "@anvil/core";
import type { Row } from "../repositories/records.ts";
import { accessories } from "../resources/accessories.ts";
import { assets } from "../resources/assets.ts";
import { categories } from "../resources/categories.ts";
import { companies } from "../resources/companies.ts";
import { components } from "../resources/components.ts";
import { consumables } from "../resources/consumables.ts";
import { departments } from "../resources/departments.ts";
import { licenses } from "../resources/licenses.ts";
import { locations } from "../resources/locations.ts";
import { manufacturers } from "../resources/manufacturers.ts";
import { models } from "../resources/models.ts";
import { statuslabels } from "../resources/statuslabels.ts";
import { suppliers } from "../resources/suppliers.ts";
import { users } from "../resources/users.ts";
import { KnownRows } from "./known-rows.ts";
import { createWithin, type PlannedCreate, type ResourceDefinition, type WriteContext } from "./resource.ts";

// What each import type (spec §21) makes of a CSV row: the API input of its resource, with the
// categories, models, makers, labels, locations, suppliers, companies and people it names by name
// found or created on the fly, all through the resources' own create (validation, activity log).

/** A CSV row as field key → text; empty cells are left out, so an update keeps what they would blank. */
export type ImportRow = Readonly<Record<string, string>>;

/**
 * Thrown while a row is planned for a bulk write (its context has `known` rows) where it would
 * write more than its own record (a category it names, a person it checks out to): such a row
 * runs on its own, in its savepoint.
 */
export class WritesMore extends Error {}

/** What lets an importer write a batch's plain rows together (services/imports.ts). */
export interface BulkImporter {
  /**
   * Reads what the batch's rows name, with one query a table: the records they are about and the
   * ones they name, into the rows known to their plans and the transaction's ids found by name.
   */
  read(context: WriteContext, rows: readonly ImportRow[]): Promise<KnownRows>;
  /** The value (asset tag) by which a row finds its record: a batch plans one row of each at most. */
  key(row: ImportRow): string | undefined;
  /** Whether a planned create has nothing to write beside its row (no custom values, no holder). */
  plain(context: WriteContext, plan: PlannedCreate): boolean;
}

export interface Importer {
  definition: ResourceDefinition;
  /** The record the row is about when it exists already (by asset tag, username or name). */
  existing(context: WriteContext, row: ImportRow): Promise<Row | undefined>;
  /** The input of the row's create or update. */
  input(context: WriteContext, row: ImportRow, existing: Row | undefined): Promise<Record<string, unknown>>;
  /** How error reports name the row. */
  label(row: ImportRow): string | undefined;
  bulk?: BulkImporter;
}

type Input = Record<string, unknown>;

/** Copies the row's fields that are given, renamed (`{item_name: "name"}`), into `input`. */
function copy(input: Input, row: ImportRow, fields: Readonly<Record<string, string>>): Input {
  for (const [from, to] of Object.entries(fields)) if (row[from] !== undefined) input[to] = row[from];
  return input;
}

const YES = new Set(["1", "yes", "y", "true", "on"]);
const NO = new Set(["0", "no", "n", "false", "off"]);

/** A spreadsheet's yes/no as a boolean; other text is left for validation to refuse. */
function flags(input: Input, row: ImportRow, fields: readonly string[]): Input {
  for (const field of fields) {
    const text = row[field]?.toLowerCase();
    if (text !== undefined) input[field] = YES.has(text) ? true : NO.has(text) ? false : row[field];
  }
  return input;
}

/** A price as spreadsheets write it (`$1,234.50`) as a number text; other text is left for validation. */
function cost(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const plain = text.replace(/[^0-9.-]/g, "");
  return /^-?\d+(\.\d+)?$/.test(plain) ? plain : text;
}

/**
 * The undeleted row of `table` whose columns hold `where`, the oldest when several do (an index
 * lists equal keys by id). No ORDER BY, which made SQLite walk the table by id on some plans.
 */
async function rowWhere(context: WriteContext, table: string, where: Record<string, unknown>) {
  return (await undeleted(context, table, where).selectAll().limit(1).executeTakeFirst()) as Row | undefined;
}

function undeleted(context: WriteContext, table: string, where: Record<string, unknown>) {
  let query = context.trx.selectFrom(table).where("deleted_at", "is", null);
  for (const [column, value] of Object.entries(where))
    query = value === null ? query.where(column, "is", null) : query.where(column, "=", value);
  return query;
}

/**
 * Ids found by name, per transaction (an import's batch): hundreds of rows name the same few
 * models and places. Only what was found is kept, never what a row created, which its savepoint
 * may yet undo; a record found stays there, as the rows of an import delete nothing.
 */
const foundIds = new WeakMap<object, Map<string, number>>();

function knownIds(context: WriteContext): Map<string, number> {
  let known = foundIds.get(context.trx);
  if (!known) {
    known = new Map();
    foundIds.set(context.trx, known);
  }
  return known;
}

function nameKey(definition: ResourceDefinition, name: string, where: Record<string, unknown>): string {
  return JSON.stringify([definition.table, name, where]);
}

/**
 * The id of the record named `name` (and matching `where`), created with `extra` when there is
 * none. A refusal to create it is reported under the CSV field that named it.
 */
async function named(
  context: WriteContext,
  field: string,
  definition: ResourceDefinition,
  name: string | undefined,
  where: Record<string, unknown> = {},
  extra: Input = {},
): Promise<number | undefined> {
  if (name === undefined) return undefined;
  const known = knownIds(context);
  const key = nameKey(definition, name, where);
  const cached = known.get(key);
  if (cached !== undefined) return cached;
  // Only the id: the name's partial unique index holds it, so the table itself is not read.
  const found = await undeleted(context, definition.table, { name, ...where })
    .select("id")
    .limit(1)
    .executeTakeFirst();
  if (found) {
    known.set(key, Number(found.id));
    return Number(found.id);
  }
  if (context.known) throw new WritesMore();
  try {
    return (await createWithin(context, definition, { name, ...where, ...extra })).id;
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    const messages = Object.values(error.details).flat();
    throw new Invalid("The given data was invalid.", {
      [field]: messages.length > 0 ? messages : [error.message],
    });
  }
}

function category(context: WriteContext, row: ImportRow, type: string) {
  return named(context, "category", categories, row.category, { category_type: type });
}

/** The common relations of items: company, location, maker, supplier. */
async function relations(context: WriteContext, row: ImportRow, input: Input): Promise<Input> {
  input.company_id = await named(context, "company", companies, row.company);
  input.location_id = await named(context, "location", locations, row.location);
  input.manufacturer_id = await named(context, "manufacturer", manufacturers, row.manufacturer);
  input.supplier_id = await named(context, "supplier", suppliers, row.supplier);
  return withoutUnset(input);
}

function withoutUnset(input: Input): Input {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}

/** First and last name of a row, from its own columns or split from `full name`. */
function personName(row: ImportRow): { first?: string; last?: string } {
  if (row.first_name !== undefined || row.last_name !== undefined)
    return { first: row.first_name, last: row.last_name };
  const full = row.full_name?.trim();
  if (!full) return {};
  const space = full.indexOf(" ");
  return space < 0 ? { first: full } : { first: full.slice(0, space), last: full.slice(space + 1).trim() };
}

/** Snipe-IT's default username format, firstname.lastname, else the e-mail's local part. */
function usernameOf(row: ImportRow): string | undefined {
  if (row.username !== undefined) return row.username;
  const { first, last } = personName(row);
  if (first) return [first, last].filter(Boolean).join(".").toLowerCase().replace(/\s+/g, "");
  return row.email?.split("@")[0];
}

/** A password nobody knows: imported people sign in once one is set for them. */
function unknownPassword(): Input {
  const password = randomBytes(24).toString("base64url");
  return { password, password_confirmation: password };
}

/** The person a row names (username, e-mail or full name), created when there is none. */
async function person(context: WriteContext, row: ImportRow): Promise<number | undefined> {
  const username = usernameOf(row);
  if (username === undefined) return undefined;
  // Found or created, the person is checked out to, a write of its own.
  if (context.known) throw new WritesMore();
  const found =
    (row.username !== undefined ? await rowWhere(context, "users", { username: row.username }) : undefined) ??
    (row.email !== undefined ? await rowWhere(context, "users", { email: row.email }) : undefined) ??
    (await rowWhere(context, "users", { username }));
  if (found) return Number(found.id);
  const { first, last } = personName(row);
  const created = await createWithin(context, users, {
    first_name: first ?? username,
    last_name: last,
    username,
    email: row.email,
    ...unknownPassword(),
  });
  return created.id;
}

const FIRST_DEPLOYABLE = JSON.stringify(["status_labels", "first deployable"]);

/**
 * The first deployable label, for assets whose row names none (spec §21); kept for the
 * transaction once there is one, as rows add labels after it and delete none.
 */
async function firstDeployable(context: WriteContext): Promise<number | undefined> {
  const known = knownIds(context);
  const cached = known.get(FIRST_DEPLOYABLE);
  if (cached !== undefined) return cached;
  const label = await context.trx
    .selectFrom("status_labels")
    .select("id")
    .where("deleted_at", "is", null)
    .where("deployable", "=", true)
    .where("pending", "=", false)
    .where("archived", "=", false)
    .orderBy("id")
    .executeTakeFirst();
  if (label === undefined) return undefined;
  known.set(FIRST_DEPLOYABLE, Number(label.id));
  return Number(label.id);
}

/** The undeleted record of `table` named as the row's item name. */
function byItemName(table: string): Importer["existing"] {
  return async (context, row) =>
    row.item_name === undefined ? undefined : rowWhere(context, table, { name: row.item_name });
}

/** The manager a row names by username; refused when there is no such user. */
async function managerOf(context: WriteContext, row: ImportRow): Promise<number | undefined> {
  if (row.manager_username === undefined) return undefined;
  const manager = await rowWhere(context, "users", { username: row.manager_username });
  if (!manager)
    throw new Invalid("The given data was invalid.", {
      manager_username: ["The selected manager id is invalid."],
    });
  return Number(manager.id);
}

/**
 * Reads the undeleted records of `definition` named in `lookups` (name, and the columns of `where`
 * that must match too), with one query, into `known` by id and into the transaction's ids by name.
 */
async function readNamed(
  context: WriteContext,
  known: KnownRows,
  definition: ResourceDefinition,
  lookups: ReadonlyArray<{ name: string | undefined; where: Record<string, unknown> }>,
): Promise<void> {
  const asked = new Map<string, { name: string; where: Record<string, unknown> }>();
  for (const { name, where } of lookups)
    if (name !== undefined) asked.set(nameKey(definition, name, where), { name, where });
  if (asked.size === 0) return;
  const names = [...new Set([...asked.values()].map((lookup) => lookup.name))];
  const rows = (await undeleted(context, definition.table, {})
    .selectAll()
    .where("name", "in", names)
    .execute()) as Row[];
  known.add(
    definition.table,
    "id",
    rows.map((row) => row.id),
    rows,
  );
  const byName = Map.groupBy(rows, (row) => row.name);
  const ids = knownIds(context);
  for (const [key, { name, where }] of asked) {
    const matches = (byName.get(name) ?? []).filter((row) =>
      Object.entries(where).every(([column, value]) => row[column] === value),
    );
    // Several of one name (models, which no index makes unique): named() asks which, as it would alone.
    if (matches.length === 1) ids.set(key, Number(matches[0].id));
  }
}

const asset: Importer = {
  definition: assets,
  existing: (context, row) => {
    if (row.asset_tag === undefined) return Promise.resolve(undefined);
    const known = context.known?.row("assets", "asset_tag", row.asset_tag);
    return known !== undefined
      ? Promise.resolve(known ?? undefined)
      : rowWhere(context, "assets", { asset_tag: row.asset_tag });
  },
  async input(context, row, existing) {
    const input = copy({}, row, {
      asset_tag: "asset_tag",
      item_name: "name",
      serial: "serial",
      purchase_date: "purchase_date",
      order_number: "order_number",
      notes: "notes",
      warranty_months: "warranty_months",
      asset_eol_date: "asset_eol_date",
      expected_checkin: "expected_checkin",
      next_audit_date: "next_audit_date",
    });
    flags(input, row, ["requestable", "byod"]);
    input.purchase_cost = cost(row.purchase_cost);
    if (row.asset_model !== undefined) {
      const categoryId = await category(context, row, "asset");
      const manufacturerId = await named(context, "manufacturer", manufacturers, row.manufacturer);
      input.model_id = await named(
        context,
        "asset_model",
        models,
        row.asset_model,
        { model_number: row.model_number ?? null },
        withoutUnset({ category_id: categoryId, manufacturer_id: manufacturerId }),
      );
    }
    input.status_id =
      row.status !== undefined
        ? await named(context, "status", statuslabels, row.status, {}, { type: "deployable" })
        : existing
          ? undefined
          : await firstDeployable(context);
    input.company_id = await named(context, "company", companies, row.company);
    input.supplier_id = await named(context, "supplier", suppliers, row.supplier);
    const locationId = await named(context, "location", locations, row.location);
    // A checked-out asset stays where its holder is (given as it is, or a new default location
    // would move it there); the row's location is where it returns to.
    input.location_id = existing && existing.assigned_to !== null ? existing.location_id : locationId;
    input.rtd_location_id = locationId;
    // A row naming a person checks the asset out to them, unless it is out already.
    if (existing?.assigned_to === null || existing === undefined)
      input.assigned_user = await person(context, row);
    return withoutUnset(input);
  },
  label: (row) => row.item_name ?? row.asset_tag,
  bulk: {
    async read(context, rows) {
      const known = new KnownRows();
      const tags = [...new Set(rows.flatMap((row) => (row.asset_tag === undefined ? [] : [row.asset_tag])))];
      const held =
        tags.length === 0
          ? []
          : ((await undeleted(context, "assets", {})
              .selectAll()
              .where("asset_tag", "in", tags)
              .execute()) as Row[]);
      known.add("assets", "asset_tag", tags, held);
      known.add(
        "assets",
        "id",
        held.map((row) => row.id),
        held,
      );
      const by = (field: string, where: (row: ImportRow) => Record<string, unknown> = () => ({})) =>
        rows.map((row) => ({ name: row[field], where: where(row) }));
      await readNamed(
        context,
        known,
        models,
        by("asset_model", (row) => ({ model_number: row.model_number ?? null })),
      );
      await readNamed(
        context,
        known,
        categories,
        by("category", () => ({ category_type: "asset" })),
      );
      await readNamed(context, known, manufacturers, by("manufacturer"));
      await readNamed(context, known, statuslabels, by("status"));
      await readNamed(context, known, companies, by("company"));
      await readNamed(context, known, suppliers, by("supplier"));
      await readNamed(context, known, locations, by("location"));
      return known;
    },
    key: (row) => row.asset_tag,
    // An asset's afterSave stores its model's custom values and checks it out to its holder.
    plain: (context, plan) =>
      plan.values.assigned_user === undefined &&
      context.known?.row("models", "id", plan.values.model_id)?.fieldset_id === null,
  },
};

function stock(definition: ResourceDefinition, type: string, own: Record<string, string>): Importer {
  return {
    definition,
    existing: byItemName(definition.table),
    async input(context, row) {
      const input = copy({}, row, {
        item_name: "name",
        qty: "qty",
        model_number: "model_number",
        order_number: "order_number",
        purchase_date: "purchase_date",
        min_amt: "min_amt",
        notes: "notes",
        ...own,
      });
      if (definition !== components) flags(input, row, ["requestable"]);
      input.purchase_cost = cost(row.purchase_cost);
      input.category_id = await category(context, row, type);
      return relations(context, row, input);
    },
    label: (row) => row.item_name,
  };
}

const license: Importer = {
  definition: licenses,
  existing: byItemName("licenses"),
  async input(context, row) {
    const input = copy({}, row, {
      item_name: "name",
      seats: "seats",
      serial: "serial",
      license_name: "license_name",
      license_email: "license_email",
      order_number: "order_number",
      purchase_order: "purchase_order",
      purchase_date: "purchase_date",
      expiration_date: "expiration_date",
      termination_date: "termination_date",
      min_amt: "min_amt",
      notes: "notes",
    });
    flags(input, row, ["reassignable", "maintained"]);
    input.purchase_cost = cost(row.purchase_cost);
    input.category_id = await category(context, row, "license");
    const { location_id: _location, ...rest } = await relations(context, row, input);
    return rest;
  },
  label: (row) => row.item_name,
};

const user: Importer = {
  definition: users,
  async existing(context, row) {
    const username = usernameOf(row);
    return username === undefined ? undefined : rowWhere(context, "users", { username });
  },
  async input(context, row, existing) {
    const { first, last } = personName(row);
    const input = copy({}, row, {
      email: "email",
      employee_num: "employee_num",
      jobtitle: "jobtitle",
      phone_number: "phone",
      website: "website",
      address: "address",
      city: "city",
      state: "state",
      country: "country",
      zip: "zip",
      notes: "notes",
      start_date: "start_date",
      end_date: "end_date",
    });
    flags(input, row, ["activated", "vip", "remote"]);
    Object.assign(input, { first_name: first, last_name: last, username: usernameOf(row) });
    input.company_id = await named(context, "company", companies, row.company);
    input.location_id = await named(context, "location", locations, row.location);
    input.department_id = await named(context, "department", departments, row.department);
    input.manager_id = await managerOf(context, row);
    return withoutUnset(existing ? input : { ...input, ...unknownPassword() });
  },
  label: (row) => usernameOf(row) ?? row.email,
};

const location: Importer = {
  definition: locations,
  existing: byItemName("locations"),
  async input(context, row) {
    const input = copy({}, row, {
      item_name: "name",
      address: "address",
      address2: "address2",
      city: "city",
      state: "state",
      country: "country",
      zip: "zip",
      phone_number: "phone",
      fax: "fax",
      currency: "currency",
      ldap_ou: "ldap_ou",
      notes: "notes",
    });
    input.parent_id = await named(context, "parent_location", locations, row.parent_location);
    input.company_id = await named(context, "company", companies, row.company);
    input.manager_id = await managerOf(context, row);
    return withoutUnset(input);
  },
  label: (row) => row.item_name,
};

const assetModel: Importer = {
  definition: models,
  existing: (context, row) => {
    const name = row.item_name ?? row.asset_model;
    return name === undefined
      ? Promise.resolve(undefined)
      : rowWhere(context, "models", { name, model_number: row.model_number ?? null });
  },
  async input(context, row) {
    const input = copy({}, row, {
      model_number: "model_number",
      eol: "eol",
      min_amt: "min_amt",
      notes: "notes",
    });
    input.name = row.item_name ?? row.asset_model;
    flags(input, row, ["requestable"]);
    input.category_id = await category(context, row, "asset");
    input.manufacturer_id = await named(context, "manufacturer", manufacturers, row.manufacturer);
    return withoutUnset(input);
  },
  label: (row) => row.item_name ?? row.asset_model,
};

/** The importer of each `import-type`. */
export const IMPORTERS: Readonly<Record<string, Importer>> = {
  asset,
  accessory: stock(accessories, "accessory", {}),
  consumable: stock(consumables, "consumable", { item_number: "item_no" }),
  component: stock(components, "component", { serial: "serial" }),
  license,
  user,
  location,
  assetmodel: assetModel,
};
