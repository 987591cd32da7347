import {
  type AnyKysely,
  Conflict,
  type DialectName,
  hashPassword,
  Invalid,
  isUniqueViolation,
  NotFound,
} from "@anvil/core";
import { type Expression, type SqlBool, sql } from "kysely";
import {
  type AnySelect,
  deleteRecord,
  findRecord,
  insertRecord,
  insertRecords,
  listRecords,
  namesOf,
  type Row,
  type Trashed,
  updateRecord,
} from "../repositories/records.ts";
import { changedFields, logAction, type RequestOrigin } from "./activity.ts";
import { companyScope, companyToStore, inCallersCompany, visibleTo } from "./companies.ts";
import { countExpression, countsFor } from "./counts.ts";
import { type InventoryDatabase, storedNow } from "./database.ts";
import type { KnownRows } from "./known-rows.ts";
import { listParams } from "./listing.ts";
import { recordAction, recordActions } from "./notifications.ts";
import { type Caller, can } from "./permissions.ts";
import { type CustomMessages, hasRule, type Rules, validate } from "./validation.ts";

// One description per simple resource (companies, locations, categories…) drives its routes,
// validation, list, counts, activity log and delete rules, so each resource file says only what
// is its own. The routes are in routes/v1/resource.ts.

/** A column holding another row's id, shown as `{id, name}` and sortable by that name. */
export interface Relation {
  table: string;
  column: string;
}

export type FilterKind = "text" | "id" | "bool" | "date";

/** Everything one resource's rules need while writing. */
export interface WriteContext {
  database: InventoryDatabase;
  /** The transaction the write runs in. */
  trx: AnyKysely;
  caller: Caller;
  origin: RequestOrigin;
  /**
   * Hashes of the input's passwords, by the plain password, made before the transaction opened:
   * scrypt takes a good part of a second, which must not be spent holding SQLite's write lock
   * while other processes wait for it.
   */
  passwordHashes?: ReadonlyMap<string, string>;
  /** Rows a bulk write read up front for this item, which its rules read instead of the database. */
  known?: KnownRows;
}

/** What presenting rows needs: the caller, related names and counts, loaded for the whole page. */
export interface PresentContext {
  caller: Caller;
  names: Record<string, ReadonlyMap<number, string>>;
  counts: Record<string, number>;
  db: AnyKysely;
  /** What the definition's `preload` read for the page, by key then id. */
  preloaded: Record<string, ReadonlyMap<number, unknown>>;
}

export interface ResourceDefinition {
  /** The table, and the key of its counts in COUNT_SOURCES. */
  table: string;
  /** The URL segment under /api/v1. */
  path: string;
  /** Permission prefix: `<permission>.view|create|edit|delete`. */
  permission: string;
  /** Permissions named in full where they are not `<permission>.<level>` (maintenances: assets.edit). */
  gates?: Readonly<Partial<Record<"view" | "create" | "edit" | "delete", string>>>;
  /**
   * Whether the caller may see a row beyond its own company_id (a maintenance belongs to its
   * asset's company); a row they may not see is not found.
   */
  visible?: (db: AnyKysely, caller: Caller, row: Row) => Promise<boolean>;
  /** Short model name in the activity log. */
  itemType: string;
  /** Answer for an id that does not exist (Snipe-IT's `<Model> not found`). */
  notFound: string;
  /** The answer of DELETE for an id that does not exist, where it differs. */
  deleteNotFound?: string;
  /** DELETE finds soft-deleted rows too, for `checkDelete` to refuse in its words (users: `withTrashed`). */
  deleteFindsTrashed?: boolean;
  messages: { create: string; update: string; delete: string };
  /**
   * POST /<path>/{id}/restore, for resources that have it. Snipe-IT puts the message in the payload
   * slot for some of them (spec §2.3): always, only when the row was not deleted, or never.
   */
  restore?: { success: string; notDeleted: string; messageInPayload: "always" | "not-deleted" | "never" };
  rules: Rules;
  /** Rules that replace some of `rules` on create (fields required only then). */
  createRules?: Rules;
  customMessages?: CustomMessages;
  /** Validated fields stored as they are. */
  columns: readonly string[];
  /**
   * The fields whose changes an update's activity entry records (default: `columns`); an
   * allow-list, so that nothing derived (a password's hash) and no secret column (a product key)
   * reaches the log, which `reports.view` reads.
   */
  logged?: readonly string[];
  /** Whether rows are soft-deleted (deleted_at) rather than removed. */
  softDeletes: boolean;
  /** The field named in the answer when the table's unique index refuses a write, and its message. */
  unique: { field: string; message: string };
  list: {
    sorts: readonly string[];
    defaultSort: string;
    search: readonly string[];
    filters: Readonly<Record<string, FilterKind>>;
    /** Which rows a list shows, from its query (e.g. `deleted=true`). */
    trashed?: (query: Record<string, unknown>) => Trashed;
    /** Filters beyond exact column matches (e.g. users' `group_id`). */
    refine?: (select: AnySelect, query: Record<string, unknown>, caller: Caller) => AnySelect;
    /**
     * Columns that only holders of `permission` may search, filter or sort by (a license's
     * product key): for anyone else a list neither finds nor orders rows by them.
     */
    secret?: { columns: readonly string[]; permission: string };
    /** Where else a search term may match: the text of related rows (a maintenance's asset tag). */
    searchRelated?: (dialect: DialectName, term: string, table: string) => Expression<SqlBool>[];
    /** What sort keys that are neither columns, relations nor counts order by (a related row's column). */
    orderBy?: Readonly<Record<string, (table: string) => Expression<unknown>>>;
  };
  relations: Readonly<Record<string, Relation>>;
  counts: readonly string[];
  /** Fields of the input holding a password, hashed before the write's transaction opens. */
  passwordFields?: readonly string[];
  /** Rules beyond the fields': derived columns, cross-field checks. Returns extra column values. */
  prepare?: (
    context: WriteContext,
    values: Record<string, unknown>,
    before: Row | undefined,
  ) => Promise<Record<string, unknown>>;
  /**
   * Further writes of the same transaction once the row is saved (group memberships, an asset's
   * custom values, which `input`, the body as sent, names). What it answers joins an update's
   * changed fields in the activity log.
   */
  afterSave?: (
    context: WriteContext,
    row: Row,
    values: Record<string, unknown>,
    before: Row | undefined,
    input: Readonly<Record<string, unknown>>,
  ) => Promise<void> | Promise<Record<string, { old: unknown; new: unknown }>>;
  /** Throws when the row may not be deleted now. */
  checkDelete?: (context: WriteContext, row: Row, counts: Record<string, number>) => Promise<void>;
  present: (row: Row, context: PresentContext) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /**
   * Related objects presented in full rather than as `{id, name}` (a location's manager), read once
   * for the whole page: by key, then by the related row's id.
   */
  preload?: (
    database: InventoryDatabase,
    caller: Caller,
    rows: Row[],
  ) => Promise<Record<string, ReadonlyMap<number, unknown>>>;
  /** Snipe-IT answers some writes with the stored row rather than the transformed object. */
  rawPayload?: boolean;
  /** Only superusers may use it (groups). */
  superuserOnly?: boolean;
}

/** Refuses a delete while any of `counts` is above zero. */
export function refuseWhileUsed(
  counts: readonly string[],
  message: string,
): ResourceDefinition["checkDelete"] {
  return async (_context, _row, current) => {
    if (counts.some((count) => (current[count] ?? 0) > 0)) throw new Conflict(message);
  };
}

/** A filter's value in the column's type; undefined when no row can have it (`company_id=abc`). */
function filterValue(kind: FilterKind, value: string): unknown {
  if (kind === "bool") return value === "1" || value === "true";
  if (kind === "id") return /^\d+$/.test(value) ? Number(value) : undefined;
  if (kind === "date") return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;
  return value;
}

export async function presentRows(
  database: InventoryDatabase,
  definition: ResourceDefinition,
  caller: Caller,
  rows: Row[],
): Promise<Record<string, unknown>[]> {
  const db = database.db as AnyKysely;
  const names: Record<string, ReadonlyMap<number, string>> = {};
  await Promise.all(
    Object.entries(definition.relations).map(async ([name, relation]) => {
      names[name] = await namesOf(
        db,
        relation.table,
        rows.map((row) => row[relation.column]),
      );
    }),
  );
  const counts = await countsFor(
    db,
    definition.table,
    definition.counts,
    rows.map((row) => row.id),
    caller,
  );
  const preloaded = (await definition.preload?.(database, caller, rows)) ?? {};
  return Promise.all(
    rows.map((row) =>
      definition.present(row, { caller, names, counts: counts.get(row.id) ?? {}, db, preloaded }),
    ),
  );
}

export async function listResource(
  database: InventoryDatabase,
  definition: ResourceDefinition,
  caller: Caller,
  query: Record<string, unknown>,
) {
  const { list, table } = definition;
  const hidden = list.secret && !can(caller, list.secret.permission) ? list.secret.columns : [];
  const visible = (column: string) => !hidden.includes(column);
  const params = listParams(query, {
    allowed: list.sorts.filter(visible),
    default: list.defaultSort,
    keyset: true,
  });
  const filters: Record<string, unknown> = {};
  let matchesNothing = false;
  for (const [column, kind] of Object.entries(list.filters)) {
    if (!visible(column)) continue;
    const value = query[column];
    if (typeof value !== "string" || value === "") continue;
    filters[column] = filterValue(kind, value);
    matchesNothing ||= filters[column] === undefined;
  }
  const page = await listRecords(
    database.db as AnyKysely,
    database.dialect,
    {
      table,
      softDeletes: definition.softDeletes,
      trashed: list.trashed?.(query) ?? "without",
      searchColumns: list.search.filter(visible),
      searchElsewhere:
        list.searchRelated && ((term) => list.searchRelated?.(database.dialect, term, table) ?? []),
      filters,
      matchesNothing,
      refine: (select) => inCallersCompany(list.refine?.(select, query, caller) ?? select, caller, table),
      sortExpression: (sort) => {
        const relation = definition.relations[sort];
        if (relation) return relationName(relation, table);
        if (definition.counts.includes(sort)) return countExpression(table, sort, table);
        return list.orderBy?.[sort]?.(table);
      },
    },
    params,
  );
  const rows = await presentRows(database, definition, caller, page.rows);
  return { total: page.total, rows, params, next: page.next };
}

/** The related row's name as an SQL expression, to sort by. */
function relationName(relation: Relation, table: string) {
  const name = relation.table === "users" ? sql`related.first_name` : sql`related.name`;
  return sql`(select ${name} from ${sql.table(relation.table)} as related where related.id = ${sql.ref(
    `${table}.${relation.column}`,
  )})`;
}

/**
 * The row with this id; not found too when it belongs to a company the caller is held away from,
 * or when it is soft-deleted, as Snipe-IT's `findOrFail` answers, unless the route reads deleted
 * rows on purpose (`trashed: "with"`: a restore, a deleted user's licenses).
 */
export async function findResource(
  database: InventoryDatabase,
  definition: ResourceDefinition,
  id: number,
  db: AnyKysely = database.db as AnyKysely,
  caller?: Caller,
  trashed: "with" | "without" = "without",
  known?: KnownRows,
): Promise<Row> {
  const kept = trashed === "without" ? known?.row(definition.table, "id", id) : undefined;
  const row =
    kept !== undefined
      ? (kept ?? undefined)
      : Number.isSafeInteger(id)
        ? await findRecord(db, definition.table, id, { softDeletes: definition.softDeletes, trashed })
        : undefined;
  if (!row || (caller && !visibleTo(caller, definition.table, row))) throw new NotFound(definition.notFound);
  if (caller && definition.visible && !(await definition.visible(db, caller, row)))
    throw new NotFound(definition.notFound);
  return row;
}

/** Runs a write in one transaction, answering a unique-index refusal as the field's message. */
async function inTransaction<T>(
  database: InventoryDatabase,
  definition: ResourceDefinition,
  work: (trx: AnyKysely) => Promise<T>,
): Promise<T> {
  try {
    return await (database.db as AnyKysely).transaction().execute(work);
  } catch (error) {
    throw duplicateAsInvalid(definition, error);
  }
}

/** A unique index's refusal as the resource's field message; any other error as it is. */
export function duplicateAsInvalid(definition: ResourceDefinition, error: unknown): unknown {
  return isUniqueViolation(error)
    ? new Invalid("The given data was invalid.", { [definition.unique.field]: [definition.unique.message] })
    : error;
}

/** The validated values the row stores; a caller held to their company writes rows of it only. */
function stored(
  definition: ResourceDefinition,
  caller: Caller,
  values: Record<string, unknown>,
  creating: boolean,
): Record<string, unknown> {
  const row = Object.fromEntries(
    Object.entries(values).filter(([field]) => definition.columns.includes(field)),
  );
  const { table } = definition;
  if (companyScope(caller, table) && (creating || "company_id" in row))
    row.company_id = companyToStore(caller, table, row.company_id);
  return row;
}

/**
 * Column values the server sets rather than the client, written with the validated input (the
 * stored name of an uploaded image).
 */
export type ServerColumns = Record<string, unknown>;

/** The passwords of `input` hashed, by plain password (see WriteContext.passwordHashes). */
async function hashPasswordsOf(
  definition: ResourceDefinition,
  input: Record<string, unknown>,
): Promise<ReadonlyMap<string, string>> {
  const hashes = new Map<string, string>();
  for (const field of definition.passwordFields ?? []) {
    const plain = input[field];
    if (typeof plain === "string" && !hashes.has(plain)) hashes.set(plain, await hashPassword(plain));
  }
  return hashes;
}

export async function createResource(
  database: InventoryDatabase,
  definition: ResourceDefinition,
  caller: Caller,
  origin: RequestOrigin,
  input: Record<string, unknown>,
  server: ServerColumns = {},
): Promise<Row> {
  const passwordHashes = await hashPasswordsOf(definition, input);
  return inTransaction(database, definition, (trx) =>
    createWithin({ database, trx, caller, origin, passwordHashes }, definition, input, server),
  );
}

/** What a create would store, worked out (validated, prepared) before anything is written. */
export interface PlannedCreate {
  /** The validated input. */
  values: Record<string, unknown>;
  /** The row to insert. */
  columns: Record<string, unknown>;
}

export async function planCreate(
  context: WriteContext,
  definition: ResourceDefinition,
  input: Record<string, unknown>,
  server: ServerColumns = {},
): Promise<PlannedCreate> {
  const { database, trx, caller } = context;
  const rules = { ...definition.rules, ...definition.createRules };
  const values = await validate(trx, input, rules, definition.customMessages, context.known);
  const extra = (await definition.prepare?.(context, values, undefined)) ?? {};
  const now = storedNow(database.dialect);
  const columns = {
    ...stored(definition, caller, values, true),
    ...extra,
    ...server,
    created_by: caller.user.id,
    created_at: now,
    updated_at: now,
  };
  return { values, columns };
}

/** A create inside the caller's transaction (an import row writes several records at once). */
export async function createWithin(
  context: WriteContext,
  definition: ResourceDefinition,
  input: Record<string, unknown>,
  server: ServerColumns = {},
): Promise<Row> {
  const { values, columns } = await planCreate(context, definition, input, server);
  const row = await insertRecord(context.trx, definition.table, columns);
  await definition.afterSave?.(context, row, values, undefined, input);
  await recordAction(context, { actionType: "create", item: { type: definition.itemType, id: row.id } });
  return row;
}

/**
 * Planned creates written together: one INSERT for the rows naming the same columns (a row that
 * leaves a column out gets the table's default, which only leaving it out gives on both
 * databases), one for their activity entries (one a row, with its deliveries, when anyone
 * hears of creates). Only for creates whose `afterSave` has nothing to do (the caller knows it:
 * an asset without custom fields or holder).
 * The rows come back in id order; rows of one group of columns have ids in the order given.
 */
export async function createPlannedWithin(
  context: WriteContext,
  definition: ResourceDefinition,
  planned: readonly PlannedCreate[],
): Promise<Row[]> {
  const groups = Map.groupBy(planned, (plan) => Object.keys(plan.columns).sort().join(","));
  const rows: Row[] = [];
  for (const group of groups.values())
    rows.push(
      ...(await insertRecords(
        context.trx,
        definition.table,
        group.map((plan) => plan.columns),
      )),
    );
  rows.sort((a, b) => Number(a.id) - Number(b.id));
  await recordActions(
    context,
    `${definition.itemType}.create`,
    rows.map((row) => ({ actionType: "create", item: { type: definition.itemType, id: row.id } })),
  );
  return rows;
}

export async function updateResource(
  database: InventoryDatabase,
  definition: ResourceDefinition,
  caller: Caller,
  origin: RequestOrigin,
  id: number,
  input: Record<string, unknown>,
  server: ServerColumns = {},
): Promise<Row> {
  const passwordHashes = await hashPasswordsOf(definition, input);
  return inTransaction(database, definition, (trx) =>
    updateWithin({ database, trx, caller, origin, passwordHashes }, definition, id, input, server),
  );
}

/** What an update would store, worked out (validated, prepared) before anything is written. */
export interface PlannedUpdate {
  before: Row;
  sent: Record<string, unknown>;
  changes: Record<string, unknown>;
}

export async function planUpdate(
  context: WriteContext,
  definition: ResourceDefinition,
  id: number,
  input: Record<string, unknown>,
  server: ServerColumns,
): Promise<PlannedUpdate> {
  const { database, trx, caller } = context;
  const before = await findResource(database, definition, id, trx, caller, "without", context.known);
  // Laravel validates the model as it would be saved: what is stored, overlaid with the input. A
  // required field stored in a form of its own (a category's type) keeps its stored value too.
  const kept = Object.keys(definition.rules).filter(
    (field) => field in before && hasRule(definition.rules[field], "required"),
  );
  const current = Object.fromEntries(
    [...definition.columns, ...kept].map((column) => [column, before[column]]),
  );
  const merged = { ...current, ...input };
  const values = await validate(trx, merged, definition.rules, definition.customMessages, context.known);
  const sent = Object.fromEntries(Object.entries(values).filter(([field]) => field in input));
  const extra = (await definition.prepare?.(context, sent, before)) ?? {};
  return { before, sent, changes: { ...stored(definition, caller, sent, false), ...extra, ...server } };
}

async function writeUpdate(
  context: WriteContext,
  definition: ResourceDefinition,
  id: number,
  input: Record<string, unknown>,
  { before, sent, changes }: PlannedUpdate,
): Promise<Row> {
  const { database, trx } = context;
  const logged = definition.logged ?? definition.columns;
  const meta = changedFields(
    before,
    Object.fromEntries(Object.entries(changes).filter(([field]) => logged.includes(field))),
  );
  const row = await updateRecord(trx, definition.table, id, {
    ...changes,
    updated_at: storedNow(database.dialect),
  });
  const saved = await definition.afterSave?.(context, row, sent, before, input);
  const changed = { ...meta, ...saved };
  await recordAction(context, {
    actionType: "update",
    item: { type: definition.itemType, id },
    meta: changed,
  });
  return row;
}

/** An update inside the caller's transaction. */
export async function updateWithin(
  context: WriteContext,
  definition: ResourceDefinition,
  id: number,
  input: Record<string, unknown>,
  server: ServerColumns = {},
): Promise<Row> {
  return writeUpdate(
    context,
    definition,
    id,
    input,
    await planUpdate(context, definition, id, input, server),
  );
}

/**
 * An update inside the caller's transaction that writes nothing (no new updated_at, no activity
 * entry) when the input only repeats what the row stores: every field is a column of the row and
 * each stored value, once validated and prepared, equals the one there. An input with anything
 * else (a check-out, custom values, a password) is always written. Undefined when unchanged.
 */
export async function updateChangedWithin(
  context: WriteContext,
  definition: ResourceDefinition,
  id: number,
  input: Record<string, unknown>,
): Promise<Row | undefined> {
  const plan = await planUpdate(context, definition, id, input, {});
  if (changesNothing(definition, input, plan)) return undefined;
  return writeUpdate(context, definition, id, input, plan);
}

/** Whether a planned update only repeats what the row stores (see updateChangedWithin). */
export function changesNothing(
  definition: ResourceDefinition,
  input: Record<string, unknown>,
  plan: PlannedUpdate,
): boolean {
  const columnsOnly = Object.keys(input).every((field) => definition.columns.includes(field));
  return (
    columnsOnly &&
    Object.values(changedFields(plan.before, plan.changes)).every((change) =>
      sameNumber(change.old, change.new),
    )
  );
}

/**
 * Whether a stored number (a numeric column reads back as one on both databases) equals the
 * text given for it: a price stored as 1299.5 is what `1299.50` gives again.
 */
function sameNumber(stored: unknown, given: unknown): boolean {
  return (
    typeof stored === "number" && typeof given === "string" && given.trim() !== "" && Number(given) === stored
  );
}

export async function deleteResource(
  database: InventoryDatabase,
  definition: ResourceDefinition,
  caller: Caller,
  origin: RequestOrigin,
  id: number,
): Promise<void> {
  await inTransaction(database, definition, async (trx) => {
    const context: WriteContext = { database, trx, caller, origin };
    const trashed = definition.deleteFindsTrashed ? "with" : "without";
    const row = await findResource(database, definition, id, trx, caller, trashed).catch((error) => {
      throw definition.deleteNotFound && error instanceof NotFound
        ? new NotFound(definition.deleteNotFound)
        : error;
    });
    const counts = (await countsFor(trx, definition.table, definition.counts, [id])).get(id) ?? {};
    await definition.checkDelete?.(context, row, counts);
    if (definition.softDeletes) {
      await updateRecord(trx, definition.table, id, { deleted_at: storedNow(database.dialect) });
    } else await deleteRecord(trx, definition.table, id);
    await logAction(trx, database.dialect, {
      createdBy: caller.user.id,
      actionType: "delete",
      item: { type: definition.itemType, id },
      origin,
    });
  });
}

/** Undeletes a row; false when it was not deleted. */
export async function restoreResource(
  database: InventoryDatabase,
  definition: ResourceDefinition,
  caller: Caller,
  origin: RequestOrigin,
  id: number,
): Promise<boolean> {
  return inTransaction(database, definition, async (trx) => {
    const row = await findResource(database, definition, id, trx, caller, "with");
    if (row.deleted_at === null) return false;
    await updateRecord(trx, definition.table, id, {
      deleted_at: null,
      updated_at: storedNow(database.dialect),
    });
    await logAction(trx, database.dialect, {
      createdBy: caller.user.id,
      actionType: "restore",
      item: { type: definition.itemType, id },
      origin,
    });
    return true;
  });
}
