// Snipe-IT's list parameters (spec §4), read once for every index route. Nothing a client sends
// here is an error: out-of-range values are clamped, unknown sorts fall back to the default.

import type { DialectName } from "@anvil/core";
import type { OrderByModifiers } from "kysely";

export const MAX_RESULTS = 500;

/**
 * Every table's id and record timestamps are NOT NULL: naming NULLS FIRST/LAST for them would
 * change nothing but keep PostgreSQL from reading their index in order.
 */
const NEVER_NULL = new Set(["id", "created_at", "updated_at"]);

export interface ListParams {
  limit: number;
  /** As asked; the repository clamps it to the total. */
  offset: number;
  sort: string;
  order: "asc" | "desc";
  /** Alternative search terms (the literal " OR " separates them); empty for no search. */
  search: string[];
}

function integer(value: unknown): number | undefined {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

export function listParams(
  query: Record<string, unknown>,
  sorts: { allowed: readonly string[]; default: string },
): ListParams {
  const asked = Math.abs(integer(query.limit) ?? 0);
  const limit = asked === 0 ? MAX_RESULTS : Math.min(asked, MAX_RESULTS);
  const offset = Math.max(0, integer(query.offset) ?? 0);
  const sort =
    typeof query.sort === "string" && sorts.allowed.includes(query.sort) ? query.sort : sorts.default;
  const order = query.order === "asc" ? "asc" : "desc";
  const search =
    typeof query.search === "string"
      ? query.search
          .split(" OR ")
          .map((term) => term.trim())
          .filter((term) => term !== "")
      : [];
  return { limit, offset, sort, order, search };
}

/**
 * The direction of a list's sort, with NULLs where Snipe-IT's MySQL puts them: below every value,
 * so first ascending and last descending. SQLite does the same by itself; PostgreSQL does the
 * opposite unless told.
 */
export function sortModifiers(dialect: DialectName, order: "asc" | "desc", sort: string): OrderByModifiers {
  if (dialect !== "postgres" || NEVER_NULL.has(sort)) return order;
  return (item) => (order === "asc" ? item.asc().nullsFirst() : item.desc().nullsLast());
}
