import { escaped } from "../convert/format.ts";
import { type ResourceDefinition, refuseWhileUsed } from "../services/resource.ts";
import { actions, CREATED_BY, recordFields } from "./common.ts";

const COUNTS = ["assets_count", "models_count", "licenses_count"] as const;

/** Depreciation classes (spec §23). */
export const depreciations: ResourceDefinition = {
  table: "depreciations",
  path: "depreciations",
  permission: "depreciations",
  itemType: "depreciation",
  notFound: "Depreciation not found",
  messages: {
    create: "Depreciation class created successfully.",
    update: "Depreciation class updated successfully.",
    delete: "Depreciation class was deleted successfully.",
  },
  rules: {
    name: "required|string|min:3|max:255",
    months: "required|integer|min:1|max:3600",
    depreciation_min: "nullable|numeric|min:0",
    // Not nullable: the column always holds a type (amount unless given).
    depreciation_type: "string|in:amount,percent",
  },
  columns: ["name", "months", "depreciation_min", "depreciation_type"],
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: ["id", "name", "months", "depreciation_min", "created_at", "updated_at", ...COUNTS],
    defaultSort: "created_at",
    search: ["name", "months"],
    filters: { name: "text" },
  },
  relations: CREATED_BY,
  counts: COUNTS,
  checkDelete: refuseWhileUsed(
    ["models_count", "licenses_count"],
    "This depreciation class is currently associated with one or more models and cannot be deleted. Please delete the models, and then try deleting again. ",
  ),
  present: (row, context) => ({
    id: row.id,
    name: escaped(row.name as string),
    months: `${row.months} months`,
    depreciation_min: row.depreciation_min === null ? null : Number(row.depreciation_min),
    type: row.depreciation_type,
    ...context.counts,
    ...recordFields(row, context),
    available_actions: {
      ...actions(context, "depreciations"),
      delete:
        actions(context, "depreciations").delete &&
        !context.counts.models_count &&
        !context.counts.licenses_count,
    },
  }),
};
