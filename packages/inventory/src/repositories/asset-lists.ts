import type { AnyKysely } from "@anvil/core";
import { sql } from "kysely";
import type { Holder } from "../services/holders.ts";
import type { AnySelect, Row } from "./records.ts";

// Conditions that narrow the asset list (services/assets.ts listAssets) to one route's assets, and
// other reads of assets: by one of them, by id, counted per label.

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

/** Assets a user may request: requestable, with a deployable or pending label that is not archived. */
export function requestableAssets(select: AnySelect): AnySelect {
  return select.where("assets.requestable", "=", true).where((eb) =>
    eb(
      "assets.status_id",
      "in",
      eb
        .selectFrom("status_labels")
        .select("status_labels.id")
        .where("status_labels.archived", "=", false)
        .where((label) =>
          label.or([label("status_labels.deployable", "=", true), label("status_labels.pending", "=", true)]),
        ),
    ),
  );
}

/** Whether the asset with this id meets `requestableAssets`. */
export async function isRequestableAsset(db: AnyKysely, id: number): Promise<boolean> {
  const found = await requestableAssets(db.selectFrom("assets").select("assets.id"))
    .where("assets.id", "=", id)
    .executeTakeFirst();
  return found !== undefined;
}

/** The assets with these ids, deleted or not; none for no ids (PostgreSQL refuses an empty `in ()`). */
export async function assetsWithIds(db: AnyKysely, ids: readonly number[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  return (await db.selectFrom("assets").selectAll().where("id", "in", ids).execute()) as Row[];
}

/**
 * How many undeleted assets each label has, checked out or not (`assigned`), of the assets `scope`
 * keeps (the caller's company).
 */
export async function assetCountsPerLabel(db: AnyKysely, scope: (select: AnySelect) => AnySelect) {
  const assigned = sql<number>`case when assets.assigned_to is null then 0 else 1 end`;
  const select = db
    .selectFrom("assets")
    .select(["assets.status_id", assigned.as("assigned"), sql<number>`count(*)`.as("count")])
    .where("assets.deleted_at", "is", null);
  const rows = await scope(select).groupBy(["assets.status_id", assigned]).execute();
  return rows.map((row) => ({
    statusId: Number(row.status_id),
    assigned: Number(row.assigned) === 1,
    count: Number(row.count),
  }));
}
