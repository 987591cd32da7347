import { Forbidden, hashPassword, Invalid } from "@anvil/core";
import { bool, date, datetime, escaped, related } from "../convert/format.ts";
import type { AnyExpressionBuilder, AnySelect, Row } from "../repositories/records.ts";
import { changedFields } from "../services/activity.ts";
import { imageUrl } from "../services/images.ts";
import {
  holds,
  isSuperuser,
  type PermissionMap,
  parsePermissions,
  UNAUTHORIZED_ACTION,
} from "../services/permissions.ts";
import type { ResourceDefinition, WriteContext } from "../services/resource.ts";
import { isSuperuserAccount } from "../services/users.ts";
import { actions, recordFields } from "./common.ts";

const TEXT = [
  "employee_num",
  "jobtitle",
  "phone",
  "website",
  "address",
  "city",
  "state",
  "country",
  "zip",
  "email",
  "locale",
] as const;
const FLAGS = ["activated", "vip", "remote", "autoassign_licenses", "ldap_import"] as const;
const COUNTS = [
  "assets_count",
  "licenses_count",
  "accessories_count",
  "consumables_count",
  "manages_users_count",
  "manages_locations_count",
] as const;
const invalid = (details: Record<string, string[]>) => new Invalid("The given data was invalid.", details);

/**
 * The permissions to store: the caller sets only those they hold themselves; every other key keeps
 * its stored value (Snipe-IT keeps only `superuser` so; we keep all, so that no `users.edit`
 * holder grants `admin`, to anyone or to themselves).
 */
function permissionsToStore(context: WriteContext, given: unknown, before: Row | undefined): string {
  const wanted = parsePermissions(JSON.stringify(given ?? {}));
  const stored = parsePermissions(before?.permissions as string | undefined);
  const kept: PermissionMap = {};
  for (const key of new Set([...Object.keys(wanted), ...Object.keys(stored)])) {
    const source = holds(context.caller, key) ? wanted : stored;
    if (Object.hasOwn(source, key)) kept[key] = source[key];
  }
  return JSON.stringify(kept);
}

// What signs a superuser in or keeps them out: only another superuser changes these.
const SUPERUSER_ACCOUNT_FIELDS = ["username", "email", "activated"] as const;

/** Refuses a non-superuser's change to a superuser's sign-in (password, name, e-mail, activation). */
async function guardSuperuserAccount(
  context: WriteContext,
  values: Record<string, unknown>,
  before: Row,
): Promise<void> {
  if (isSuperuser(context.caller)) return;
  const sent = SUPERUSER_ACCOUNT_FIELDS.filter((field) => field in values);
  const touches =
    typeof values.password === "string" ||
    Object.keys(changedFields(before, Object.fromEntries(sent.map((field) => [field, values[field]]))))
      .length > 0;
  if (touches && (await isSuperuserAccount(context.trx, before))) throw new Forbidden(UNAUTHORIZED_ACTION);
}

async function replaceGroups(context: WriteContext, userId: number, groups: unknown[]): Promise<void> {
  const ids = [...new Set(groups.map(Number))];
  if (ids.some((id) => !Number.isSafeInteger(id)))
    throw invalid({ groups: ["The selected groups is invalid."] });
  const found =
    ids.length === 0
      ? []
      : await context.trx.selectFrom("permission_groups").select("id").where("id", "in", ids).execute();
  if (found.length !== ids.length) throw invalid({ groups: ["The selected groups is invalid."] });
  await context.trx.deleteFrom("users_groups").where("user_id", "=", userId).execute();
  if (ids.length > 0)
    await context.trx
      .insertInto("users_groups")
      .values(ids.map((group_id) => ({ user_id: userId, group_id })))
      .execute();
}

/** Users (spec §19). */
export const users: ResourceDefinition = {
  table: "users",
  path: "users",
  permission: "users",
  itemType: "user",
  notFound: "User not found",
  deleteNotFound: "User does not exist or you do not have permission view them.",
  deleteFindsTrashed: true,
  messages: {
    create: "User created successfully.",
    update: "User updated successfully.",
    delete: "User was successfully deleted.",
  },
  restore: {
    success: "User restored successfully.",
    notDeleted: "User is not deleted.",
    messageInPayload: "not-deleted",
  },
  rules: {
    first_name: "required|string|max:191",
    last_name: "nullable|string|max:191",
    username: "required|string|min:1|max:191",
    password: "nullable|string|min:8|confirmed",
    email: "nullable|email|max:191",
    employee_num: "nullable|string|max:191",
    jobtitle: "nullable|string|max:191",
    phone: "nullable|string|max:191",
    website: "nullable|url|max:191",
    address: "nullable|string|max:191",
    city: "nullable|string|max:191",
    state: "nullable|string|max:191",
    country: "nullable|string|max:191",
    zip: "nullable|string|max:10",
    locale: "nullable|string|max:10",
    notes: "nullable|string|max:65535",
    company_id: "nullable|integer|exists:companies",
    department_id: "nullable|integer|exists:departments",
    location_id: "nullable|integer|exists:locations",
    manager_id: "nullable|integer|exists:users",
    start_date: "nullable|date",
    end_date: "nullable|date",
    activated: "boolean",
    vip: "boolean",
    remote: "boolean",
    autoassign_licenses: "boolean",
    ldap_import: "boolean",
    permissions: "nullable|object",
    groups: "nullable|array",
  },
  createRules: { password: "required|string|min:8|confirmed" },
  columns: [
    "first_name",
    "last_name",
    "username",
    ...TEXT,
    "notes",
    "company_id",
    "department_id",
    "location_id",
    "manager_id",
    "start_date",
    "end_date",
    ...FLAGS,
  ],
  softDeletes: true,
  unique: { field: "username", message: "The username must be unique." },
  list: {
    sorts: [
      "id",
      "first_name",
      "last_name",
      "username",
      "email",
      "jobtitle",
      "employee_num",
      "activated",
      "vip",
      "remote",
      "start_date",
      "end_date",
      "last_login",
      "created_at",
      "updated_at",
      "manager",
      "company",
      "location",
      "department",
      ...COUNTS,
    ],
    defaultSort: "first_name",
    search: ["first_name", "last_name", "username", "email", "employee_num", "jobtitle", "phone", "notes"],
    filters: {
      activated: "bool",
      company_id: "id",
      location_id: "id",
      department_id: "id",
      manager_id: "id",
      created_by: "id",
      email: "text",
      username: "text",
      first_name: "text",
      last_name: "text",
      employee_num: "text",
      state: "text",
      country: "text",
      website: "text",
      zip: "text",
      locale: "text",
      ldap_import: "bool",
      remote: "bool",
      vip: "bool",
      autoassign_licenses: "bool",
      two_factor_enrolled: "bool",
      two_factor_optin: "bool",
      start_date: "date",
      end_date: "date",
    },
    trashed: (query) => (query.deleted === "true" ? "only" : query.all === "true" ? "with" : "without"),
    refine: (select: AnySelect, query) =>
      typeof query.group_id === "string" && /^\d+$/.test(query.group_id)
        ? select.where("users.id", "in", (eb: AnyExpressionBuilder) =>
            eb.selectFrom("users_groups").select("user_id").where("group_id", "=", Number(query.group_id)),
          )
        : select,
  },
  relations: {
    created_by: { table: "users", column: "created_by" },
    manager: { table: "users", column: "manager_id" },
    company: { table: "companies", column: "company_id" },
    department: { table: "departments", column: "department_id" },
    location: { table: "locations", column: "location_id" },
  },
  counts: COUNTS,
  passwordFields: ["password"],
  prepare: async (context, values, before) => {
    if (before) await guardSuperuserAccount(context, values, before);
    const extra: Record<string, unknown> = {};
    if (typeof values.password === "string")
      extra.password = context.passwordHashes?.get(values.password) ?? (await hashPassword(values.password));
    if (values.permissions !== undefined)
      extra.permissions = permissionsToStore(context, values.permissions, before);
    if (before && values.manager_id === before.id)
      throw invalid({ manager_id: ["You cannot be your own manager."] });
    const start = values.start_date ?? before?.start_date;
    const end = values.end_date ?? before?.end_date;
    if (typeof start === "string" && typeof end === "string" && end < start)
      throw invalid({ end_date: ["The end date field must be a date after or equal to start date."] });
    return extra;
  },
  afterSave: async (context, row, values) => {
    // Only superusers may change group memberships; others' `groups` is ignored, as upstream.
    if (Array.isArray(values.groups) && isSuperuser(context.caller))
      await replaceGroups(context, row.id, values.groups);
  },
  checkDelete: async (context, row, counts) => {
    if (!isSuperuser(context.caller) && (await isSuperuserAccount(context.trx, row)))
      throw new Forbidden(UNAUTHORIZED_ACTION);
    const refusals: Record<string, string[]> = {};
    if (row.id === context.caller.user.id) refusals.user = ["You cannot delete yourself."];
    if (counts.manages_users_count > 0)
      refusals.managed_users = [
        `This user manages ${counts.manages_users_count} users and cannot be deleted.`,
      ];
    if (counts.manages_locations_count > 0)
      refusals.managed_locations = [
        `This user manages ${counts.manages_locations_count} locations and cannot be deleted.`,
      ];
    if (counts.assets_count > 0)
      refusals.assigned_assets = [
        `This user has ${counts.assets_count} assets assigned and cannot be deleted.`,
      ];
    if (counts.licenses_count > 0)
      refusals.assigned_licenses = [
        `This user has ${counts.licenses_count} licenses assigned and cannot be deleted.`,
      ];
    if (counts.accessories_count > 0)
      refusals.assigned_accessories = [
        `This user has ${counts.accessories_count} accessories assigned and cannot be deleted.`,
      ];
    if (row.deleted_at !== null) refusals.deleted_at = ["This user has already been deleted."];
    if (Object.keys(refusals).length > 0) throw new Invalid("The user cannot be deleted.", refusals);
  },
  present: async (row, context) => {
    const groups = await context.db
      .selectFrom("users_groups")
      .innerJoin("permission_groups", "permission_groups.id", "users_groups.group_id")
      .select(["permission_groups.id", "permission_groups.name"])
      .where("users_groups.user_id", "=", row.id)
      .orderBy("permission_groups.name")
      .execute();
    const deleted = row.deleted_at !== null;
    const may = actions(context, "users", { clone: "create", restore: "delete" });
    const first = String(row.first_name);
    const last = row.last_name === null ? "" : String(row.last_name);
    return {
      id: row.id,
      avatar: imageUrl(context.caller, "users", row.avatar),
      name: escaped(`${first} ${last}`.trim()),
      first_name: escaped(first),
      last_name: escaped(row.last_name as string | null),
      username: escaped(row.username as string),
      remote: bool(row.remote as number),
      locale: escaped(row.locale as string | null),
      employee_num: escaped(row.employee_num as string | null),
      manager: related(row.manager_id as number | null, context.names.manager),
      jobtitle: escaped(row.jobtitle as string | null),
      vip: bool(row.vip as number),
      phone: escaped(row.phone as string | null),
      website: escaped(row.website as string | null),
      address: escaped(row.address as string | null),
      city: escaped(row.city as string | null),
      state: escaped(row.state as string | null),
      country: escaped(row.country as string | null),
      zip: escaped(row.zip as string | null),
      email: escaped(row.email as string | null),
      department: related(row.department_id as number | null, context.names.department),
      location: related(row.location_id as number | null, context.names.location),
      notes: escaped(row.notes as string | null),
      permissions: parsePermissions(row.permissions as string),
      activated: bool(row.activated as number),
      autoassign_licenses: bool(row.autoassign_licenses as number),
      ldap_import: bool(row.ldap_import as number),
      two_factor_enrolled: bool(row.two_factor_enrolled as number),
      two_factor_optin: bool(row.two_factor_optin as number),
      ...context.counts,
      company: related(row.company_id as number | null, context.names.company),
      ...recordFields(row, context),
      start_date: date(row.start_date as string | null),
      end_date: date(row.end_date as string | null),
      last_login: datetime(row.last_login as string | null),
      deleted_at: datetime(row.deleted_at as string | null),
      available_actions: {
        update: may.update && !deleted,
        delete: may.delete && !deleted && row.id !== context.caller.user.id,
        clone: may.clone && !deleted,
        restore: may.restore && deleted,
      },
      groups:
        groups.length === 0
          ? null
          : {
              total: groups.length,
              rows: groups.map((group) => ({ id: Number(group.id), name: escaped(group.name) })),
            },
    };
  },
};
