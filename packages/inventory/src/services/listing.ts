// Snipe-IT's list parameters (spec §4), read once for every index route. Nothing a client sends
// here is an error: out-of-range values are clamped, unknown sorts fall back to the default. The
// exception is our `after` (keyset paging), which a client walking a table must not get wrong
// silently: a bad one, or one with another order, is refused.

import { type DialectName, Invalid } from "@anvil/core";
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
  /** Keyset paging: only rows with a greater id, in id order; offset 0. */
  after?: number;
}

function integer(value: unknown): number | undefined {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

/**
 * `after` as asked: the rows after this id, in id order, so that a client walks a whole table with
 * a page per request however it changes meanwhile (offsets skip or repeat rows then) and without
 * the database stepping over every row before a deep page. It names the walk's order itself, so
 * another sort, a descending order or an offset beside it is refused rather than ignored.
 */
function keyset(query: Record<string, unknown>): number | undefined {
  if (query.after === undefined) return undefined;
  const refuse = (field: string, message: string): never => {
    throw new Invalid(message, { [field]: [message] });
  };
  const after = integer(query.after);
  if (after === undefined) refuse("after", "The after field must be an integer.");
  if ((after as number) < 0) refuse("after", "The after field must be at least 0.");
  if (query.sort !== undefined && query.sort !== "id")
    refuse("sort", "The sort field must be id when after is given: keyset pages are in id order.");
  if (query.order !== undefined && query.order !== "asc")
    refuse("order", "The order field must be asc when after is given: keyset pages are in id order.");
  if (query.offset !== undefined && integer(query.offset) !== 0)
    refuse("offset", "The offset field cannot be given with after: the next page starts after the last id.");
  return after;
}

/** The list parameters; `keyset`: the list also pages by `after` (listRecords does, with sendList's Link). */
export function listParams(
  query: Record<string, unknown>,
  sorts: { allowed: readonly string[]; default: string; keyset?: boolean },
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
  const after = sorts.keyset ? keyset(query) : undefined;
  if (after !== undefined) return { limit, offset: 0, sort: "id", order: "asc", search, after };
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
