import type { InventoryDatabase } from "../../services/database.ts";
import type { Caller } from "../../services/permissions.ts";
import { choicesOf, searchOf } from "../choices.ts";

// The drop-downs of the asset actions' forms, from the pages' one choices module (web/choices.ts).

/** The actions on assets whose forms have drop-downs: the single ones and the bulk ones. */
export type AssetAction = "checkout" | "checkin" | "audit" | "update" | "delete";

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
  // The long lists' searches: whom or which asset a checkout is to.
  const searches = {
    users: searchOf("users", users),
    assets: searchOf("hardware", assets, { assetStatusType: "RTD" }),
  };
  return { users, assets, locations, statuses, searches };
}
