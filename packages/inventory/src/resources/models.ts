import { Invalid } from "@anvil/core";
import { bool, datetime, escaped, related } from "../convert/format.ts";
import { defaultFieldsetValues, saveModelDefaults } from "../services/custom-values.ts";
import { imageUrl } from "../services/images.ts";
import { type ResourceDefinition, refuseWhileUsed } from "../services/resource.ts";
import { actions, CREATED_BY, recordFields } from "./common.ts";

/** Asset models (spec §8): write payloads are the stored row, as upstream keeps them. */
export const models: ResourceDefinition = {
  table: "models",
  path: "models",
  permission: "models",
  itemType: "assetmodel",
  notFound: "AssetModel not found",
  messages: {
    create: "Model created successfully.",
    update: "Model updated successfully.",
    delete: "Model was deleted successfully.",
  },
  restore: {
    success: "Model restored successfully.",
    notDeleted: "Model is not deleted.",
    messageInPayload: "never",
  },
  rules: {
    name: "required|string|min:1|max:255",
    model_number: "nullable|string|max:255",
    category_id: "required|integer|exists:categories",
    manufacturer_id: "nullable|integer|exists:manufacturers",
    depreciation_id: "nullable|integer|exists:depreciations",
    fieldset_id: "nullable|integer|exists:custom_fieldsets",
    custom_fieldset_id: "nullable|integer|exists:custom_fieldsets",
    default_values: "nullable|object",
    add_default_values: "nullable|boolean",
    eol: "nullable|integer|min:0|max:240",
    min_amt: "nullable|integer|min:0|max:2147483647",
    requestable: "boolean",
    notes: "nullable|string|max:65535",
  },
  columns: [
    "name",
    "model_number",
    "category_id",
    "manufacturer_id",
    "depreciation_id",
    "fieldset_id",
    "eol",
    "min_amt",
    "requestable",
    "notes",
  ],
  softDeletes: true,
  unique: { field: "name", message: "The name must be unique across models and model number. " },
  rawPayload: true,
  list: {
    sorts: [
      "id",
      "image",
      "name",
      "model_number",
      "min_amt",
      "eol",
      "notes",
      "created_at",
      "manufacturer",
      "requestable",
      "assets_count",
      "category",
      "fieldset",
      "deleted_at",
      "updated_at",
    ],
    defaultSort: "created_at",
    search: ["name", "model_number", "notes"],
    filters: { name: "text", model_number: "text", notes: "text", category_id: "id", depreciation_id: "id" },
    trashed: (query) => (query.status === "deleted" ? "only" : "without"),
  },
  relations: {
    ...CREATED_BY,
    manufacturer: { table: "manufacturers", column: "manufacturer_id" },
    category: { table: "categories", column: "category_id" },
    depreciation: { table: "depreciations", column: "depreciation_id" },
    fieldset: { table: "custom_fieldsets", column: "fieldset_id" },
  },
  counts: ["assets_count"],
  prepare: async (context, values, before) => {
    const extra: Record<string, unknown> = {};
    // Updates also take the fieldset as custom_fieldset_id, which wins (spec §8).
    if (before && values.custom_fieldset_id !== undefined) extra.fieldset_id = values.custom_fieldset_id;
    if (typeof values.category_id === "number") {
      const category = await context.trx
        .selectFrom("categories")
        .select("category_type")
        .where("id", "=", values.category_id)
        .executeTakeFirst();
      if (category?.category_type !== "asset")
        throw new Invalid("The given data was invalid.", {
          category_type: ["This category must be an asset category."],
        });
    }
    return extra;
  },
  checkDelete: refuseWhileUsed(
    ["assets_count"],
    "This model is currently associated with one or more assets and cannot be deleted. Please delete the assets, and then try deleting again. ",
  ),
  afterSave: (context, row, values) => saveModelDefaults(context, row, values),
  present: async (row, context) => {
    const assets = context.counts.assets_count;
    const deleted = row.deleted_at !== null;
    const may = actions(context, "models", { clone: "create", restore: "delete" });
    return {
      id: row.id,
      name: escaped(row.name as string),
      manufacturer: related(row.manufacturer_id as number | null, context.names.manufacturer),
      image: imageUrl(context.caller, "models", row.image),
      model_number: escaped(row.model_number as string | null),
      min_amt: row.min_amt === null ? null : Number(row.min_amt),
      remaining: assets - Number(row.min_amt ?? 0),
      depreciation: related(row.depreciation_id as number | null, context.names.depreciation),
      assets_count: assets,
      category: related(row.category_id as number, context.names.category),
      fieldset: related(row.fieldset_id as number | null, context.names.fieldset),
      default_fieldset_values: await defaultFieldsetValues(context.db, row),
      eol: row.eol === null || row.eol === undefined ? "None" : `${row.eol} months`,
      requestable: bool(row.requestable as number),
      notes: escaped(row.notes as string | null),
      ...recordFields(row, context),
      deleted_at: datetime(row.deleted_at as string | null),
      available_actions: {
        update: may.update && !deleted,
        delete: may.delete && !deleted && assets === 0,
        clone: may.clone,
        restore: may.restore && deleted,
      },
    };
  },
};
