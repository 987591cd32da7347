import { Conflict } from "@anvil/core";
import { escaped } from "../convert/format.ts";
import { imageUrl } from "../services/images.ts";
import type { ResourceDefinition } from "../services/resource.ts";
import { ADDRESS_COLUMNS, ADDRESS_RULES, actions, CREATED_BY, recordFields, texts } from "./common.ts";

const COUNTS = [
  "assets_count",
  "accessories_count",
  "licenses_count",
  "consumables_count",
  "components_count",
] as const;
const TEXT = [...ADDRESS_COLUMNS, "email", "contact", "url"];

/** Suppliers (spec §11). */
export const suppliers: ResourceDefinition = {
  table: "suppliers",
  path: "suppliers",
  permission: "suppliers",
  itemType: "supplier",
  notFound: "Supplier not found",
  messages: {
    create: "Supplier created successfully.",
    update: "Supplier updated successfully.",
    delete: "Supplier was deleted successfully.",
  },
  rules: {
    name: "required|string|min:1|max:255",
    ...ADDRESS_RULES,
    email: "nullable|email|max:150",
    contact: "nullable|string|max:100",
    url: "nullable|string|max:250",
    notes: "nullable|string|max:191",
  },
  columns: ["name", ...TEXT, "notes"],
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: ["id", "name", ...TEXT, "notes", "created_at", "updated_at", ...COUNTS],
    defaultSort: "created_at",
    search: ["name", ...TEXT, "notes"],
    filters: Object.fromEntries(
      ["name", "address", "address2", "city", "zip", "country", "fax", "email", "url", "notes"].map((f) => [
        f,
        "text",
      ]),
    ),
  },
  relations: CREATED_BY,
  counts: COUNTS,
  checkDelete: async (_context, _row, counts) => {
    if (counts.assets_count > 0)
      throw new Conflict(
        `This supplier is currently associated with ${counts.assets_count} asset(s) and cannot be deleted. Please update your assets to no longer reference this supplier and try again. `,
      );
    if (counts.licenses_count > 0)
      throw new Conflict(
        `This supplier is currently associated with ${counts.licenses_count} licences(s) and cannot be deleted. Please update your licenses to no longer reference this supplier and try again. `,
      );
  },
  present: (row, context) => ({
    id: row.id,
    name: escaped(row.name as string),
    image: imageUrl(context.caller, "suppliers", row.image),
    ...texts(row, TEXT),
    ...context.counts,
    notes: escaped(row.notes as string | null),
    ...recordFields(row, context),
    available_actions: {
      ...actions(context, "suppliers"),
      delete: actions(context, "suppliers").delete && COUNTS.every((count) => !context.counts[count]),
    },
  }),
};
