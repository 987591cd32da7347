import { type AnyKysely, dialectOf, type NamedMigration } from "@anvil/core";
import { sql } from "kysely";

// Indexes for the asset list in other orders than the default, and by location (spec §4, §7.1),
// measured by bench/inventory.ts on 100,000 assets. Without them a page sorted by one of these
// columns read and sorted every asset (~40 ms on PostgreSQL), and a location's page sorted all of
// its assets.
//
// - the sortable columns a list is most often sorted by, each with the id after it (the list's
//   tie-break), holding only undeleted assets: a page reads its 50 rows in order and stops. NULLs
//   come first, as the list puts them (MySQL's order): PostgreSQL must be told, SQLite does so;
//   a descending list reads the index backwards;
// - location_id, created_at, id: `location_id=` in the default order. SQLite also needs deleted_at
//   (after location_id, as in 0009's indexes) to count from the index alone; PostgreSQL must not
//   have it there, since it does not take `deleted_at is null` as fixing the column, so it would not
//   read the index in created_at order;
// - each foreign key a list is sorted through, with the id after it (replacing its index alone): a
//   list sorted by the related row's name reads each one's assets in id order (relationPage),
//   where PostgreSQL otherwise walked every asset in id order to find a location's few;
// - status_id, id, of undeleted assets: a list sorted by status label reads each label's assets in
//   id order (services/assets.ts relationPage); and PostgreSQL counts a list without a filter from
//   this small index alone (8 ms for 97,000 assets where reading the table took 20 to 38 ms), when
//   it cannot keep the count (another transaction committed since, core's keptCount).
const SORTED_COLUMNS = [
  "name",
  "asset_tag",
  "serial",
  "order_number",
  "purchase_date",
  "purchase_cost",
  "updated_at",
  "last_checkout",
];
/** Never NULL: the list names no NULLS order for them (services/listing.ts), nor may the index. */
const NEVER_NULL = new Set(["updated_at"]);
/** Foreign keys a list is sorted through (services/assets.ts RELATION_GROUPS), indexed alone before. */
const GROUPED_BY = ["model_id", "location_id", "rtd_location_id", "company_id", "supplier_id"];

export const assetSortIndexes: NamedMigration = {
  name: "0019_asset_sort_indexes",
  async up(db: AnyKysely) {
    const postgres = dialectOf(db) === "postgres";
    const nullsFirst = postgres ? sql` nulls first` : sql``;
    for (const column of SORTED_COLUMNS) {
      const nulls = NEVER_NULL.has(column) ? sql`` : nullsFirst;
      await sql`create index ${sql.id(`assets_sort_${column}`)} on assets (${sql.id(column)}${nulls}, id) where deleted_at is null`.execute(
        db,
      );
    }
    for (const column of GROUPED_BY) {
      await sql`drop index ${sql.id(`assets_${column}`)}`.execute(db);
      await sql`create index ${sql.id(`assets_${column}`)} on assets (${sql.id(column)}, id)`.execute(db);
    }
    const deleted = postgres ? sql`` : sql` deleted_at,`;
    await sql`create index assets_live_location on assets (location_id,${deleted} created_at, id) where deleted_at is null`.execute(
      db,
    );
    await sql`create index assets_live_status_id on assets (status_id, id) where deleted_at is null`.execute(
      db,
    );
  },
};
