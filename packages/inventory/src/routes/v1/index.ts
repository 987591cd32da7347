import {
  type HttpServer,
  signalQueuedDeliveries,
  TooManyRequests,
  Unauthorized,
  type WebPages,
} from "@anvil/core";
import { ReadOnlyToken } from "../../errors.ts";
import { RESOURCES } from "../../resources/index.ts";
import type { InventoryDatabase } from "../../services/database.ts";
import type { Storage } from "../../services/storage.ts";
import { throttle } from "../../services/throttle.ts";
import { registerDraftHardware } from "../draft.ts";
import { registerUploadedImages } from "../uploads.ts";
import { registerAccountRequests } from "./account.ts";
import { registerActivityReport } from "./activity.ts";
import { type ApiContext, identifyCaller } from "./context.ts";
import { registerDepreciationReport } from "./depreciation-report.ts";
import { registerCustomFields } from "./fields.ts";
import { registerFiles } from "./files.ts";
import { registerHardware } from "./hardware.ts";
import { registerHardwareBulk } from "./hardware-bulk.ts";
import { registerHoldings } from "./holdings.ts";
import { registerImports } from "./imports.ts";
import { registerItemRoutes } from "./items.ts";
import { registerKits } from "./kits.ts";
import { registerLabels } from "./labels.ts";
import { registerMisc } from "./misc.ts";
import { acceptMultipart } from "./multipart.ts";
import { registerResource } from "./resource.ts";
import { registerSelectlists } from "./selectlists.ts";
import { registerSettings } from "./settings.ts";
import { registerStatuslabelExtras } from "./statuslabels.ts";
import { registerTokens } from "./tokens.ts";
import { registerUserRoutes } from "./users.ts";
import { registerWebhooks } from "./webhooks.ts";

export interface ApiOptions {
  /** Requests per user per minute (Snipe-IT's API_THROTTLE_PER_MINUTE); 0: no limit. */
  throttlePerMinute: number;
  /** Snipe-IT's full multiple companies support: non-superusers see only their company's rows. */
  fullMultipleCompaniesSupport: boolean;
  /** Where uploaded files are kept. */
  storage: Storage;
  /** The web pages' sessions, which also authorize the API (identifyCaller). */
  web: WebPages;
}

const READS = new Set(["GET", "HEAD"]);

// Route schemas document the API; Snipe-IT's Laravel rules (services/validation.ts) validate it,
// so a request never fails on a JSON schema with messages Laravel would not give.
const documentOnly = () => () => true;

/** A route scope where every request is authenticated, rate-limited and held to its token's tier. */
function guarded(scope: unknown, database: InventoryDatabase, options: ApiOptions): HttpServer {
  const api = scope as unknown as HttpServer;
  api.setValidatorCompiler(documentOnly);
  api.decorateRequest("actor", undefined);
  acceptMultipart(api, options.storage);
  const identification = {
    database,
    web: options.web,
    fullMultipleCompaniesSupport: options.fullMultipleCompaniesSupport,
  };
  api.addHook("onRequest", async (request, reply) => {
    const caller = await identifyCaller(identification, request);
    if (!caller) throw new Unauthorized();
    request.actor = caller;
    if (options.throttlePerMinute > 0) {
      const verdict = await throttle(database, caller.user.id, options.throttlePerMinute);
      reply.header("x-ratelimit-limit", verdict.limit);
      reply.header("x-ratelimit-remaining", verdict.remaining);
      if (!verdict.allowed) throw new TooManyRequests("Too many requests", verdict.retryAfter);
    }
    if (caller.readOnly && !READS.has(request.method)) throw new ReadOnlyToken();
  });
  // A write authorized by a session cookie alone must carry the session's CSRF token in
  // X-CSRF-TOKEN (as Snipe-IT's pages send theirs), or another site could make the browser write.
  // `request.session` is set only when the session, not a token, identified the caller.
  api.addHook("onRequest", (request, reply, done) => {
    if (request.session === null || READS.has(request.method)) return done();
    request.server.csrfProtection(request, reply, done);
  });
  // A change that queued notifications has committed once its answer is sent: the delivery
  // workers of this process are woken then (core's signalQueuedDeliveries).
  api.addHook("onResponse", (_request, _reply, done) => {
    signalQueuedDeliveries();
    done();
  });
  return api;
}

/** Snipe-IT's REST API v1 under /api/v1: who the caller is, their rate, their token's tier, the routes. */
export async function registerApiV1(app: HttpServer, database: InventoryDatabase, options: ApiOptions) {
  await app.register(
    async (scope) => {
      const api = guarded(scope, database, options);
      const context: ApiContext = { app: api, database, storage: options.storage };
      registerMisc(context);
      registerTokens(context);
      for (const definition of RESOURCES) registerResource(context, definition);
      registerHardware(context);
      registerHardwareBulk(context);
      registerHoldings(context);
      registerCustomFields(context);
      registerUserRoutes(context);
      registerItemRoutes(context);
      registerKits(context);
      registerActivityReport(context);
      registerImports(context);
      registerFiles(context);
      registerSelectlists(context);
      registerSettings(context);
      registerLabels(context);
      registerDepreciationReport(context);
      registerStatuslabelExtras(context);
      registerAccountRequests(context);
      registerWebhooks(context);
    },
    { prefix: "/api/v1" },
  );
  // The seed's draft paths (spec §25), behind the same authentication.
  await app.register(
    async (scope) =>
      registerDraftHardware({ app: guarded(scope, database, options), database, storage: options.storage }),
    { prefix: "/api/hardware" },
  );
  registerUploadedImages(app, options.storage);
}
