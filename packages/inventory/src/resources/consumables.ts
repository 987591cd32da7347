import { escaped } from "../convert/format.ts";
import { imageUrl } from "../services/images.ts";
import { can } from "../services/permissions.ts";
import type { ResourceDefinition } from "../services/resource.ts";
import { actions, recordFields } from "./common.ts";
import {
  purchase,
  requireCategoryType,
  STOCK_COLUMNS,
  STOCK_FILTERS,
  STOCK_RELATIONS,
  STOCK_RULES,
  STOCK_SORTS,
  stockRelations,
} from "./stock.ts";

/** Consumables (spec §17): given to users and never returned; deletable at any time. */
export const consumables: ResourceDefinition = {
  table: "consumables",
  path: "consumables",
  permission: "consumables",
  itemType: "consumable",
  notFound: "Consumable not found",
  messages: {
    create: "Consumable created successfully.",
    update: "Consumable updated successfully.",
    delete: "Consumable was deleted successfully.",
  },
  rules: {
    name: "required|string|min:3|max:255",
    ...STOCK_RULES,
    qty: "required|integer|min:0|max:99999",
    item_no: "nullable|string|max:255",
    requestable: "boolean",
  },
  columns: [...STOCK_COLUMNS, "item_no", "requestable"],
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: [...STOCK_SORTS, "item_no"],
    defaultSort: "created_at",
    search: ["name", "model_number", "item_no", "order_number", "notes"],
    filters: { ...STOCK_FILTERS, item_no: "text", requestable: "bool" },
  },
  relations: STOCK_RELATIONS,
  counts: ["checkouts_count"],
  prepare: async (context, values) => {
    await requireCategoryType("consumable")(context, values);
    return {};
  },
  present: (row, context) => {
    const remaining = Number(row.qty) - (context.counts.checkouts_count ?? 0);
    const may = actions(context, "consumables", { clone: "create" });
    const { location, manufacturer, supplier, category, company } = stockRelations(row, context);
    return {
      id: row.id,
      name: escaped(row.name as string),
      image: imageUrl(context.caller, "consumables", row.image),
      category,
      company,
      item_no: escaped(row.item_no as string | null),
      location,
      manufacturer,
      supplier,
      min_amt: row.min_amt === null ? null : Number(row.min_amt),
      ...purchase(row),
      remaining,
      qty: Number(row.qty),
      notes: escaped(row.notes as string | null),
      ...recordFields(row, context),
      user_can_checkout: remaining > 0,
      available_actions: {
        checkout: can(context.caller, "consumables.checkout"),
        checkin: false,
        update: may.update,
        delete: may.delete,
        clone: may.clone,
      },
    };
  },
};
