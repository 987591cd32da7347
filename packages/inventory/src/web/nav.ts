import { type Caller, can, hasAccess, isSuperuser } from "../services/permissions.ts";

// The navigation of every page, in Snipe-IT's order. A section is listed once its page exists;
// a helper adding one adds its line here and nowhere else.

export interface NavLink {
  label: string;
  href: string;
  /**
   * Who sees the link: a permission as the API checks it (`assets.view`), a gate that `admin` does
   * not imply (`import`, as hasAccess checks it), or superusers only.
   */
  shownTo?: { permission: string } | { gate: string } | "superuser";
}

export const NAV: readonly NavLink[] = [
  { label: "Dashboard", href: "/" },
  { label: "Assets", href: "/hardware", shownTo: { permission: "assets.view" } },
  { label: "Maintenances", href: "/maintenances", shownTo: { permission: "assets.view" } },
  { label: "Predefined Kits", href: "/kits", shownTo: { permission: "kits.view" } },
  { label: "Licenses", href: "/licenses", shownTo: { permission: "licenses.view" } },
  { label: "Accessories", href: "/accessories", shownTo: { permission: "accessories.view" } },
  { label: "Consumables", href: "/consumables", shownTo: { permission: "consumables.view" } },
  { label: "Components", href: "/components", shownTo: { permission: "components.view" } },
  { label: "People", href: "/users", shownTo: { permission: "users.view" } },
  { label: "Custom Fields", href: "/fields", shownTo: { permission: "customfields.view" } },
  { label: "Asset Models", href: "/models", shownTo: { permission: "models.view" } },
  { label: "Categories", href: "/categories", shownTo: { permission: "categories.view" } },
  { label: "Manufacturers", href: "/manufacturers", shownTo: { permission: "manufacturers.view" } },
  { label: "Suppliers", href: "/suppliers", shownTo: { permission: "suppliers.view" } },
  { label: "Departments", href: "/departments", shownTo: { permission: "departments.view" } },
  { label: "Locations", href: "/locations", shownTo: { permission: "locations.view" } },
  { label: "Companies", href: "/companies", shownTo: { permission: "companies.view" } },
  { label: "Status Labels", href: "/statuslabels", shownTo: { permission: "statuslabels.view" } },
  { label: "Depreciations", href: "/depreciations", shownTo: { permission: "depreciations.view" } },
  { label: "Groups", href: "/admin/groups", shownTo: "superuser" },
  { label: "Import", href: "/import", shownTo: { gate: "import" } },
  { label: "Settings", href: "/admin", shownTo: "superuser" },
  { label: "Reports", href: "/reports/activity", shownTo: { permission: "reports.view" } },
];

/** The links the caller may follow. */
export function navFor(caller: Caller): NavLink[] {
  return NAV.filter(
    (link) =>
      link.shownTo === undefined ||
      (link.shownTo === "superuser"
        ? isSuperuser(caller)
        : "gate" in link.shownTo
          ? hasAccess(caller, link.shownTo.gate)
          : can(caller, link.shownTo.permission)),
  );
}
