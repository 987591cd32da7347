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

/** The actions on assets whose forms have drop-downs: the single ones and the bulk ones. */
export type AssetAction = "checkout" | "checkin" | "audit" | "update" | "delete";

type ChoiceList = "models" | "statuslabels" | "companies" | "users" | "hardware" | "categories" | "locations";

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

/**
 * The drop-downs of an action's form (single or bulk): whom to check out to, where, which label.
 * A checkout offers deployable labels only, and no asset to check out to but those ready to deploy.
 */
export async function actionChoices(database: InventoryDatabase, caller: Caller, action: AssetAction) {
  const needs = (...actions: string[]) => actions.includes(action);
  const [users, assets, locations, statuses] = await Promise.all([
    needs("checkout") ? choicesOf(database, caller, "users") : [],
    needs("checkout") ? choicesOf(database, caller, "hardware", { assetStatusType: "RTD" }) : [],
    needs("checkout", "checkin", "audit", "update") ? choicesOf(database, caller, "locations") : [],
    needs("checkout")
      ? choicesOf(database, caller, "statuslabels", { deployable: "1" })
      : needs("checkin", "update")
        ? choicesOf(database, caller, "statuslabels")
        : [],
  ]);
  return { users, assets, locations, statuses };
}
