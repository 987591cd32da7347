import { Forbidden } from "@anvil/core";
import type { Selectable } from "kysely";
import type { UserTable } from "../schemas/tables.ts";

// Snipe-IT's permissions (spec §6): a user's own JSON and their groups' JSON map a permission to
// "1" (grant), "-1" (deny, only meaningful on the user, where it beats every group) or "0"
// (inherit). `superuser` passes every check; `admin` passes every resource check but not the
// superuser-only areas (groups, settings).

export type UserRow = Selectable<UserTable>;
export type PermissionMap = Record<string, string>;

export const UNAUTHORIZED_ACTION = "This action is unauthorized.";

/** Who is calling the API: the token's user, what they may do, and whether the token only reads. */
export interface Caller {
  user: UserRow;
  own: PermissionMap;
  groups: PermissionMap[];
  readOnly: boolean;
  /** The service's root URL, for the absolute URLs an answer carries (images). */
  rootUrl: URL;
  /**
   * The company whose rows alone the caller sees and changes, under full multiple companies
   * support (services/companies.ts); absent when they see every company's rows.
   */
  companyScope?: { companyId: number | null };
}

/** A permissions JSON as stored; anything unreadable counts as no permissions. */
export function parsePermissions(text: string | null | undefined): PermissionMap {
  try {
    const parsed: unknown = JSON.parse(text ?? "{}");
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, String(value)]));
  } catch {
    return {};
  }
}

function granted(caller: Pick<Caller, "own" | "groups">, permission: string): boolean {
  const own = caller.own[permission];
  if (own === "-1") return false;
  if (own === "1") return true;
  return caller.groups.some((group) => group[permission] === "1");
}

export function isSuperuser(caller: Pick<Caller, "own" | "groups">): boolean {
  return granted(caller, "superuser");
}

/** Whether the caller holds a gate such as `import`, which `admin` does not imply (spec §6). */
export function hasAccess(caller: Pick<Caller, "own" | "groups">, permission: string): boolean {
  return isSuperuser(caller) || granted(caller, permission);
}

/** Whether the caller holds a resource permission such as `companies.view`. */
export function can(caller: Pick<Caller, "own" | "groups">, permission: string): boolean {
  return isSuperuser(caller) || granted(caller, "admin") || granted(caller, permission);
}

// Gates `admin` does not pass: holding one means holding it by name (or being a superuser).
const NOT_IMPLIED_BY_ADMIN = new Set(["superuser", "admin", "import"]);

/** Whether the caller holds `permission` themselves, and so may grant or take it away. */
export function holds(caller: Pick<Caller, "own" | "groups">, permission: string): boolean {
  return NOT_IMPLIED_BY_ADMIN.has(permission) ? hasAccess(caller, permission) : can(caller, permission);
}

export function requirePermission(caller: Caller, permission: string): void {
  if (!can(caller, permission)) throw new Forbidden(UNAUTHORIZED_ACTION);
}

export function requireSuperuser(caller: Caller): void {
  if (!isSuperuser(caller)) throw new Forbidden(UNAUTHORIZED_ACTION);
}

/** The `available_actions` of a row: each action the caller's permissions allow on it. */
export function availableActions(
  caller: Caller,
  resource: string,
  actions: Readonly<Record<string, "view" | "create" | "edit" | "delete">>,
): Record<string, boolean> {
  return Object.fromEntries(
    Object.entries(actions).map(([action, level]) => [action, can(caller, `${resource}.${level}`)]),
  );
}
