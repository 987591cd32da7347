import { Forbidden } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { groups } from "../../resources/groups.ts";
import {
  type Caller,
  isSuperuser,
  PERMISSION_SECTIONS,
  type PermissionMap,
  parsePermissions,
  UNAUTHORIZED_ACTION,
} from "../../services/permissions.ts";
import { listResource } from "../../services/resource.ts";
import type { WebContext } from "../context.ts";
import { shownValue } from "../resource-view.ts";

// The parts of a resource's form that its definition's columns do not describe (issue 20): a
// group's permissions, a user's groups and permissions. Each draws inputs into the generic form
// (views/resources/NAME.eta) and reads them back as the API's body takes them (`permissions` an
// object, `groups` an array of ids), for the same service to check and store.

export interface FormSection {
  /** What the section's template draws, from the values shown (stored, or as sent); none to leave it out. */
  view: (
    context: WebContext,
    caller: Caller,
    values: Record<string, unknown>,
  ) => Promise<Record<string, unknown> | undefined>;
  /** The section's part of the service's input; Forbidden when the caller may not send it. */
  input: (request: FastifyRequest, caller: Caller) => Record<string, unknown>;
}

type Choices = ReadonlyArray<readonly [string, string]>;

/** A group grants a permission ("1") or not ("0"), as Snipe-IT's group form. */
const GROUP_CHOICES: Choices = [
  ["1", "Grant"],
  ["0", "Deny"],
];
/** A user's own permission grants, denies over every group ("-1"), or leaves it to the groups. */
const USER_CHOICES: Choices = [
  ["1", "Grant"],
  ["0", "Inherit"],
  ["-1", "Deny"],
];

/** The permissions as stored (a JSON text), as the API shows them (a map), or as posted. */
function permissionsOf(value: unknown): PermissionMap {
  if (typeof value === "string") return parsePermissions(value);
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    return parsePermissions(JSON.stringify(value));
  return {};
}

/** The permission selects, one per permission, in fieldsets by section. */
function permissionsView(values: Record<string, unknown>, choices: Choices) {
  const held = permissionsOf(values.permissions);
  return PERMISSION_SECTIONS.map(({ section, permissions }) => ({
    section,
    permissions: permissions.map(({ name, label }) => ({
      name,
      label,
      value: choices.some(([value]) => value === held[name]) ? held[name] : "0",
    })),
  }));
}

/** The posted permission selects, only the known names with an offered value. */
function postedPermissions(request: FastifyRequest, choices: Choices): PermissionMap {
  const posted = (request.body as { permissions?: unknown } | undefined)?.permissions;
  const given = typeof posted === "object" && posted !== null ? (posted as Record<string, unknown>) : {};
  const kept: PermissionMap = {};
  for (const { permissions } of PERMISSION_SECTIONS)
    for (const { name } of permissions) {
      const value = given[name];
      if (typeof value === "string" && choices.some(([choice]) => choice === value)) kept[name] = value;
    }
  return kept;
}

/** The ids of the groups the values name: stored (`{rows}` of the API's user) or posted. */
function groupIdsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  const rows = (value as { rows?: { id: number }[] } | null | undefined)?.rows;
  return (rows ?? []).map((row) => String(row.id));
}

/** Whether the posted form carries a field. */
function sent(request: FastifyRequest, name: string): boolean {
  const body = request.body;
  return typeof body === "object" && body !== null && Object.hasOwn(body, name);
}

export const FORM_SECTIONS: Readonly<Record<string, FormSection>> = {
  // Groups are for superusers alone (their pages' guard), so every field is theirs to set.
  "group-permissions": {
    view: async (_context, _caller, values) => ({
      legend: "Permissions",
      sections: permissionsView(values, GROUP_CHOICES),
      choices: GROUP_CHOICES,
    }),
    input: (request) => ({ permissions: postedPermissions(request, GROUP_CHOICES) }),
  },

  // Only a superuser changes a user's groups (the service ignores anyone else's) and, on these
  // pages, their permissions: a form that carries either from anyone else is forged, and refused.
  "user-access": {
    view: async ({ database }, caller, values) => {
      if (!isSuperuser(caller)) return undefined;
      const member = new Set(groupIdsOf(values.groups));
      const all = await listResource(database, groups, caller, { sort: "name", order: "asc", limit: "500" });
      return {
        groups: all.rows.map((group) => ({
          id: String(group.id),
          name: shownValue(group.name),
          checked: member.has(String(group.id)),
        })),
        legend: "Permissions",
        sections: permissionsView(values, USER_CHOICES),
        choices: USER_CHOICES,
      };
    },
    input: (request, caller) => {
      const carries = ["groups", "groups_shown", "permissions"].some((name) => sent(request, name));
      if (!isSuperuser(caller)) {
        if (carries) throw new Forbidden(UNAUTHORIZED_ACTION);
        return {};
      }
      if (!sent(request, "groups_shown")) return {};
      return {
        groups: groupIdsOf((request.body as { groups?: unknown }).groups ?? []),
        permissions: postedPermissions(request, USER_CHOICES),
      };
    },
  },
};
