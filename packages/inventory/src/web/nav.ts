import { type Caller, can, isSuperuser } from "../services/permissions.ts";

// The navigation of every page, in Snipe-IT's order. A section is listed once its page exists;
// a helper adding one adds its line here and nowhere else.

export interface NavLink {
  label: string;
  href: string;
  /** Who sees the link: a permission as the API checks it (`assets.view`), or superusers only. */
  shownTo?: { permission: string } | "superuser";
}

export const NAV: readonly NavLink[] = [
  { label: "Dashboard", href: "/" },
  { label: "Assets", href: "/hardware", shownTo: { permission: "assets.view" } },
  { label: "Settings", href: "/admin", shownTo: "superuser" },
];

/** The links the caller may follow. */
export function navFor(caller: Caller): NavLink[] {
  return NAV.filter(
    (link) =>
      link.shownTo === undefined ||
      (link.shownTo === "superuser" ? isSuperuser(caller) : can(caller, link.shownTo.permission)),
  );
}
