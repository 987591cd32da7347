import {
  Forbidden,
  type HttpServer,
  isLatestGeneration,
  type PageWindow,
  pageWindow,
  paginationHeaders,
  type RowMemo,
  Unauthorized,
} from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AccountRow } from "../../repositories/accounts.ts";
import { type ForgeDatabase, isAdmin } from "../../services/accounts.ts";
import type { AttachmentSettings } from "../../services/attachment-files.ts";
import type { Caller } from "../../services/auth.ts";
import type { Storage } from "../../services/repositories.ts";
import { checkScope, type ScopeCategory } from "../../services/scopes.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the API's authentication hook; undefined for anonymous callers. */
    caller?: Caller;
    /**
     * For a route with `keptPage`: the database's generation (core's databaseGeneration) taken
     * before anything of the request was read, the caller included; see sendKeptPage.
     */
    keptSince?: object;
  }
  interface FastifyContextConfig {
    /** The token scope category a route belongs to (Gitea's route groups). */
    scope?: ScopeCategory;
    /**
     * The route writes what a repository holds (Gitea's mustNotBeArchived): refused with 423 while
     * the repository is archived. Checked where the route loads its repository (requestedRepository).
     */
    readOnlyWhenArchived?: boolean;
    /** The route answers with sendKeptPage: the API's first hook takes `keptSince` for it. */
    keptPage?: boolean;
  }
}

/** What every /api/v1 route family is registered with. */
export interface ApiContext {
  app: HttpServer;
  database: ForgeDatabase;
  paging: { defaultLimit: number; maxLimit: number };
  storage: Storage;
  /** The SSH server's port when it runs, for `ssh_url`. */
  sshPort?: number;
  /** Gitea's [attachment] settings (GET /settings/attachment); its defaults when absent. */
  attachmentSettings?: AttachmentSettings;
}

/** Methods that only read; every other one is a write (for token scopes and sign-in). */
export const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Refuses a token call to a route its scopes do not cover (Gitea's tokenRequiresScopes). */
export function scopeCovers(request: FastifyRequest): void {
  const category = request.routeOptions.config.scope;
  const scopes = request.caller?.scopes;
  if (category && scopes) checkScope(scopes, category, !READS.has(request.method));
}

export function signedIn(request: FastifyRequest): Caller {
  if (!request.caller) throw new Unauthorized("token is required");
  return request.caller;
}

export function siteAdmin(request: FastifyRequest): Caller {
  const caller = signedIn(request);
  if (!isAdmin(caller.account)) throw new Forbidden("user should be the site admin");
  return caller;
}

/** Gitea's /admin group, in its order: a signed-in caller, a token with the admin scope, a site admin. */
export function adminGroup(request: FastifyRequest): Caller {
  signedIn(request);
  scopeCovers(request);
  return siteAdmin(request);
}

/** Token management needs basic auth with the password: a token cannot make or see tokens. */
export function passwordAuthenticated(request: FastifyRequest): Caller {
  if (request.caller?.via !== "password") throw new Unauthorized("auth required");
  return request.caller;
}

export function selfOrAdmin(caller: Caller, account: AccountRow): void {
  if (caller.account.id !== account.id && !isAdmin(caller.account))
    throw new Forbidden("doer should be the site admin or be same as the contextUser");
}

/** The page a list request asks for, with Gitea's limits; sets Link and X-Total-Count. */
export function paged(context: ApiContext, request: FastifyRequest): PageWindow {
  return pageWindow(request.query as Record<string, unknown>, context.paging);
}

/** Stands for an anonymous caller among the rows of a RowMemo key. */
export const ANONYMOUS = Object.freeze({});

/**
 * A rendered page, serialized and encoded (sending a string encodes it again on every request,
 * most of what sending a kept page cost), and its X-Total-Count and Link headers (building a deep
 * page's four links anew cost a fifth of a kept page's time: page 1,000 ran at 0.79x page 1).
 */
export interface KeptPage {
  body: Buffer;
  headers: Record<string, string>;
}

// Pages are big (a page of issues is ~50 KB) and the rows they hang on may stay for long while
// nothing is written (prepared() keeps up to 10,000 results a query): beyond this many bytes kept
// while the database is unchanged, further pages are not kept. All kept pages are equally current,
// so none is let go for a new one (which, for pages read in turn, would keep none that is read
// again); they all go together once the database changes.
const KEPT_PAGES_BYTES = 64 * 1024 * 1024;
let keptSince: object | undefined;
let keptBytes = 0;

/** Whether a page of this many bytes may be kept while the database is as `unchanged` says. */
function roomFor(unchanged: object, bytes: number): boolean {
  if (unchanged !== keptSince) {
    keptSince = unchanged;
    keptBytes = 0;
  }
  if (keptBytes + bytes > KEPT_PAGES_BYTES) return false;
  keptBytes += bytes;
  return true;
}

/**
 * Sends a page as sendPage does, read, rendered and serialized once for as long as nothing it was
 * read from changed. The page is kept under the database's generation taken before the request
 * read anything (`keptSince`, for routes with `keptPage`), and found again only under that same
 * generation: on SQLite also only while `rows` (the prepared rows read before the page, the
 * caller's account or ANONYMOUS among them) are the ones the database hands out (core's RowMemo);
 * on PostgreSQL, where every read makes new rows, under the caller's account id instead, which the
 * generation (the server's snapshot) makes as exact. The request's URL (path, filters, page) and
 * root URL are part of the key; `key` adds what else the page depends on that is not read from the
 * database, such as the caller's access.
 */
export async function sendKeptPage(
  request: FastifyRequest,
  reply: FastifyReply,
  database: ForgeDatabase,
  window: PageWindow,
  memo: RowMemo<KeptPage>,
  rows: readonly object[],
  key: string,
  read: () => Promise<{ rows: unknown[]; total: number }>,
) {
  const since = request.keptSince;
  const sqlite = database.dialect === "sqlite";
  const chain = since && (sqlite ? [since, ...rows] : [since]);
  const caller = sqlite ? "" : ` ${request.caller?.account.id ?? "-"}`;
  const fullKey = `${key} ${request.rootUrl.href} ${request.url}${caller}`;
  let kept = chain && memo.find(chain, fullKey);
  if (kept === undefined) {
    const page = await read();
    kept = {
      body: Buffer.from(JSON.stringify(page.rows)),
      headers: paginationHeaders(request.publicUrl, window, page.total),
    };
    if (since && chain && isLatestGeneration(database.db, since) && roomFor(since, kept.body.length))
      memo.keep(chain, fullKey, kept);
  }
  reply.headers(kept.headers);
  return reply.type("application/json; charset=utf-8").send(kept.body);
}

export function sendPage<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  window: PageWindow,
  page: { rows: T[]; total: number },
  render: (row: T) => unknown,
) {
  reply.headers(paginationHeaders(request.publicUrl, window, page.total));
  return page.rows.map(render);
}
