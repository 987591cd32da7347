import { Forbidden, NotFound } from "@anvil/core";
import type { InventoryDatabase } from "../services/database.ts";
import { type Caller, UNAUTHORIZED_ACTION } from "../services/permissions.ts";
import {
  categorySource,
  locationSelectlist,
  maySelect,
  PER_PAGE,
  SELECTLISTS,
  type SelectItem,
  type SelectSource,
  selectlist,
} from "../services/selectlists.ts";
import { guard, pageCaller, renderPart, type WebContext } from "./context.ts";

// The choices of every page's drop-downs (issue 20), from the select lists the API serves its web
// UI (GET /api/v1/{list}/selectlist), so a page offers what the API would. Without JavaScript a
// drop-down offers the first pages; a long one has a search beside it, which htmx sends to
// GET /choices/{list} for the matching entries of the same service, as <option>s.

/** At most this many pages of a select list (50 entries each; locations come as one tree of 500). */
const MOST_PAGES = 10;

/**
 * A select list by the path the API serves it under, without `/selectlist`: `users`, `hardware`,
 * `categories/asset`, `locations`.
 */
export type ChoiceList = string;

function sourceOf(list: ChoiceList): SelectSource | "locations" | undefined {
  if (list === "locations") return "locations";
  const category = /^categories\/([a-z]+)$/.exec(list);
  if (category) return categorySource(category[1]);
  return Object.hasOwn(SELECTLISTS, list) ? SELECTLISTS[list] : undefined;
}

/** The entries of a select list (the API's filters in `query`, a search in `search`), its first pages. */
export async function choicesOf(
  database: InventoryDatabase,
  caller: Caller,
  list: ChoiceList,
  query: Record<string, unknown> = {},
  search = "",
): Promise<SelectItem[]> {
  const source = sourceOf(list);
  if (source === undefined) throw new NotFound("Select list not found");
  if (source === "locations")
    return (await locationSelectlist(database, caller, { search, page: 1, query })).results;
  const items: SelectItem[] = [];
  for (let page = 1; page <= MOST_PAGES; page++) {
    const found = await selectlist(database, caller, source, { search, page, query });
    items.push(...found.results);
    if (!found.pagination.more) break;
  }
  return items;
}

/**
 * Where a drop-down's search asks (GET /choices/{list}, with the list's filters), for a long one:
 * a page of its list or more. A shorter list is offered whole, and gets none.
 */
export function searchOf(
  list: ChoiceList,
  items: readonly unknown[],
  query: Record<string, string> = {},
): string | undefined {
  if (items.length < PER_PAGE) return undefined;
  const params = new URLSearchParams(query).toString();
  return `/choices/${list}${params === "" ? "" : `?${params}`}`;
}

/** One query parameter as a string; "" when absent or not a string. */
function textOf(query: Record<string, unknown>, name: string): string {
  return typeof query[name] === "string" ? (query[name] as string) : "";
}

/**
 * GET /choices/{list}?search=…: the matching entries as <option>s, for a drop-down's search.
 * `field` names the drop-down, whose value htmx sends along and which stays selected; `keep` is the
 * stored choice, which the drop-down shows apart and the answer leaves out. Who may ask: as the
 * API's select lists (`view.selectlists`).
 */
export function registerChoicePages(context: WebContext): void {
  const { app, database } = context;
  app.get("/choices/*", { onRequest: guard(context) }, async (request, reply) => {
    const caller = pageCaller(request);
    if (!maySelect(caller)) throw new Forbidden(UNAUTHORIZED_ACTION);
    const list = (request.params as { "*": string })["*"];
    const query = request.query as Record<string, unknown>;
    const field = textOf(query, "field");
    const selected = field === "" ? "" : textOf(query, field);
    const keep = textOf(query, "keep");
    const items = await choicesOf(database, caller, list, query, textOf(query, "search").trim());
    return renderPart(reply, "partials/choices", {
      items: items.filter((item) => String(item.id) !== keep),
      selected,
    });
  });
}
