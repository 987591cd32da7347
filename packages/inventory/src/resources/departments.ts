import { escaped, related } from "../convert/format.ts";
import { imageUrl } from "../services/images.ts";
import { type ResourceDefinition, refuseWhileUsed } from "../services/resource.ts";
import { actions, CREATED_BY, recordFields, texts } from "./common.ts";

/** Departments (spec §23): unique per company, refused deletion while they have users. */
export const departments: ResourceDefinition = {
  table: "departments",
  path: "departments",
  permission: "departments",
  itemType: "department",
  notFound: "Department not found",
  messages: {
    create: "Department created successfully.",
    update: "Department updated successfully.",
    delete: "Department was deleted successfully.",
  },
  rules: {
    name: "required|string|max:255",
    company_id: "nullable|integer|exists:companies",
    location_id: "nullable|integer|exists:locations",
    manager_id: "nullable|integer|exists:users",
    phone: "nullable|string|max:255",
    fax: "nullable|string|max:255",
    notes: "nullable|string|max:65535",
  },
  columns: ["name", "company_id", "location_id", "manager_id", "phone", "fax", "notes"],
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: [
      "id",
      "name",
      "phone",
      "fax",
      "created_at",
      "updated_at",
      "users_count",
      "company",
      "location",
      "manager",
    ],
    defaultSort: "created_at",
    search: ["name", "notes", "phone", "fax"],
    filters: { name: "text", company_id: "id", location_id: "id", manager_id: "id" },
  },
  relations: {
    ...CREATED_BY,
    company: { table: "companies", column: "company_id" },
    location: { table: "locations", column: "location_id" },
    manager: { table: "users", column: "manager_id" },
  },
  counts: ["users_count"],
  checkDelete: refuseWhileUsed(
    ["users_count"],
    "This department is currently associated with at least one user and cannot be deleted. Please update your users to no longer reference this department and try again. ",
  ),
  present: (row, context) => ({
    id: row.id,
    name: escaped(row.name as string),
    ...texts(row, ["phone", "fax"]),
    image: imageUrl(context.caller, "departments", row.image),
    company: related(row.company_id as number | null, context.names.company),
    manager: related(row.manager_id as number | null, context.names.manager),
    location: related(row.location_id as number | null, context.names.location),
    users_count: context.counts.users_count,
    notes: escaped(row.notes as string | null),
    ...recordFields(row, context),
    available_actions: {
      ...actions(context, "departments"),
      delete: actions(context, "departments").delete && !context.counts.users_count,
    },
  }),
};
