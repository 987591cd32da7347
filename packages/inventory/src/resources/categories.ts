import { Conflict, Invalid } from "@anvil/core";
import { bool, escaped } from "../convert/format.ts";
import { imageUrl } from "../services/images.ts";
import type { ResourceDefinition } from "../services/resource.ts";
import { actions, CREATED_BY, recordFields } from "./common.ts";

const TYPES = ["asset", "accessory", "consumable", "component", "license"] as const;
const COUNTS = [
  "item_count",
  "assets_count",
  "accessories_count",
  "consumables_count",
  "components_count",
  "licenses_count",
  "models_count",
] as const;
/** The count of items a category of each type holds, which blocks its deletion. */
const ITEMS_OF_TYPE: Record<string, string> = {
  asset: "assets_count",
  accessory: "accessories_count",
  consumable: "consumables_count",
  component: "components_count",
  license: "licenses_count",
};

function label(type: string): string {
  return type.charAt(0).toUpperCase() + type.slice(1);
}

/** Categories (spec §9): typed once and for all; deletion refused while they hold items of their type. */
export const categories: ResourceDefinition = {
  table: "categories",
  path: "categories",
  permission: "categories",
  itemType: "category",
  notFound: "Category not found",
  messages: {
    create: "Category created successfully.",
    update: "Category updated successfully.",
    delete: "Category was deleted successfully.",
  },
  rules: {
    name: "required|string|min:1|max:255",
    category_type: `required|string|in:${TYPES.join(",")}`,
    eula_text: "nullable|string|max:65535",
    use_default_eula: "boolean",
    require_acceptance: "boolean",
    checkin_email: "boolean",
    notes: "nullable|string|max:65535",
  },
  columns: ["name", "eula_text", "use_default_eula", "require_acceptance", "checkin_email", "notes"],
  softDeletes: true,
  unique: { field: "name", message: "The name must be unique across categories and category type. " },
  list: {
    sorts: [
      "id",
      "name",
      "category_type",
      "created_at",
      "updated_at",
      "require_acceptance",
      "checkin_email",
      "use_default_eula",
      ...COUNTS,
    ],
    defaultSort: "assets_count",
    search: ["name", "category_type"],
    filters: {
      name: "text",
      category_type: "text",
      use_default_eula: "bool",
      require_acceptance: "bool",
      checkin_email: "bool",
      created_by: "id",
    },
  },
  relations: CREATED_BY,
  counts: COUNTS,
  prepare: async (_context, values, before) => {
    if (values.category_type === undefined) return {};
    const type = String(values.category_type).toLowerCase();
    if (before && type !== before.category_type)
      throw new Invalid("The given data was invalid.", {
        category_type: ["You cannot change the category type once it has been created"],
      });
    return { category_type: type };
  },
  checkDelete: async (_context, row, counts) => {
    const type = String(row.category_type);
    const held = (counts[ITEMS_OF_TYPE[type]] ?? 0) + (type === "asset" ? counts.models_count : 0);
    if (held > 0)
      throw new Conflict(
        `This category is currently associated with at least one ${type === "asset" ? "model" : type} and cannot be deleted. Please update your ${type === "asset" ? "model" : type}s to no longer reference this category and try again. `,
      );
  },
  present: (row, context) => {
    const type = String(row.category_type);
    const { models_count: models, ...counts } = context.counts;
    const items = counts[ITEMS_OF_TYPE[type]] ?? 0;
    return {
      id: row.id,
      name: escaped(row.name as string),
      image: imageUrl(context.caller, "categories", row.image),
      category_type: label(type),
      has_eula: row.eula_text !== null || bool(row.use_default_eula as number),
      use_default_eula: bool(row.use_default_eula as number),
      eula: escaped(row.eula_text as string | null),
      checkin_email: bool(row.checkin_email as number),
      require_acceptance: bool(row.require_acceptance as number),
      ...counts,
      item_count: items,
      ...recordFields(row, context),
      notes: escaped(row.notes as string | null),
      available_actions: {
        ...actions(context, "categories"),
        delete: actions(context, "categories").delete && items === 0 && !(type === "asset" && models > 0),
      },
    };
  },
};
