import type { AnyKysely } from "@anvil/core";
import { assetsLabelled } from "../repositories/asset-lists.ts";
import { findRecord } from "../repositories/records.ts";
import { statusType } from "../resources/statuslabels.ts";
import { listAssets } from "./assets.ts";
import type { InventoryDatabase } from "./database.ts";
import type { Caller } from "./permissions.ts";

// What status labels say of assets (spec §14): a label's assets, and whether it lets an asset be
// checked out.

/** Snipe-IT's own page size for a label's assets. */
const ASSETLIST_LIMIT = "50";

/** The page of the label's assets the query asks for, whatever the label (archived ones too). */
export function labelAssets(
  database: InventoryDatabase,
  caller: Caller,
  labelId: number,
  query: Record<string, unknown>,
) {
  return listAssets(
    database,
    caller,
    { ...query, limit: query.limit ?? ASSETLIST_LIMIT },
    { narrow: assetsLabelled(Number.isSafeInteger(labelId) ? labelId : 0), everyStatus: true },
  );
}

/** The type of the status label with this id, deleted or not; undefined when there is none. */
export async function labelType(db: AnyKysely, labelId: number) {
  if (!Number.isSafeInteger(labelId)) return undefined;
  const label = await findRecord(db, "status_labels", labelId, { softDeletes: true, trashed: "with" });
  return label && statusType(label);
}
