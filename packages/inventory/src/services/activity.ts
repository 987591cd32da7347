import type { DialectName } from "@anvil/core";
import type { Insertable } from "kysely";
import { insertLogEntries, insertLogEntry } from "../repositories/action-logs.ts";
import type { AnyExpressionBuilder, AnySelect } from "../repositories/records.ts";
import type { ActionLogTable } from "../schemas/tables.ts";
import { companyScope, inCallersCompany } from "./companies.ts";
import { type Executor, storedNow } from "./database.ts";
import type { Caller } from "./permissions.ts";

// The activity log (Snipe-IT's action_logs): every write appends one entry, through the same
// transaction as the write, so a write that fails leaves no entry and an entry never lacks its write.

/** Where a request came from, for the entry's remote_ip, user_agent and action_source. */
export interface RequestOrigin {
  remoteIp?: string;
  userAgent?: string;
}

export interface ActionEntry {
  /** The acting user. */
  createdBy: number | null;
  /** Snipe-IT's raw action type: create, update, delete, restore, checkout, checkin from, audit… */
  actionType: string;
  /** Short model name of the item (`company`, `location`, `asset`…) and its id. */
  item?: { type: string; id: number };
  target?: { type: string; id: number };
  note?: string | null;
  /** Changed fields of an update: {field: {old, new}}. */
  meta?: Record<string, { old: unknown; new: unknown }>;
  locationId?: number | null;
  origin?: RequestOrigin;
  /** The stored file of an "uploaded" entry. */
  filename?: string;
}

function actionRow(now: string | Date, entry: ActionEntry): Insertable<ActionLogTable> {
  return {
    created_by: entry.createdBy,
    action_type: entry.actionType,
    item_type: entry.item?.type ?? null,
    item_id: entry.item?.id ?? null,
    target_type: entry.target?.type ?? null,
    target_id: entry.target?.id ?? null,
    note: entry.note ?? null,
    log_meta: entry.meta && Object.keys(entry.meta).length > 0 ? JSON.stringify(entry.meta) : null,
    location_id: entry.locationId ?? null,
    remote_ip: entry.origin?.remoteIp ?? null,
    user_agent: entry.origin?.userAgent ?? null,
    action_source: "api",
    filename: entry.filename ?? null,
    action_date: now,
    created_at: now,
    updated_at: now,
  };
}

export async function logAction(trx: Executor, dialect: DialectName, entry: ActionEntry): Promise<void> {
  await insertLogEntry(trx, actionRow(storedNow(dialect), entry));
}

/** Entries of many writes at once (an import's batch), in the order given. */
export async function logActions(
  trx: Executor,
  dialect: DialectName,
  entries: readonly ActionEntry[],
): Promise<void> {
  const now = storedNow(dialect);
  await insertLogEntries(
    trx,
    entries.map((entry) => actionRow(now, entry)),
  );
}

function comparable(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "boolean") return value ? 1 : 0;
  return value ?? null;
}

/** The fields whose value an update changes, as log_meta records them. */
export function changedFields(
  before: Record<string, unknown>,
  changes: Record<string, unknown>,
): Record<string, { old: unknown; new: unknown }> {
  const meta: Record<string, { old: unknown; new: unknown }> = {};
  for (const [field, value] of Object.entries(changes)) {
    if (field === "updated_at") continue;
    const old = before[field];
    if (String(comparable(old)) !== String(comparable(value)))
      meta[field] = { old: comparable(old), new: comparable(value) };
  }
  return meta;
}

/** The table of each item type the log names, to show the item's name; waves add their types. */
export const ITEM_TABLES: Readonly<Record<string, string>> = {
  company: "companies",
  department: "departments",
  location: "locations",
  manufacturer: "manufacturers",
  supplier: "suppliers",
  category: "categories",
  statuslabel: "status_labels",
  depreciation: "depreciations",
  assetmodel: "models",
  group: "permission_groups",
  user: "users",
  asset: "assets",
  accessory: "accessories",
  consumable: "consumables",
  component: "components",
  license: "licenses",
  kit: "kits",
};

/** How the report names an action type (spec §22): lower-cased display labels. */
export function actionLabel(actionType: string): string {
  return actionType === "create" ? "create new" : actionType;
}

/**
 * Log entries the caller may read: under full multiple companies support, none whose item or
 * target is a row of another company (an asset, a user, a license…), as the lists hide those rows.
 */
export function entriesInCallersCompany(select: AnySelect, caller: Caller): AnySelect {
  let scoped = select;
  for (const [type, table] of Object.entries(ITEM_TABLES)) {
    if (!companyScope(caller, table)) continue;
    for (const side of ["item", "target"] as const)
      scoped = scoped.where((eb: AnyExpressionBuilder) =>
        eb.or([
          eb(`action_logs.${side}_type`, "is", null),
          eb(`action_logs.${side}_type`, "!=", type),
          eb(
            `action_logs.${side}_id`,
            "in",
            inCallersCompany(eb.selectFrom(table).select(`${table}.id`), caller, table),
          ),
        ]),
      );
  }
  return scoped;
}
