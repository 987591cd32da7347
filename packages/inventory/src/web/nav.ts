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
