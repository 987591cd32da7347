import { type HttpServer, offsetWindow, paginationHeaders, Unauthorized, type WebPages } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { RequestOrigin } from "../../services/activity.ts";
import { withCompanyScope } from "../../services/companies.ts";
import type { InventoryDatabase } from "../../services/database.ts";
import { type ListParams, MAX_RESULTS } from "../../services/listing.ts";
import { type Caller, requirePermission } from "../../services/permissions.ts";
import type { Storage } from "../../services/storage.ts";
import { authenticate, sessionCaller } from "../../services/tokens.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The inventory API's caller, set by its authentication hook (the forge's is `caller`). */
    actor?: Caller;
  }
}

/** What every /api/v1 route family is registered with. */
export interface ApiContext {
  app: HttpServer;
  database: InventoryDatabase;
  /** Where uploaded files are kept. */
  storage: Storage;
}

/** How the inventory decides who calls: its database, its web sessions, and company scoping. */
export interface Identification {
  database: InventoryDatabase;
  web: WebPages;
  /** Snipe-IT's full multiple companies support: non-superusers see only their company's rows. */
  fullMultipleCompaniesSupport: boolean;
}

function bearer(header: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1] : "";
}

/** The caller a signed-in web session stands for (pages, and the API without a token). */
export async function sessionCallerOf(
  { database, web, fullMultipleCompaniesSupport }: Identification,
  request: FastifyRequest,
): Promise<Caller | undefined> {
  const session = await web.session(request);
  const caller = session && (await sessionCaller(database, session.userId, request.rootUrl));
  return caller && withCompanyScope(caller, fullMultipleCompaniesSupport);
}

/**
 * Who calls the API, the one place that decides: the API token's user when `Authorization: Bearer`
 * is sent (a wrong token is not made good by a cookie), else the signed-in web session's, as
 * Snipe-IT's pages call its API with their session cookie.
 */
export async function identifyCaller(
  identification: Identification,
  request: FastifyRequest,
): Promise<Caller | undefined> {
  const secret = bearer(request.headers.authorization);
  if (secret === "") return sessionCallerOf(identification, request);
  const caller = await authenticate(identification.database, secret, request.rootUrl);
  return caller && withCompanyScope(caller, identification.fullMultipleCompaniesSupport);
}

export function callerOf(request: FastifyRequest): Caller {
  if (!request.actor) throw new Unauthorized();
  return request.actor;
}

/** The caller, once they hold `permission` (e.g. `companies.view`); 403 otherwise. */
export function authorized(request: FastifyRequest, permission: string): Caller {
  const caller = callerOf(request);
  requirePermission(caller, permission);
  return caller;
}

/**
 * Route options whose `permission` is checked before the body is read (core's `authorize`), so
 * a caller without it costs no parsing and stages no file. The handler still asks `authorized`.
 */
export function permitted(permission: string) {
  return { authorize: (request: FastifyRequest) => authorized(request, permission) };
}

export function originOf(request: FastifyRequest): RequestOrigin {
  const agent = request.headers["user-agent"];
  return { remoteIp: request.ip, userAgent: typeof agent === "string" ? agent : undefined };
}

/** Snipe-IT's write envelope (spec §2.3). */
export function success(messages: unknown, payload: unknown = null) {
  return { status: "success", messages, payload };
}

/**
 * Snipe-IT's `{total, rows}`, with our Link and X-Total-Count headers (spec §26). A keyset page
 * (`after`) links only to the next one, after its last id, and to none when it is the last.
 */
export function sendList(
  request: FastifyRequest,
  reply: FastifyReply,
  params: Pick<ListParams, "limit" | "offset" | "after">,
  page: { total: number; rows: unknown[]; next?: number },
) {
  if (params.after === undefined) {
    const window = offsetWindow(params, { defaultLimit: MAX_RESULTS, maxLimit: MAX_RESULTS });
    reply.headers(paginationHeaders(request.publicUrl, window, page.total, "offset"));
  } else {
    reply.header("x-total-count", String(page.total));
    reply.header("access-control-expose-headers", "X-Total-Count, Link");
    if (page.next !== undefined) {
      const next = new URL(request.publicUrl);
      next.searchParams.set("after", String(page.next));
      next.searchParams.set("limit", String(params.limit));
      reply.header("link", `<${next.toString()}>; rel="next"`);
    }
  }
  return { total: page.total, rows: page.rows };
}

/** A path id as Snipe-IT's route binding reads it; anything else finds nothing. */
export function idParam(request: FastifyRequest, name = "id"): number {
  const value = (request.params as Record<string, string>)[name];
  return /^\d+$/.test(value ?? "") ? Number(value) : Number.NaN;
}
