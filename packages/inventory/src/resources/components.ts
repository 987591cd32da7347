import { Conflict } from "@anvil/core";
import { escaped } from "../convert/format.ts";
import { unitsCheckedOut } from "../repositories/stock-checkouts.ts";
import type { Executor } from "../services/database.ts";
import { imageUrl } from "../services/images.ts";
import { can } from "../services/permissions.ts";
import type { ResourceDefinition } from "../services/resource.ts";
import { actions, recordFields } from "./common.ts";
import {
  keepQuantityAbove,
  lockItem,
  purchase,
  STOCK_COLUMNS,
  STOCK_FILTERS,
  STOCK_RELATIONS,
  STOCK_RULES,
  STOCK_SORTS,
  stockRelations,
} from "./stock.ts";

const IN_USE = "Some components of this type are still checked out. Please check them in and try again.";

/** Components (spec §15): installed into assets by quantity, one components_assets row per check-out. */
export const components: ResourceDefinition = {
  table: "components",
  path: "components",
  permission: "components",
  itemType: "component",
  notFound: "Component not found",
  messages: {
    create: "Component created successfully.",
    update: "Component updated successfully.",
    delete: "The component was deleted successfully.",
  },
  rules: {
    name: "required|string|min:3|max:191",
    ...STOCK_RULES,
    serial: "nullable|string|max:191",
  },
  columns: [...STOCK_COLUMNS, "serial"],
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: [...STOCK_SORTS, "serial"],
    defaultSort: "created_at",
    search: ["name", "model_number", "serial", "order_number", "notes"],
    filters: { ...STOCK_FILTERS, serial: "text" },
  },
  relations: STOCK_RELATIONS,
  counts: [],
  prepare: async (context, values, before) => {
    if (before && values.qty !== undefined) {
      await lockItem(context.trx, context.database.dialect, "components", before.id);
      keepQuantityAbove(await unitsCheckedOut(context.trx, "component", before.id), values.qty);
    }
    return {};
  },
  checkDelete: async (context, row) => {
    await lockItem(context.trx, context.database.dialect, "components", row.id);
    if ((await unitsCheckedOut(context.trx, "component", row.id)) > 0) throw new Conflict(IN_USE);
  },
  present: async (row, context) => {
    const installed = await unitsCheckedOut(context.db as Executor, "component", row.id);
    const remaining = Number(row.qty) - installed;
    const may = actions(context, "components");
    const { location, category, supplier, manufacturer, company } = stockRelations(row, context);
    const { model_number, order_number, purchase_date, purchase_cost } = purchase(row);
    return {
      id: row.id,
      name: escaped(row.name as string),
      image: imageUrl(context.caller, "components", row.image),
      serial: escaped(row.serial as string | null),
      location,
      qty: Number(row.qty),
      min_amt: row.min_amt === null ? null : Number(row.min_amt),
      category,
      supplier,
      manufacturer,
      model_number,
      order_number,
      purchase_date,
      purchase_cost,
      remaining,
      company,
      notes: escaped(row.notes as string | null),
      ...recordFields(row, context),
      // QUIRK (spec §5): components say 1/0 where every other transformer says true/false.
      user_can_checkout: remaining > 0 ? 1 : 0,
      available_actions: {
        checkout: can(context.caller, "components.checkout"),
        checkin: can(context.caller, "components.checkin"),
        update: may.update,
        delete: may.delete && installed === 0,
      },
    };
  },
};
