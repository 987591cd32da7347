import type { AnyKysely } from "@anvil/core";
import type { Expression } from "kysely";
import { type CountSource, countOn, countPerOwner } from "../repositories/counts.ts";
import { inCallersCompany } from "./companies.ts";
import type { Caller } from "./permissions.ts";

// The `*_count` numbers of transformed objects. Each count is the number of undeleted rows of
// another table pointing at the row. Only tables that exist are listed: a count without a source
// is 0 until the wave that adds its table adds its line here (e.g. `assets_count: { table:
// "assets", column: "company_id" }` under companies), and delete refusals built on counts start
// to apply at the same moment.

function assetsThroughModels(column: string): CountSource {
  return { table: "assets", column, via: { table: "models", key: "model_id" } };
}

/** Accessory check-out rows held by one kind of holder. */
function CHECKED_OUT_ACCESSORIES(type: string): CountSource {
  return { table: "accessories_checkout", column: "assigned_to", softDeletes: false, assignedType: type };
}

/** The stock items (spec §15–§18) pointing at a row through `column`. */
function ITEMS_BY(column: string): Record<string, CountSource> {
  return {
    accessories_count: { table: "accessories", column },
    consumables_count: { table: "consumables", column },
    components_count: { table: "components", column },
    licenses_count: { table: "licenses", column },
  };
}

export const COUNT_SOURCES: Readonly<Record<string, Readonly<Record<string, CountSource>>>> = {
  companies: {
    users_count: { table: "users", column: "company_id" },
    assets_count: { table: "assets", column: "company_id" },
    ...ITEMS_BY("company_id"),
  },
  departments: { users_count: { table: "users", column: "department_id" } },
  locations: {
    users_count: { table: "users", column: "location_id" },
    children_count: { table: "locations", column: "parent_id" },
    assets_count: { table: "assets", column: "location_id" },
    rtd_assets_count: { table: "assets", column: "rtd_location_id" },
    assigned_assets_count: { table: "assets", column: "assigned_to", assignedType: "location" },
    accessories_count: { table: "accessories", column: "location_id" },
    assigned_accessories_count: CHECKED_OUT_ACCESSORIES("location"),
  },
  models: { assets_count: { table: "assets", column: "model_id" } },
  status_labels: { assets_count: { table: "assets", column: "status_id" } },
  suppliers: { assets_count: { table: "assets", column: "supplier_id" }, ...ITEMS_BY("supplier_id") },
  categories: {
    models_count: { table: "models", column: "category_id" },
    assets_count: assetsThroughModels("category_id"),
    ...ITEMS_BY("category_id"),
  },
  depreciations: { models_count: { table: "models", column: "depreciation_id" } },
  manufacturers: {
    models_count: { table: "models", column: "manufacturer_id" },
    assets_count: assetsThroughModels("manufacturer_id"),
    ...ITEMS_BY("manufacturer_id"),
  },
  users: {
    manages_users_count: { table: "users", column: "manager_id" },
    manages_locations_count: { table: "locations", column: "manager_id" },
    assets_count: { table: "assets", column: "assigned_to", assignedType: "user" },
    accessories_count: CHECKED_OUT_ACCESSORIES("user"),
    consumables_count: { table: "consumables_users", column: "assigned_to", softDeletes: false },
    licenses_count: { table: "license_seats", column: "assigned_to", softDeletes: false },
  },
  accessories: {
    checkouts_count: { table: "accessories_checkout", column: "accessory_id", softDeletes: false },
  },
  consumables: {
    checkouts_count: { table: "consumables_users", column: "consumable_id", softDeletes: false },
  },
  permission_groups: { users_count: { table: "users_groups", column: "group_id", softDeletes: false } },
};

function sourceOf(resource: string, count: string): CountSource | undefined {
  return COUNT_SOURCES[resource]?.[count];
}

/**
 * The named counts of each row id (0 for counts without a source); of the rows `seenBy` may see
 * when given (spec §6: company scoping applies to counts too).
 */
export async function countsFor(
  db: AnyKysely,
  resource: string,
  names: readonly string[],
  ids: readonly number[],
  seenBy?: Caller,
): Promise<Map<number, Record<string, number>>> {
  const result = new Map<number, Record<string, number>>(
    ids.map((id) => [id, Object.fromEntries(names.map((name) => [name, 0]))]),
  );
  if (ids.length === 0) return result;
  await Promise.all(
    names.map(async (name) => {
      const source = sourceOf(resource, name);
      if (!source) return;
      const rows = await countPerOwner(db, source, ids, (select) =>
        seenBy ? inCallersCompany(select, seenBy, source.table) : select,
      );
      for (const row of rows) {
        const counts = result.get(row.owner);
        if (counts) counts[name] = row.count;
      }
    }),
  );
  return result;
}

/** A count as an SQL expression on `table.id`, to sort by; 0 for counts without a source yet. */
export function countExpression(resource: string, count: string, table: string): Expression<number> {
  return countOn(sourceOf(resource, count), table);
}
