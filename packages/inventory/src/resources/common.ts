import { datetime, escaped, related } from "../convert/format.ts";
import type { Row } from "../repositories/records.ts";
import { availableActions } from "../services/permissions.ts";
import type { PresentContext, Relation } from "../services/resource.ts";

// Pieces every resource's definition shares.

export const CREATED_BY: Record<string, Relation> = { created_by: { table: "users", column: "created_by" } };

/** Laravel's address rules, as suppliers and locations declare them (spec §11, §12). */
export const ADDRESS_RULES = {
  address: "nullable|string|max:250",
  address2: "nullable|string|max:250",
  city: "nullable|string|max:191",
  state: "nullable|string|min:2|max:191",
  country: "nullable|string|min:2|max:191",
  zip: "nullable|string|max:10",
  phone: "nullable|string|min:7|max:35",
  fax: "nullable|string|min:7|max:35",
} as const;

export const ADDRESS_COLUMNS = Object.keys(ADDRESS_RULES);

/** The free-text columns of a row, HTML-escaped as Snipe-IT prints them. */
export function texts(row: Row, columns: readonly string[]): Record<string, string | null> {
  return Object.fromEntries(columns.map((column) => [column, escaped(row[column] as string | null)]));
}

/** created_by, created_at and updated_at as every transformer ends. */
export function recordFields(row: Row, context: PresentContext) {
  return {
    created_by: related(row.created_by as number | null, context.names.created_by ?? new Map()),
    created_at: datetime(row.created_at as string | Date),
    updated_at: datetime(row.updated_at as string | Date),
  };
}

/** `{update, delete}` (plus restore/clone where given) from the caller's permissions on the resource. */
export function actions(
  context: PresentContext,
  permission: string,
  extra: Readonly<Record<string, "view" | "create" | "edit" | "delete">> = {},
) {
  return availableActions(context.caller, permission, { update: "edit", delete: "delete", ...extra });
}
