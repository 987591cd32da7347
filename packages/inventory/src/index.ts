import {
  createHttpService,
  DEFAULT_LOGIN_LIMITS,
  DEFAULT_SESSION_LIMITS,
  type HttpService,
  type LoginLimits,
  type ServiceConfig,
  type SessionLimits,
  startOutboxWorker,
  type UploadLimits,
} from "@anvil/core";
import { mapInventoryError } from "./errors.ts";
import { migrations } from "./migrations/index.ts";
import { registerHealth } from "./routes/health.ts";
import { registerApiV1 } from "./routes/v1/index.ts";
import type { InventoryTables } from "./schemas/tables.ts";
import { storageUnder } from "./services/storage.ts";
import { registerPages, registerWebSupport } from "./web/index.ts";

export interface InventoryOptions {
  /** Requests per user per minute (Snipe-IT's API_THROTTLE_PER_MINUTE, default 120); 0 disables. */
  apiThrottlePerMinute?: number;
  /** Snipe-IT's full multiple companies support (default off): non-superusers see only their company's rows. */
  fullMultipleCompaniesSupport?: boolean;
  /** Largest uploaded file and most files per request (images, attachments, CSV imports); core's defaults when absent. */
  uploads?: UploadLimits;
  /** Where notifications may be delivered (Gitea's ALLOWED_HOST_LIST syntax; default `external`). */
  webhookAllowedHostList?: string;
  /** The waits before each retry of a failed delivery (default: core's back-off). */
  webhookRetryWaitsMs?: number[];
  /** Limits on failed sign-ins to the web pages (default: core's). */
  loginLimits?: LoginLimits;
  /** How long a web session lasts unused and at most (default: core's). */
  sessionLimits?: SessionLimits;
}

const WEBHOOK_TIMEOUT_MS = 5000;

/** The IT asset inventory with Snipe-IT's REST API v1. */
export function createApp(
  config: ServiceConfig,
  options: InventoryOptions = {},
): HttpService<InventoryTables> {
  return createHttpService<InventoryTables>({
    name: "inventory",
    config,
    migrationOwner: "inventory",
    migrations,
    mapError: mapInventoryError,
    uploads: options.uploads,
    // Snipe-IT publishes no machine-readable API description; ours sits beside the API.
    openapi: {
      title: "anvil inventory (Snipe-IT API v1)",
      version: "8.1.4",
      paths: ["/api/v1/openapi.json"],
    },
    register: async (app, database) => {
      registerHealth(app, database);
      const fullMultipleCompaniesSupport = options.fullMultipleCompaniesSupport ?? false;
      const web = await registerWebSupport(app, database, options.sessionLimits ?? DEFAULT_SESSION_LIMITS);
      const storage = storageUnder(config.dataDir);
      await registerApiV1(app, database, {
        throttlePerMinute: options.apiThrottlePerMinute ?? 120,
        fullMultipleCompaniesSupport,
        storage,
        web,
      });
      await registerPages(app, database, {
        web,
        storage,
        loginLimits: options.loginLimits ?? DEFAULT_LOGIN_LIMITS,
        fullMultipleCompaniesSupport,
      });
    },
    companions: [
      // Notification deliveries: polled, and woken when this process queued some (core's signal).
      async (database) => {
        const worker = startOutboxWorker({
          database,
          allowedHosts: options.webhookAllowedHostList ?? "external",
          timeoutMs: WEBHOOK_TIMEOUT_MS,
          retries: options.webhookRetryWaitsMs,
          logger: config.logger.child({ component: "notifications" }),
        });
        return { close: () => worker.stop() };
      },
    ],
  });
}
