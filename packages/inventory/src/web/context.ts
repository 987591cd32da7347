import { type HttpServer, Invalid, type LoginLimits } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { unescaped } from "../convert/format.ts";
import { type Identification, sessionCallerOf } from "../routes/v1/context.ts";
import { type Caller, requirePermission, requireSuperuser } from "../services/permissions.ts";
import type { Storage } from "../services/storage.ts";
import { navFor } from "./nav.ts";

// What every page route is registered with, the guards that decide who may see a page (the same
// session and permission checks as the API's), and the one way a page is rendered in the layout.

/** What every page route family is registered with. */
export interface WebContext extends Identification {
  /** The scope of the pages: sessions loaded, CSRF checked on every POST (core's pageScope). */
  app: HttpServer;
  /** Limits on failed sign-ins (core's login throttle). */
  loginLimits: LoginLimits;
  /** Where uploads are staged and imports kept (the API's). */
  storage: Storage;
}

/** Who may see a page: anyone signed in, holders of an API permission (`assets.view`), or superusers. */
export type PageAccess = "signed-in" | "superuser" | { permission: string };

/**
 * An onRequest hook for a page route: the signed-in caller goes in `request.actor` (read it with
 * `pageCaller`); a signed-out visitor is sent to /login; a caller without the access gets the 403
 * page. It runs before the body is read.
 */
export function guard(context: WebContext, access: PageAccess = "signed-in") {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = await sessionCallerOf(context, request);
    if (!caller) return reply.redirect("/login", 303);
    request.actor = caller;
    if (access === "superuser") requireSuperuser(caller);
    else if (access !== "signed-in") requirePermission(caller, access.permission);
  };
}

/** The caller a guarded page route was let in for. */
export function pageCaller(request: FastifyRequest): Caller {
  if (!request.actor) throw new Error("page route without a guard");
  return request.actor;
}

/** What a page template receives besides its own data, as `it.page`. */
export interface PageFrame {
  title: string;
  /** The signed-in user: first and last name as one, and username. */
  user?: { name: string; username: string };
  nav: { label: string; href: string; current: boolean }[];
  csrf: string;
  flash?: { kind: string; text: string };
  asset: (name: string) => string;
  /** A small file of ASSETS as a data: URL (no request of its own). */
  inline: (name: string) => string;
  /**
   * A value of an API object as the text that was typed (the API HTML-escapes some, as Snipe-IT's
   * does), for `<%= %>` to escape once: no value is printed raw, whether the API escaped it or not.
   */
  text: (value: unknown) => string;
}

/**
 * Renders `template` (views/NAME.eta, which starts with `<% layout("layout") %>`) with `data` as
 * `it` and the layout's frame as `it.page`: the title, the signed-in user, the navigation, the CSRF
 * token for forms and the flash message left by the request before.
 */
export function render(
  context: WebContext,
  request: FastifyRequest,
  reply: FastifyReply,
  template: string,
  data: { title: string } & Record<string, unknown>,
  status = 200,
) {
  const caller = request.actor;
  const path = request.url.split("?")[0];
  const page: PageFrame = {
    title: data.title,
    user: caller && {
      name: `${caller.user.first_name} ${caller.user.last_name ?? ""}`.trim(),
      username: caller.user.username,
    },
    nav: caller
      ? navFor(caller).map((link) => ({
          ...link,
          current: link.href === "/" ? path === "/" : path === link.href || path.startsWith(`${link.href}/`),
        }))
      : [],
    csrf: reply.generateCsrf(),
    flash: context.web.takeFlash(request, reply),
    asset: (name) => context.web.assetUrl(name),
    inline: (name) => context.web.inlineAssetUrl(name),
    text: typedText,
  };
  return reply
    .code(status)
    .header("cache-control", "no-store")
    .view(template, { ...data, page });
}

/** Leaves a message for the next page and sends the browser there (post, then redirect). */
export function redirectWith(
  context: WebContext,
  reply: FastifyReply,
  to: string,
  kind: "success" | "error" | "info",
  text: string,
) {
  context.web.flash(reply, kind, text);
  return reply.redirect(to, 303);
}

/** A text field of a posted form; "" when absent or not text (a form cannot send anything else). */
export function field(request: FastifyRequest, name: string): string {
  const body = request.body;
  if (typeof body !== "object" || body === null) return "";
  const value = (body as Record<string, unknown>)[name];
  return typeof value === "string" ? value : "";
}

/** A posted form's fields but its CSRF token, for a service as the API hands it a body (a name sent several times is a list). */
export function formOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (typeof body !== "object" || body === null) return {};
  const { _csrf: _token, ...fields } = body as Record<string, unknown>;
  return fields;
}

/** Whether a checkbox of a posted form was ticked. */
export function ticked(request: FastifyRequest, name: string): boolean {
  const value = field(request, name);
  return value !== "" && value !== "0";
}

/**
 * The field messages of a form the service refused (Invalid), to show the form again with them
 * (`errors` in the template, status 422); a message about the whole form is under `form`. Any
 * other error is thrown on, to the error page.
 */
export function invalidFields(error: unknown): Record<string, string[]> {
  if (!(error instanceof Invalid)) throw error;
  return Object.keys(error.details).length > 0 ? error.details : { form: [error.message] };
}

function typedText(value: unknown): string {
  return value === null || value === undefined ? "" : unescaped(String(value));
}

/** Whether htmx asks for a part of the page alone (a sort, a filter, a page): not a history restore, which needs it all. */
export function wantsPart(request: FastifyRequest): boolean {
  return request.headers["hx-request"] === "true" && request.headers["hx-history-restore-request"] !== "true";
}

/**
 * Renders a part of a page (views/NAME.eta without the layout) for htmx to swap in; its template
 * has `it.page.text` as a page's has.
 */
export function renderPart(reply: FastifyReply, template: string, data: Record<string, unknown>) {
  return reply
    .header("cache-control", "no-store")
    .header("vary", "HX-Request")
    .view(template, { ...data, page: { text: typedText } });
}
