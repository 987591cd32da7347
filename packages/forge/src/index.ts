import { join } from "node:path";
import {
  createHttpService,
  type Database,
  DEFAULT_LOGIN_LIMITS,
  type HttpService,
  type LoginLimits,
  type ServiceConfig,
  startOutboxWorker,
} from "@anvil/core";
import { mapForgeError } from "./errors.ts";
import { closeObjectReaders } from "./git/index.ts";
import { migrations } from "./migrations/index.ts";
import { registerAttachmentDownloads } from "./routes/attachments.ts";
import { registerGitTransport } from "./routes/git.ts";
import { registerHealth } from "./routes/health.ts";
import { startForgeSsh } from "./routes/ssh.ts";
import { registerApiV1 } from "./routes/v1/index.ts";
import { GITEA_VERSION } from "./routes/v1/misc.ts";
import type { ForgeTables } from "./schemas/tables.ts";
import {
  type AttachmentSettings,
  attachmentRoot,
  DEFAULT_ATTACHMENT_SETTINGS,
  sweepIncoming,
} from "./services/attachment-files.ts";
import { registerDirectoryLogger } from "./services/directory-login.ts";
import { startDirectorySync } from "./services/directory-sync.ts";
import { startPullChecker } from "./services/pull-check.ts";
import { registerPullStorage } from "./services/pull-views.ts";
import { LEFTOVER_GRACE_MS, reconcileStorage } from "./services/storage-reconcile.ts";
import { registerWebhookSite } from "./services/webhook-events.ts";

export interface ForgeOptions {
  /** Port of the built-in SSH server for git; 0 or absent: no SSH. */
  sshPort?: number;
  /** Gitea's MAX_CREATION_LIMIT: repositories an account may own when its max_repo_creation is -1; -1: no limit. */
  maxCreationLimit?: number;
  /** Gitea's DEFAULT_PAGING_NUM (30) and MAX_RESPONSE_ITEMS (50). */
  paging?: { defaultLimit: number; maxLimit: number };
  /** Failed password logins allowed per account name and per address (API and git over HTTP). */
  loginLimits?: LoginLimits;
  /** Where webhooks may deliver (Gitea's webhook.ALLOWED_HOST_LIST; default `external`). */
  webhookAllowedHostList?: string;
  /** How long one webhook delivery may take (Gitea's webhook.DELIVER_TIMEOUT; default 5 s). */
  webhookDeliveryTimeoutMs?: number;
  /** The waits before each retry of a failed delivery (default: core's back-off). */
  webhookRetryWaitsMs?: number[];
  /** Gitea's [attachment] settings (enabled, allowed types, max size in MB, max files). */
  attachments?: Partial<AttachmentSettings>;
  /** How often sources with synchronization enabled are synced with their directory; 0 or absent: never. */
  authSyncIntervalMs?: number;
}

const DEFAULT_WEBHOOK_TIMEOUT_MS = 5000;
// Deliveries in flight at once per process: with batched claims and kept connections, 16 drained
// a 1,000-delivery burst at 1,006/s on SQLite where 4 managed 419/s (bench/forge.ts (m)).
const WEBHOOK_DELIVERY_CONCURRENCY = 16;

/** The Git forge with Gitea's REST API v1, and git over HTTP and SSH. */
export function createApp(config: ServiceConfig, options: ForgeOptions = {}): HttpService<ForgeTables> {
  const storage = {
    root: join(config.dataDir, "repositories"),
    maxCreationLimit: options.maxCreationLimit,
    attachments: join(config.dataDir, "attachments"),
  };
  const sshPort = options.sshPort || undefined;
  return createHttpService<ForgeTables>({
    name: "forge",
    config,
    migrationOwner: "forge",
    migrations,
    mapError: mapForgeError,
    // Gitea's JSON binding refuses a value of the wrong type.
    strictBodyTypes: true,
    nullMeansAbsent: true,
    // Gitea serves its API description at /swagger.v1.json, and its error bodies point at
    // /api/swagger, where ours is served too.
    openapi: {
      title: "anvil forge (Gitea API v1)",
      version: GITEA_VERSION,
      paths: ["/swagger.v1.json", "/api/swagger"],
    },
    register: async (app, database) => {
      // Before the first request: what a crash left between rows and repositories is settled.
      await reconcileStorage(database, storage, config.logger);
      await sweepIncoming(attachmentRoot(storage), LEFTOVER_GRACE_MS);
      registerHealth(app, database);
      registerDirectoryLogger(database, config.logger.child({ component: "directory" }));
      app.addHook("onClose", (_instance, done) => {
        closeObjectReaders();
        done();
      });
      const paging = options.paging ?? { defaultLimit: 30, maxLimit: 50 };
      const loginLimits = options.loginLimits ?? DEFAULT_LOGIN_LIMITS;
      const attachmentSettings = { ...DEFAULT_ATTACHMENT_SETTINGS, ...options.attachments };
      await registerApiV1(app, database, { paging, storage, sshPort, loginLimits, attachmentSettings });
      await registerGitTransport(app, database, storage, loginLimits);
      await registerAttachmentDownloads(app, database, storage, loginLimits);
      // Payloads link to the forge as its answers do: the root URL, else the address it listens on.
      const rootUrl = () => new URL(config.rootUrl || `${app.listeningOrigin}/`);
      registerPullStorage(database.db, storage);
      registerWebhookSite(database.db, {
        urls: () => {
          const root = rootUrl();
          return {
            rootUrl: root,
            ssh: sshPort === undefined ? undefined : { host: root.hostname, port: sshPort },
          };
        },
      });
    },
    companions: [
      // Mergeability of pull requests: checked when marked, and polled for other processes' marks.
      async (database) => {
        const checker = startPullChecker(database, storage, config.logger.child({ component: "pulls" }));
        return { close: () => checker.stop() };
      },
      // Webhook deliveries: polled, and woken when this process queued some (core's signal).
      async (database) => {
        const worker = startOutboxWorker({
          database,
          allowedHosts: options.webhookAllowedHostList ?? "external",
          timeoutMs: options.webhookDeliveryTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
          retries: options.webhookRetryWaitsMs,
          concurrency: WEBHOOK_DELIVERY_CONCURRENCY,
          logger: config.logger.child({ component: "webhooks" }),
        });
        return { close: () => worker.stop() };
      },
      ...(options.authSyncIntervalMs
        ? [
            async (database: Database<ForgeTables>) =>
              startDirectorySync(
                database,
                options.authSyncIntervalMs ?? 0,
                config.logger.child({ component: "directory" }),
              ),
          ]
        : []),
      ...(sshPort === undefined
        ? []
        : [
            (database: Database<ForgeTables>) =>
              startForgeSsh(database, storage, {
                host: config.host,
                port: sshPort,
                dataDir: config.dataDir,
                logger: config.logger.child({ server: "ssh" }),
              }),
          ]),
    ],
  });
}
