import { escaped } from "../convert/format.ts";
import { can } from "../services/permissions.ts";
import type { ResourceDefinition } from "../services/resource.ts";
import { actions } from "./common.ts";

/**
 * Predefined kits (Snipe-IT's PredefinedKit): a named set of models, licenses, accessories and
 * consumables checked out to a user at once. What a kit holds is services/kits.ts.
 */
export const kits: ResourceDefinition = {
  table: "kits",
  path: "kits",
  permission: "kits",
  itemType: "kit",
  notFound: "PredefinedKit not found",
  messages: {
    create: "Kit was successfully created.",
    update: "Kit was successfully updated.",
    delete: "Kit was successfully deleted.",
  },
  rules: { name: "required|string|min:1|max:255" },
  columns: ["name"],
  softDeletes: false,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: ["id", "name", "created_at", "updated_at"],
    defaultSort: "created_at",
    search: ["name"],
    filters: { name: "text" },
  },
  relations: {},
  counts: [],
  rawPayload: true,
  present: (row, context) => ({
    id: row.id,
    name: escaped(row.name as string),
    user_can_checkout: true,
    available_actions: {
      ...actions(context, "kits"),
      // What Snipe-IT asks before a kit's check-out page.
      checkout: can(context.caller, "assets.checkout"),
    },
  }),
};
