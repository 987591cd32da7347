import { Conflict } from "@anvil/core";
import { escaped } from "../convert/format.ts";
import { unitsCheckedOut } from "../repositories/stock-checkouts.ts";
import { imageUrl } from "../services/images.ts";
import { can } from "../services/permissions.ts";
import type { ResourceDefinition } from "../services/resource.ts";
import { actions, recordFields } from "./common.ts";
import {
  keepQuantityAbove,
  lockItem,
  purchase,
  requireCategoryType,
  STOCK_COLUMNS,
  STOCK_FILTERS,
  STOCK_RELATIONS,
  STOCK_RULES,
  STOCK_SORTS,
  stockRelations,
} from "./stock.ts";

export const ACCESSORY_IN_USE =
  "This accessory cannot be deleted yet because some items are still checked out.";

/** Accessories (spec §16): each checked-out unit is one accessories_checkout row. */
export const accessories: ResourceDefinition = {
  table: "accessories",
  path: "accessories",
  permission: "accessories",
  itemType: "accessory",
  notFound: "Accessory not found",
  messages: {
    create: "Accessory created successfully.",
    update: "Accessory updated successfully.",
    delete: "Accessory deleted successfully.",
  },
  rules: {
    name: "required|string|min:3|max:255",
    ...STOCK_RULES,
    requestable: "boolean",
  },
  columns: [...STOCK_COLUMNS, "requestable"],
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: [...STOCK_SORTS, "checkouts_count"],
    defaultSort: "created_at",
    search: ["name", "model_number", "order_number", "notes"],
    filters: { ...STOCK_FILTERS, requestable: "bool" },
  },
  relations: STOCK_RELATIONS,
  counts: ["checkouts_count"],
  prepare: async (context, values, before) => {
    await requireCategoryType("accessory")(context, values);
    if (before && values.qty !== undefined) {
      await lockItem(context.trx, context.database.dialect, "accessories", before.id);
      keepQuantityAbove(await unitsCheckedOut(context.trx, "accessory", before.id), values.qty);
    }
    return {};
  },
  checkDelete: async (context, row) => {
    await lockItem(context.trx, context.database.dialect, "accessories", row.id);
    if ((await unitsCheckedOut(context.trx, "accessory", row.id)) > 0) throw new Conflict(ACCESSORY_IN_USE);
  },
  present: (row, context) => {
    const checkouts = context.counts.checkouts_count ?? 0;
    const remaining = Number(row.qty) - checkouts;
    const may = actions(context, "accessories", { clone: "create" });
    return {
      id: row.id,
      name: escaped(row.name as string),
      image: imageUrl(context.caller, "accessories", row.image),
      ...stockRelations(row, context),
      ...purchase(row),
      notes: escaped(row.notes as string | null),
      qty: Number(row.qty),
      min_qty: row.min_amt === null ? null : Number(row.min_amt),
      min_amt: row.min_amt === null ? null : Number(row.min_amt),
      remaining_qty: remaining,
      remaining,
      checkouts_count: checkouts,
      ...recordFields(row, context),
      available_actions: {
        checkout: can(context.caller, "accessories.checkout"),
        checkin: false,
        update: may.update,
        delete: may.delete && checkouts === 0,
        clone: may.clone,
      },
      user_can_checkout: remaining > 0,
    };
  },
};
