import { type AnyKysely, Invalid } from "@anvil/core";
import { escaped, related } from "../convert/format.ts";
import type { Row } from "../repositories/records.ts";
import { imageUrl } from "../services/images.ts";
import { presentRows, type ResourceDefinition, refuseWhileUsed } from "../services/resource.ts";
import { ADDRESS_COLUMNS, ADDRESS_RULES, actions, CREATED_BY, recordFields, texts } from "./common.ts";
import { users } from "./users.ts";

const COUNTS = [
  "accessories_count",
  "assigned_accessories_count",
  "assigned_assets_count",
  "assets_count",
  "rtd_assets_count",
  "users_count",
  "children_count",
] as const;
const BLOCKING = COUNTS.filter((count) => count !== "rtd_assets_count");

const CIRCULAR = "The parent id must not create a circular reference.";

/** Whether `ancestor` is `id` or above it in the tree. Walks up from the would-be parent. */
async function createsCycle(db: AnyKysely, id: number, parentId: number): Promise<boolean> {
  const seen = new Set<number>();
  let current: number | null = parentId;
  while (current !== null && !seen.has(current)) {
    if (current === id) return true;
    seen.add(current);
    const row: { parent_id: number | null } | undefined = await db
      .selectFrom("locations")
      .select("parent_id")
      .where("id", "=", current)
      .executeTakeFirst();
    current = row?.parent_id === null || row === undefined ? null : Number(row.parent_id);
  }
  return false;
}

/** Locations (spec §12): a tree through parent_id, which may never loop. */
export const locations: ResourceDefinition = {
  table: "locations",
  path: "locations",
  permission: "locations",
  itemType: "location",
  notFound: "Location not found",
  messages: {
    create: "Location created successfully.",
    update: "Location updated successfully.",
    delete: "The location was deleted successfully.",
  },
  rules: {
    name: "required|string|min:2|max:255",
    parent_id: "nullable|integer|exists:locations",
    manager_id: "nullable|integer|exists:users",
    company_id: "nullable|integer|exists:companies",
    ...ADDRESS_RULES,
    currency: "nullable|string|max:10",
    ldap_ou: "nullable|string|max:255",
    notes: "nullable|string|max:65535",
  },
  columns: [
    "name",
    "parent_id",
    "manager_id",
    "company_id",
    ...ADDRESS_COLUMNS,
    "currency",
    "ldap_ou",
    "notes",
  ],
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: [
      "id",
      "name",
      "address",
      "address2",
      "city",
      "state",
      "country",
      "zip",
      "phone",
      "fax",
      "currency",
      "ldap_ou",
      "created_at",
      "updated_at",
      "parent",
      "manager",
      "company",
      ...COUNTS,
    ],
    defaultSort: "created_at",
    search: ["name", "address", "city", "state", "zip", "country", "currency", "ldap_ou", "phone", "fax"],
    filters: {
      name: "text",
      address: "text",
      address2: "text",
      city: "text",
      zip: "text",
      country: "text",
      manager_id: "id",
      company_id: "id",
      parent_id: "id",
    },
  },
  relations: {
    ...CREATED_BY,
    parent: { table: "locations", column: "parent_id" },
    manager: { table: "users", column: "manager_id" },
    company: { table: "companies", column: "company_id" },
  },
  counts: COUNTS,
  // The manager is the full user object (spec §12), not `{id, name}`.
  preload: async (database, caller, rows) => {
    const ids = [
      ...new Set(rows.flatMap((row) => (row.manager_id === null ? [] : [Number(row.manager_id)]))),
    ];
    const managers =
      ids.length === 0
        ? []
        : ((await database.db.selectFrom("users").selectAll().where("id", "in", ids).execute()) as Row[]);
    const shown = await presentRows(database, users, caller, managers);
    return { manager: new Map(shown.map((user) => [Number(user.id), user])) };
  },
  prepare: async (context, values, before) => {
    const parentId = values.parent_id;
    if (before && typeof parentId === "number" && (await createsCycle(context.trx, before.id, parentId)))
      throw new Invalid("The given data was invalid.", { parent_id: [CIRCULAR] });
    return {};
  },
  checkDelete: refuseWhileUsed(
    BLOCKING,
    "This location is not currently deletable because it is the location of record for at least one asset or user, has assets assigned to it, or is the parent location of another location. Please update your records to no longer reference this location and try again. ",
  ),
  present: async (row, context) => {
    const children = await context.db
      .selectFrom("locations")
      .select(["id", "name"])
      .where("parent_id", "=", row.id)
      .where("deleted_at", "is", null)
      .orderBy("name")
      .execute();
    const { children_count: _children, ...counts } = context.counts;
    const may = actions(context, "locations", { clone: "create" });
    const deletable = may.delete && BLOCKING.every((count) => !context.counts[count]);
    return {
      id: row.id,
      name: escaped(row.name as string),
      image: imageUrl(context.caller, "locations", row.image),
      ...texts(row, ADDRESS_COLUMNS),
      ...counts,
      currency: escaped(row.currency as string | null),
      ldap_ou: escaped(row.ldap_ou as string | null),
      notes: escaped(row.notes as string | null),
      ...recordFields(row, context),
      parent: related(row.parent_id as number | null, context.names.parent),
      manager: context.preloaded.manager?.get(Number(row.manager_id)) ?? null,
      company: related(row.company_id as number | null, context.names.company),
      children: children.map((child) => ({ id: Number(child.id), name: escaped(child.name) })),
      available_actions: { ...may, delete: deletable, bulk_selectable: { delete: deletable } },
    };
  },
};
