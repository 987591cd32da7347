import { Forbidden, Invalid } from "@anvil/core";
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
  /**
   * The permissions a scoped token is limited to (Snipe-IT names, `assets.*` for a family); absent
   * for a token that carries all of its user's permissions.
   */
  scopes?: readonly string[];
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

/** Who holds permissions: an account (own and group grants), and the scopes of the token it called with. */
type Holder = Pick<Caller, "own" | "groups" | "scopes">;

function granted(caller: Holder, permission: string): boolean {
  const own = caller.own[permission];
  if (own === "-1") return false;
  if (own === "1") return true;
  return caller.groups.some((group) => group[permission] === "1");
}

// Gates `admin` does not pass: holding one means holding it by name (or being a superuser).
const NOT_IMPLIED_BY_ADMIN = new Set(["superuser", "admin", "import"]);

/** Whether one scope covers a permission: by name, by family (`assets.*`), or as the gates imply. */
function covers(scope: string, permission: string): boolean {
  if (scope === permission || scope === "superuser") return true;
  if (scope === "admin") return !NOT_IMPLIED_BY_ADMIN.has(permission);
  return scope.endsWith(".*") && permission.startsWith(scope.slice(0, -1));
}

// A token's scopes only take away: every check asks the account AND the scopes, so a scope the
// account lacks grants nothing.
function inScope(caller: Holder, permission: string): boolean {
  return caller.scopes === undefined || caller.scopes.some((scope) => covers(scope, permission));
}

/** Whether the account itself is a superuser, whatever its token's scopes. */
export function accountIsSuperuser(caller: Holder): boolean {
  return granted(caller, "superuser");
}

export function isSuperuser(caller: Holder): boolean {
  return inScope(caller, "superuser") && accountIsSuperuser(caller);
}

/** Whether the caller holds a gate such as `import`, which `admin` does not imply (spec §6). */
export function hasAccess(caller: Holder, permission: string): boolean {
  return inScope(caller, permission) && (accountIsSuperuser(caller) || granted(caller, permission));
}

/** Whether the caller holds a resource permission such as `companies.view`. */
export function can(caller: Holder, permission: string): boolean {
  return (
    inScope(caller, permission) &&
    (accountIsSuperuser(caller) || granted(caller, "admin") || granted(caller, permission))
  );
}

/** Whether the caller holds `permission` themselves, and so may grant or take it away. */
export function holds(caller: Holder, permission: string): boolean {
  return NOT_IMPLIED_BY_ADMIN.has(permission) ? hasAccess(caller, permission) : can(caller, permission);
}

export function requirePermission(caller: Caller, permission: string): void {
  if (!can(caller, permission)) throw new Forbidden(UNAUTHORIZED_ACTION);
}

/**
 * Refuses a scoped token whose scopes leave out `permission`, whatever its account holds: for what
 * Snipe-IT lets every account do but a narrow token should not (its own tokens, under `self.api`).
 */
export function requireScope(caller: Caller, permission: string): void {
  if (!inScope(caller, permission)) throw new Forbidden(UNAUTHORIZED_ACTION);
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

// Snipe-IT's permission names (spec §6), which a token's scopes are chosen from.
const CRUD = ["view", "create", "edit", "delete"];
const ITEM = [...CRUD, "checkout", "files"];
const FAMILIES: Readonly<Record<string, readonly string[]>> = {
  reports: ["view"],
  assets: [...CRUD, "checkout", "checkin", "audit", "view.requestable", "view.encrypted_custom_fields"],
  accessories: [...ITEM, "checkin"],
  consumables: ITEM,
  components: [...ITEM, "checkin"],
  licenses: [...ITEM, "keys"],
  ...Object.fromEntries(
    [
      "users",
      "models",
      "categories",
      "departments",
      "statuslabels",
      "customfields",
      "suppliers",
      "manufacturers",
      "depreciations",
      "locations",
      "companies",
      "kits",
    ].map((family) => [family, CRUD]),
  ),
  self: ["api", "two_factor", "edit_location", "checkout_assets", "view_purchase_cost"],
};
const PERMISSION_NAMES: ReadonlySet<string> = new Set([
  ...NOT_IMPLIED_BY_ADMIN,
  ...Object.entries(FAMILIES).flatMap(([family, actions]) => [
    `${family}.*`,
    ...actions.map((action) => `${family}.${action}`),
  ]),
]);

/** Scopes no one sends by hand: more would only repeat a family's wildcard. */
export const MAX_SCOPES = 100;

/**
 * A token's scopes as asked: a list of known permission names, kept once each. Throws Snipe-IT's
 * validation error (422 under strict status).
 */
export function readScopes(list: unknown): string[] {
  const refuse = (message: string) => {
    // The message alone too, for the CLI, which prints no field list.
    throw new Invalid(message, { scopes: [message] });
  };
  if (!Array.isArray(list)) return refuse("The scopes field must be an array.");
  if (list.length === 0) return refuse("The scopes field must have at least 1 items.");
  if (list.length > MAX_SCOPES)
    return refuse(`The scopes field must not have more than ${MAX_SCOPES} items.`);
  const unknown = list.filter((name) => typeof name !== "string" || !PERMISSION_NAMES.has(name));
  if (unknown.length > 0)
    return refuse(
      `The selected scopes are invalid: ${unknown.map((name) => JSON.stringify(name)).join(", ")}.`,
    );
  return [...new Set(list as string[])];
}

/**
 * Whether a caller may hand these scopes to a new token: an unscoped caller any, a scoped one only
 * what its own scopes cover (a token cannot mint a wider one).
 */
export function mayDelegate(caller: Holder, scopes: readonly string[]): boolean {
  return scopes.every((scope) => inScope(caller, scope));
}

/** One section of Snipe-IT's permission list (its config/permissions.php): a title and its permissions. */
export interface PermissionSection {
  section: string;
  permissions: ReadonlyArray<{ name: string; label: string }>;
}

const crud = (family: string) =>
  (["view", "create", "edit", "delete"] as const).map((level) => ({
    name: `${family}.${level}`,
    label: level.charAt(0).toUpperCase() + level.slice(1),
  }));
const more = (family: string, ...extra: ReadonlyArray<readonly [string, string]>) => [
  ...crud(family),
  ...extra.map(([level, label]) => ({ name: `${family}.${level}`, label })),
];

/** The permissions a group or a user may be granted, by section, in Snipe-IT's order and words. */
export const PERMISSION_SECTIONS: readonly PermissionSection[] = [
  { section: "Super User", permissions: [{ name: "superuser", label: "Super User" }] },
  { section: "Admin", permissions: [{ name: "admin", label: "Admin" }] },
  { section: "CSV Import", permissions: [{ name: "import", label: "CSV Import" }] },
  { section: "Reports", permissions: [{ name: "reports.view", label: "View" }] },
  {
    section: "Assets",
    permissions: more(
      "assets",
      ["checkout", "Checkout"],
      ["checkin", "Checkin"],
      ["audit", "Audit"],
      ["view.requestable", "View Requestable Assets"],
      ["view.encrypted_custom_fields", "View and Modify Encrypted Custom Fields"],
      ["files", "Manage Files"],
    ),
  },
  {
    section: "Accessories",
    permissions: more(
      "accessories",
      ["checkout", "Checkout"],
      ["checkin", "Checkin"],
      ["files", "Manage Files"],
    ),
  },
  {
    section: "Consumables",
    permissions: more("consumables", ["checkout", "Checkout"], ["files", "Manage Files"]),
  },
  {
    section: "Licenses",
    permissions: more(
      "licenses",
      ["checkout", "Checkout"],
      ["keys", "View and Modify License Keys"],
      ["files", "Manage Files"],
    ),
  },
  {
    section: "Components",
    permissions: more(
      "components",
      ["checkout", "Checkout"],
      ["checkin", "Checkin"],
      ["files", "Manage Files"],
    ),
  },
  { section: "Predefined Kits", permissions: more("kits", ["checkout", "Checkout"]) },
  { section: "Users", permissions: crud("users") },
  { section: "Asset Models", permissions: crud("models") },
  { section: "Categories", permissions: crud("categories") },
  { section: "Departments", permissions: crud("departments") },
  { section: "Status Labels", permissions: crud("statuslabels") },
  { section: "Custom Fields", permissions: crud("customfields") },
  { section: "Suppliers", permissions: crud("suppliers") },
  { section: "Manufacturers", permissions: crud("manufacturers") },
  { section: "Depreciations", permissions: crud("depreciations") },
  { section: "Locations", permissions: crud("locations") },
  { section: "Companies", permissions: crud("companies") },
  {
    section: "Self",
    permissions: [
      { name: "self.two_factor", label: "Two-Factor Authentication" },
      { name: "self.api", label: "Create API Keys" },
      { name: "self.edit_location", label: "Edit Location" },
      { name: "self.checkout_assets", label: "Checkout Assets" },
      { name: "self.view_purchase_cost", label: "View Purchase Cost" },
    ],
  },
];
