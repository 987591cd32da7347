import { escaped } from "../convert/format.ts";
import { imageUrl } from "../services/images.ts";
import { type ResourceDefinition, refuseWhileUsed } from "../services/resource.ts";
import { actions, CREATED_BY, recordFields, texts } from "./common.ts";

const COUNTS = [
  "assets_count",
  "licenses_count",
  "accessories_count",
  "consumables_count",
  "components_count",
  "users_count",
] as const;

/** Companies (spec §13). */
export const companies: ResourceDefinition = {
  table: "companies",
  path: "companies",
  permission: "companies",
  itemType: "company",
  notFound: "Company not found",
  messages: {
    create: "Company created successfully.",
    update: "Company updated successfully.",
    delete: "Company was deleted successfully.",
  },
  rules: {
    name: "required|string|min:1|max:255",
    phone: "nullable|string|min:7|max:35",
    fax: "nullable|string|min:7|max:35",
    email: "nullable|email|max:255",
    notes: "nullable|string|max:65535",
  },
  columns: ["name", "phone", "fax", "email", "notes"],
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: ["id", "name", "phone", "fax", "email", "created_at", "updated_at", ...COUNTS],
    defaultSort: "created_at",
    search: ["name", "phone", "fax", "email"],
    filters: { name: "text", email: "text" },
  },
  relations: CREATED_BY,
  counts: COUNTS,
  checkDelete: refuseWhileUsed(
    COUNTS,
    "This company is currently associated with at least one model and cannot be deleted. Please update your models to no longer reference this company and try again.",
  ),
  present: (row, context) => ({
    id: row.id,
    name: escaped(row.name as string),
    ...texts(row, ["phone", "fax", "email"]),
    image: imageUrl(context.caller, "companies", row.image),
    ...context.counts,
    ...recordFields(row, context),
    notes: escaped(row.notes as string | null),
    available_actions: {
      ...actions(context, "companies"),
      delete: actions(context, "companies").delete && COUNTS.every((count) => !context.counts[count]),
    },
  }),
};
