import type { AnyKysely } from "@anvil/core";
import type { AnySelect } from "../repositories/records.ts";
import type { Executor } from "./database.ts";
import { accountIsSuperuser, type Caller } from "./permissions.ts";

// Full multiple companies support (spec §6, Snipe-IT's `full_multiple_companies_support`, off by
// default): a caller who is not a superuser sees, counts and changes only the rows of their own
// company. Snipe-IT compares `company_id = <the user's company>`, which Laravel turns into
// `company_id IS NULL` for a user without one: they see the rows of no company.

/** Tables whose rows belong to a company (Snipe-IT's companyable models). */
const COMPANY_TABLES: ReadonlySet<string> = new Set([
  "assets",
  "accessories",
  "components",
  "consumables",
  "licenses",
  "users",
]);

/** The caller as the API sees them: held to their company when the setting is on and they are not a superuser. */
export function withCompanyScope(caller: Caller, fullMultipleCompaniesSupport: boolean): Caller {
  // Which rows are the account's to see; a token's scopes narrow what it does, not which rows.
  if (!fullMultipleCompaniesSupport || accountIsSuperuser(caller)) return caller;
  const companyId = caller.user.company_id;
  return { ...caller, companyScope: { companyId: companyId === null ? null : Number(companyId) } };
}

/** The company the caller is held to in `table`; undefined when they see every company's rows there. */
export function companyScope(caller: Caller, table: string): { companyId: number | null } | undefined {
  return COMPANY_TABLES.has(table) ? caller.companyScope : undefined;
}

/** A select of `table` narrowed to the rows the caller may see. */
export function inCallersCompany(select: AnySelect, caller: Caller, table: string): AnySelect {
  const scope = companyScope(caller, table);
  if (!scope) return select;
  return scope.companyId === null
    ? select.where(`${table}.company_id`, "is", null)
    : select.where(`${table}.company_id`, "=", scope.companyId);
}

/** Whether the caller may see this row of `table`. */
export function visibleTo(caller: Caller, table: string, row: Record<string, unknown>): boolean {
  const scope = companyScope(caller, table);
  if (!scope) return true;
  const company = row.company_id === null || row.company_id === undefined ? null : Number(row.company_id);
  return company === scope.companyId;
}

/** Whether the caller may see the row of `table` with this id; read only when they are held to a company. */
export async function rowVisibleTo(
  db: Executor,
  caller: Caller,
  table: string,
  id: number,
): Promise<boolean> {
  if (!companyScope(caller, table)) return true;
  const row = await (db as AnyKysely)
    .selectFrom(table)
    .select("company_id")
    .where("id", "=", id)
    .executeTakeFirst();
  return row !== undefined && visibleTo(caller, table, row);
}

/**
 * The company_id a write of `table` stores: the caller's own when they are held to it, whatever
 * they sent (spec §7.4: "with FMCS forced to the caller's company"); else what they sent.
 */
export function companyToStore(caller: Caller, table: string, sent: unknown): unknown {
  const scope = companyScope(caller, table);
  return scope ? scope.companyId : sent;
}
