import type { AnyKysely, NamedMigration } from "@anvil/core";
import { type SqlBool, sql } from "kysely";

// Indexes for the asset list (spec §7.1), measured by bench/inventory.ts on 100,000 assets. A page
// is its total (a count of every matching asset) and 50 rows in created_at order, the default;
// without these, both read the whole table and sorted it for every page (~0.5 s a page).
//
// Each index holds only undeleted assets, as every list but ?status=deleted asks, and ends with
// the sort (created_at, id), so a page is read in order and stops after its rows:
// - created_at, id, status_id: the list without a filter, which hides archived labels; the label
//   is in the index, so a deep offset skips its rows without reading them (~8 ms for 90,000);
// - status_id, deleted_at, …: `status_id=`, and the counts of both (deleted_at makes the count
//   read the index alone on SQLite, which does not count a partial index's condition as covered);
// - model_id, deleted_at, …: `model_id=`, and a model's assets_count.
export const listIndexes: NamedMigration = {
  name: "0009_list_indexes",
  async up(db: AnyKysely) {
    const live = sql<SqlBool>`deleted_at is null`;
    const indexes: [string, string[]][] = [
      ["assets_live_created_at", ["created_at", "id", "status_id"]],
      ["assets_live_status", ["status_id", "deleted_at", "created_at", "id"]],
      ["assets_live_model", ["model_id", "deleted_at", "created_at", "id"]],
    ];
    for (const [name, columns] of indexes)
      await db.schema.createIndex(name).on("assets").columns(columns).where(live).execute();
  },
};
