import { escaped } from "../convert/format.ts";
import { parsePermissions } from "../services/permissions.ts";
import type { ResourceDefinition } from "../services/resource.ts";
import { CREATED_BY, recordFields } from "./common.ts";

/** Permission groups (spec §23): superusers only. */
export const groups: ResourceDefinition = {
  table: "permission_groups",
  path: "groups",
  permission: "superuser",
  superuserOnly: true,
  itemType: "group",
  notFound: "Group not found",
  messages: {
    create: "Group created successfully.",
    update: "Group updated successfully.",
    delete: "Group was deleted successfully.",
  },
  rules: {
    name: "required|string|max:255",
    permissions: "nullable|object",
    notes: "nullable|string|max:65535",
  },
  columns: ["name", "notes"],
  softDeletes: false,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: ["id", "name", "created_at", "updated_at", "users_count"],
    defaultSort: "created_at",
    search: ["name", "notes"],
    filters: { name: "text" },
  },
  relations: CREATED_BY,
  counts: ["users_count"],
  prepare: async (_context, values) =>
    values.permissions === undefined
      ? {}
      : { permissions: JSON.stringify(parsePermissions(JSON.stringify(values.permissions ?? {}))) },
  present: (row, context) => ({
    id: row.id,
    name: escaped(row.name as string),
    permissions: parsePermissions(row.permissions as string),
    users_count: context.counts.users_count,
    notes: escaped(row.notes as string | null),
    ...recordFields(row, context),
    available_actions: { update: true, delete: true },
  }),
};
