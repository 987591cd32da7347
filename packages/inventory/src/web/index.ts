import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import {
  answerUnknownPaths,
  DomainError,
  type HttpServer,
  httpStatusOf,
  type LoginLimits,
  pageScope,
  registerWebPages,
  type SessionLimits,
  type WebPages,
} from "@anvil/core";
import type { FastifyError } from "fastify";
import { sessionCallerOf } from "../routes/v1/context.ts";
import type { InventoryDatabase } from "../services/database.ts";
import type { Storage } from "../services/storage.ts";
import { registerChoicePages } from "./choices.ts";
import { render, type WebContext } from "./context.ts";
import { registerAccount } from "./routes/account.ts";
import { registerAdmin } from "./routes/admin.ts";
import { registerFieldPages } from "./routes/fields.ts";
import { registerHardwareList } from "./routes/hardware.ts";
import { registerHardwareBulk } from "./routes/hardware-bulk.ts";
import { registerHardwareForm } from "./routes/hardware-form.ts";
import { registerHardwareItem } from "./routes/hardware-item.ts";
import { registerHome } from "./routes/home.ts";
import { registerImports } from "./routes/import.ts";
import { registerReports } from "./routes/reports.ts";
import { registerResourceSections } from "./routes/resource-sections.ts";
import { registerResourcePages } from "./routes/resources.ts";
import { registerSession } from "./routes/session.ts";
import { registerSetup } from "./routes/setup.ts";

// The inventory's web pages (DESIGN.md "Web UI"): server-rendered from views/, served under `/`
// beside the API, calling the same services. A page family is one file in routes/ registered
// below; its templates are in views/, its static files in assets/ (listed in ASSETS).

export const COOKIE_PREFIX = "inventory";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const require = createRequire(import.meta.url);

/** The files under /assets/: our stylesheet and icon, and htmx from its npm package (no CDN: users run offline). */
const ASSETS = {
  "style.css": here("assets/style.css"),
  "favicon.svg": here("assets/favicon.svg"),
  "htmx.min.js": require.resolve("htmx.org/dist/htmx.min.js"),
  // Chartist's UMD build (12 KB gzipped, draws SVG, sets text as text) and the dashboard's use of it.
  "status-chart.js": [require.resolve("chartist/dist/index.umd.js"), here("assets/status-chart.js")],
};

const CSRF_ERRORS = new Set(["FST_CSRF_INVALID_TOKEN", "FST_CSRF_MISSING_SECRET"]);
const PAGE_NOT_FOUND = "The page you asked for does not exist.";
const FORM_EXPIRED = "The form has expired. Please go back, reload the page and try again.";

/** Sessions, views and static files; before the API, whose requests a session may authorize. */
export function registerWebSupport(
  app: HttpServer,
  database: InventoryDatabase,
  sessionLimits: SessionLimits,
): Promise<WebPages> {
  return registerWebPages(app, {
    db: database.db,
    limits: sessionLimits,
    cookiePrefix: COOKIE_PREFIX,
    views: here("views"),
    assets: ASSETS,
  });
}

export interface PagesOptions {
  web: WebPages;
  /** Where uploads are staged, imports and files kept (the API's). */
  storage: Storage;
  loginLimits: LoginLimits;
  fullMultipleCompaniesSupport: boolean;
}

/** Adds every page. */
export async function registerPages(
  app: HttpServer,
  database: InventoryDatabase,
  options: PagesOptions,
): Promise<void> {
  await app.register(async (scope) => {
    const pages = scope as unknown as HttpServer;
    pageScope(pages, options.web, COOKIE_PREFIX);
    const context: WebContext = {
      app: pages,
      database,
      web: options.web,
      storage: options.storage,
      fullMultipleCompaniesSupport: options.fullMultipleCompaniesSupport,
      loginLimits: options.loginLimits,
    };
    // A page's failure is a page too: the status and a sentence, in the layout; never a stack.
    pages.setErrorHandler((error, request, reply) => {
      const fastifyError = error as FastifyError;
      let status: number;
      let message: string;
      if (error instanceof DomainError) {
        status = httpStatusOf[error.kind];
        message = error.message;
      } else if (CSRF_ERRORS.has(fastifyError.code)) {
        status = 403;
        message = FORM_EXPIRED;
      } else if (typeof fastifyError.statusCode === "number" && fastifyError.statusCode < 500) {
        status = fastifyError.statusCode;
        message = fastifyError.message;
      } else {
        request.log.error({ err: error }, "unhandled error");
        status = 500;
        message = `Something went wrong on our side. The request id ${request.id} helps the administrator find out what.`;
      }
      return render(context, request, reply, "error", { title: `Error ${status}`, message }, status);
    });
    // A mistyped address in the browser is a page too, not the API's JSON.
    answerUnknownPaths(app, options.web, COOKIE_PREFIX, async (request, reply) => {
      request.actor = await sessionCallerOf(context, request);
      return render(context, request, reply, "error", { title: "Error 404", message: PAGE_NOT_FOUND }, 404);
    });
    registerHome(context);
    registerSetup(context);
    registerSession(context);
    registerAccount(context);
    registerAdmin(context);
    registerReports(context);
    await registerImports(context);
    registerResourcePages(context);
    registerResourceSections(context);
    registerFieldPages(context);
    registerHardwareList(context);
    registerHardwareBulk(context);
    registerHardwareForm(context);
    registerHardwareItem(context);
    registerChoicePages(context);
  });
}
