import type { InventoryDatabase } from "../../services/database.ts";
import type { Caller } from "../../services/permissions.ts";
import {
  categorySource,
  locationSelectlist,
  SELECTLISTS,
  type SelectItem,
  selectlist,
} from "../../services/selectlists.ts";

// The choices of the asset pages' drop-downs (models, labels, locations…), from the select lists
// the API serves its web UI (GET /api/v1/{resource}/selectlist), so a page offers what the API
// would. A page without JavaScript cannot search as select2 does: it offers the first pages.

/** At most this many pages of a select list (50 entries each; locations come as one tree of 500). */
const MOST_PAGES = 10;

export type ChoiceList =
  | "models"
  | "statuslabels"
  | "companies"
  | "users"
  | "hardware"
  | "categories"
  | "locations";

export async function choicesOf(
  database: InventoryDatabase,
  caller: Caller,
  list: ChoiceList,
  query: Record<string, unknown> = {},
): Promise<SelectItem[]> {
  if (list === "locations")
    return (await locationSelectlist(database, caller, { search: "", page: 1, query })).results;
  const source = list === "categories" ? categorySource("asset") : SELECTLISTS[list];
  const items: SelectItem[] = [];
  for (let page = 1; page <= MOST_PAGES; page++) {
    const found = await selectlist(database, caller, source, { search: "", page, query });
    items.push(...found.results);
    if (!found.pagination.more) break;
  }
  return items;
}
