import type { AnySelect } from "./records.ts";

// Conditions that narrow the asset list (services/assets.ts listAssets) to one route's assets.

/** The assets with this status label. */
export function assetsLabelled(labelId: number): (select: AnySelect) => AnySelect {
  return (select) => select.where("assets.status_id", "=", labelId);
}
