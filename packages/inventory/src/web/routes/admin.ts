import { listLoginAttempts } from "../../services/settings.ts";
import { guard, render, type WebContext } from "../context.ts";

// Settings (superusers only, as Snipe-IT's): an index of the settings pages, and the log of web
// sign-ins (the service behind /api/v1/settings/login-attempts).

/** The settings pages, in the order the index lists them; later pages add their line here. */
const SETTINGS_PAGES: readonly { label: string; href: string; description: string }[] = [
  {
    label: "Login Attempts",
    href: "/admin/login-attempts",
    description: "Sign-ins to the web pages, successful or not.",
  },
];

export function registerAdmin(context: WebContext): void {
  const { app, database } = context;
  const superusers = { onRequest: guard(context, "superuser") };

  app.get("/admin", superusers, async (request, reply) =>
    render(context, request, reply, "admin", { title: "Settings", pages: SETTINGS_PAGES }),
  );

  app.get("/admin/login-attempts", superusers, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const { params, total, rows } = await listLoginAttempts(database, query);
    const offset = params.offset;
    const link = (to: number) => `/admin/login-attempts?offset=${to}&limit=${params.limit}`;
    return render(context, request, reply, "login-attempts", {
      title: "Login Attempts",
      rows,
      total,
      first: total === 0 ? 0 : offset + 1,
      last: offset + rows.length,
      previous: offset > 0 ? link(Math.max(0, offset - params.limit)) : undefined,
      next: offset + rows.length < total ? link(offset + params.limit) : undefined,
    });
  });
}
