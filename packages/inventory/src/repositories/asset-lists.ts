import type { Holder } from "./holdings.ts";
import type { AnySelect } from "./records.ts";

// Conditions that narrow the asset list (services/assets.ts listAssets) to one route's assets.

/** The assets with this status label. */
export function assetsLabelled(labelId: number): (select: AnySelect) => AnySelect {
  return (select) => select.where("assets.status_id", "=", labelId);
}

/** The assets whose current location this is. */
export function assetsAt(locationId: number): (select: AnySelect) => AnySelect {
  return (select) => select.where("assets.location_id", "=", locationId);
}

/** The assets checked out to the holder. */
export function assetsAssignedTo(holder: Holder): (select: AnySelect) => AnySelect {
  return (select) =>
    select.where("assets.assigned_type", "=", holder.type).where("assets.assigned_to", "=", holder.id);
}
