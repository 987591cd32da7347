import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { gzipSync } from "node:zlib";
import cookie from "@fastify/cookie";
import csrfProtection from "@fastify/csrf-protection";
import view from "@fastify/view";
import { Eta } from "eta";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AnyKysely } from "../db/database.ts";
import { type HttpServer, setUnknownPathPage } from "../http/server.ts";
import {
  closeSession,
  closeUserSessions,
  findSession,
  openSession,
  type SessionLimits,
  type WebSession,
} from "./sessions.ts";

// A service's web pages: templates (eta through @fastify/view), its own static files, sessions
// from the database, CSRF tokens on every form (@fastify/csrf-protection, its secret kept in the
// session), and one-shot flash messages for post-redirect-get. Nothing is kept in memory that
// another process of the service would need: a session is a row, a flash message a cookie.

declare module "fastify" {
  interface FastifyRequest {
    /**
     * What @fastify/csrf-protection reads the CSRF secret from (its `@fastify/session` mode): the
     * signed-in session's, or a signed-out visitor's kept in a cookie. Set by `pageScope` on pages,
     * and by `WebPages.session` wherever a signed-in session is found.
     */
    session: { _csrf?: string } | null;
  }
}

export interface WebPagesOptions {
  db: AnyKysely;
  limits: SessionLimits;
  /** Starts the names of the service's cookies (`inventory_session`): services may share a host. */
  cookiePrefix: string;
  /** The folder of the service's templates (`name.eta`). */
  views: string;
  /**
   * The files served under `/assets/`: the name in the URL → the file on disk, or files served
   * joined as one (a library and the few lines of ours that use it: one request, not two).
   */
  assets: Record<string, string | readonly string[]>;
}

export type FlashKind = "success" | "error" | "info";

export interface Flash {
  kind: FlashKind;
  text: string;
}

export interface WebPages {
  /** The request's live signed-in session, read once per request (and counted as used). */
  session(request: FastifyRequest): Promise<WebSession | undefined>;
  /** Starts a session for the user and sets its cookie; persistent ("Remember me") with a Max-Age. */
  signIn(request: FastifyRequest, reply: FastifyReply, userId: number, remember: boolean): Promise<void>;
  /** Ends the request's session and clears its cookie. */
  signOut(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Ends every session of the user, in every process; how many there were. */
  signOutEverywhere(userId: number): Promise<number>;
  /** A message shown once, on the next page the browser loads (after a redirect). */
  flash(reply: FastifyReply, kind: FlashKind, text: string): void;
  /** The flash message left for this request, taken (it is not shown again). */
  takeFlash(request: FastifyRequest, reply: FastifyReply): Flash | undefined;
  /** The URL of a static file, versioned by its content so it can be cached for good. */
  assetUrl(name: string): string;
  /** A small static file as a data: URL, so the page costs no request for it (its icon). */
  inlineAssetUrl(name: string): string;
}

const CONTENT_TYPES: Record<string, string> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};
const READS = new Set(["GET", "HEAD"]);
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};
const FLASH_KINDS = new Set<string>(["success", "error", "info"]);

interface Asset {
  body: Buffer;
  gzipped: Buffer;
  type: string;
  version: string;
}

function loadAssets(files: Record<string, string | readonly string[]>): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [name, paths] of Object.entries(files)) {
    // Joined files are text (scripts, styles): a line break between two keeps a file that lacks
    // a last one from running into the next.
    const body =
      typeof paths === "string"
        ? readFileSync(paths)
        : Buffer.from(paths.map((path) => readFileSync(path, "utf8")).join("\n"));
    const type = CONTENT_TYPES[extname(name)];
    if (!type) throw new Error(`no content type for asset ${name}`);
    const version = createHash("sha256").update(body).digest("hex").slice(0, 12);
    assets.set(name, { body, gzipped: gzipSync(body, { level: 9 }), type, version });
  }
  return assets;
}

/** Whether the browser reached us over TLS (directly, or through a trusted proxy's X-Forwarded-Proto). */
function overTls(request: FastifyRequest): boolean {
  return request.protocol === "https";
}

/**
 * Adds cookies, CSRF tokens, the view engine (`reply.view(name, data)`), the `/assets/:name`
 * route and sessions to the service. Call before adding routes that render pages.
 */
export async function registerWebPages(app: HttpServer, options: WebPagesOptions): Promise<WebPages> {
  const { db, limits } = options;
  const sessionCookie = `${options.cookiePrefix}_session`;
  const flashCookie = `${options.cookiePrefix}_flash`;
  await app.register(cookie);
  await app.register(csrfProtection, { sessionPlugin: "@fastify/session" });
  await app.register(view, {
    engine: { eta: new Eta({ views: options.views, autoEscape: true }) },
    root: options.views,
    // Templates compiled once: they are part of the release, not edited while it runs.
    production: true,
  });
  app.decorateRequest("session", null);

  const assets = loadAssets(options.assets);
  app.get("/assets/:name", { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get((request.params as { name: string }).name);
    if (!asset) return reply.code(404).type("text/plain; charset=utf-8").send("Not found");
    reply.type(asset.type).header("cache-control", "public, max-age=31536000, immutable");
    reply.header("vary", "accept-encoding");
    if (/\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""))) {
      return reply.header("content-encoding", "gzip").send(asset.gzipped);
    }
    return reply.send(asset.body);
  });

  const loaded = new WeakMap<FastifyRequest, Promise<WebSession | undefined>>();
  const cookieOptions = (request: FastifyRequest) =>
    ({ path: "/", httpOnly: true, sameSite: "lax", secure: overTls(request) }) as const;

  const pages: WebPages = {
    session(request) {
      let found = loaded.get(request);
      if (!found) {
        const id = request.cookies[sessionCookie];
        found = (id ? findSession(db, limits, id) : Promise.resolve(undefined)).then((session) => {
          if (session) request.session = { _csrf: session.csrfSecret };
          return session;
        });
        loaded.set(request, found);
      }
      return found;
    },
    async signIn(request, reply, userId, remember) {
      // A session this browser held before ends: every sign-in starts a new id (no fixation).
      const previous = request.cookies[sessionCookie];
      if (previous) await closeSession(db, previous);
      // A fresh CSRF secret: tokens a page handed out before sign-in are not valid after it.
      const csrfSecret = randomBytes(18).toString("base64url");
      const { id, session } = await openSession(db, limits, { userId, persistent: remember, csrfSecret });
      reply.setCookie(sessionCookie, id, {
        ...cookieOptions(request),
        ...(remember ? { maxAge: limits.absoluteSeconds } : {}),
      });
      request.session = { _csrf: csrfSecret };
      loaded.set(request, Promise.resolve(session));
    },
    async signOut(request, reply) {
      const id = request.cookies[sessionCookie];
      if (id) await closeSession(db, id);
      reply.clearCookie(sessionCookie, cookieOptions(request));
      // The ended session's CSRF secret is not handed on to the signed-out visitor.
      request.session = {};
      loaded.set(request, Promise.resolve(undefined));
    },
    signOutEverywhere: (userId) => closeUserSessions(db, userId),
    flash(reply, kind, text) {
      reply.setCookie(flashCookie, JSON.stringify({ kind, text }), cookieOptions(reply.request));
    },
    takeFlash(request, reply) {
      const raw = request.cookies[flashCookie];
      if (raw === undefined) return undefined;
      reply.clearCookie(flashCookie, cookieOptions(request));
      try {
        const parsed = JSON.parse(raw) as Partial<Flash>;
        return typeof parsed.text === "string" && FLASH_KINDS.has(String(parsed.kind))
          ? { kind: parsed.kind as FlashKind, text: parsed.text }
          : undefined;
      } catch {
        return undefined;
      }
    },
    assetUrl(name) {
      const asset = assets.get(name);
      if (!asset) throw new Error(`unknown asset ${name}`);
      return `/assets/${name}?v=${asset.version}`;
    },
    inlineAssetUrl(name) {
      const asset = assets.get(name);
      if (!asset) throw new Error(`unknown asset ${name}`);
      return `data:${asset.type.split(";")[0]};base64,${asset.body.toString("base64")}`;
    },
  };
  return pages;
}

/**
 * Makes a route scope one of pages: every request has a CSRF secret (the session's, or a signed-out
 * visitor's in a cookie, made when a form first asks for a token), and every request that is not a
 * GET or HEAD must carry a matching token (the form field `_csrf` or the header X-CSRF-TOKEN).
 */
export function pageScope(scope: HttpServer, pages: WebPages, cookiePrefix: string): void {
  const csrfCookie = `${cookiePrefix}_csrf`;
  scope.addHook("onRequest", (request) => loadCsrfSecret(request, pages, csrfCookie));
  scope.addHook("preHandler", (request, reply, done) => {
    if (READS.has(request.method)) return done();
    request.server.csrfProtection(request, reply, done);
  });
  // A signed-out visitor's secret, made by the first token a page asked for, kept for the next form;
  // and headers that keep pages to their own scripts and styles and out of other sites' frames.
  scope.addHook("onSend", async (request, reply) => {
    reply.headers(PAGE_HEADERS);
    const secret = request.session?._csrf;
    if (secret && secret !== request.cookies[csrfCookie] && !(await pages.session(request))) {
      reply.setCookie(csrfCookie, secret, {
        path: "/",
        httpOnly: true,
        sameSite: "lax",
        secure: overTls(request),
      });
    }
  });
}

/** The request's CSRF secret: the signed-in session's, or a signed-out visitor's from its cookie. */
async function loadCsrfSecret(request: FastifyRequest, pages: WebPages, csrfCookie: string): Promise<void> {
  if (await pages.session(request)) return;
  const secret = request.cookies[csrfCookie];
  request.session = secret ? { _csrf: secret } : {};
}

/**
 * A page for browsers that ask for a path no route has (core's setUnknownPathPage), rendered as
 * the scope's pages are: with the session, and under the pages' headers.
 */
export function answerUnknownPaths(
  app: HttpServer,
  pages: WebPages,
  cookiePrefix: string,
  page: (request: FastifyRequest, reply: FastifyReply) => unknown,
): void {
  setUnknownPathPage(app, async (request, reply) => {
    await loadCsrfSecret(request, pages, `${cookiePrefix}_csrf`);
    reply.headers(PAGE_HEADERS);
    return page(request, reply);
  });
}
