import {
  closeOnSignals,
  createLogger,
  type Logger,
  parseTrustProxy,
  type ServiceApp,
  type ServiceConfig,
} from "@anvil/core";
import { createApp as createForge } from "@anvil/forge";
import { createApp as createInventory } from "@anvil/inventory";
import { createHooksService } from "./hooks-service.ts";
import { databaseUrl, type Settings } from "./settings.ts";

function createService(name: "forge" | "inventory", settings: Settings, logger: Logger): ServiceApp {
  const config: ServiceConfig = {
    host: settings.host,
    port: settings[`${name}.port`],
    dataDir: settings["data-dir"],
    logger: logger.child({ service: name }),
    database: {
      url: databaseUrl(settings, name),
      poolSize: settings[`${name}.database-pool-size`],
      statementCacheSize: settings[`${name}.statement-cache-size`],
    },
    rootUrl: settings[`${name}.root-url`],
    trustProxy: parseTrustProxy(settings["trust-proxy"]),
    shutdownGraceMs: settings["shutdown-grace"] * 1000,
  };
  return name === "forge"
    ? createForge(config, {
        sshPort: settings["forge.ssh-port"],
        loginLimits: {
          accountFailures: settings["forge.login-failures-per-account"],
          addressFailures: settings["forge.login-failures-per-address"],
          windowSeconds: settings["forge.login-failure-window"],
          trustSeconds: settings["forge.login-trusted-address-days"] * 86_400,
        },
        maxCreationLimit: settings["forge.max-creation-limit"],
        webhookAllowedHostList: settings["forge.webhook-allowed-host-list"],
        webhookDeliveryTimeoutMs: settings["forge.webhook-delivery-timeout"] * 1000,
        attachments: { maxSize: settings["forge.attachment-max-size"] },
        authSyncIntervalMs: settings["forge.auth-sync-interval"] * 1000,
        paging: {
          defaultLimit: settings["forge.default-paging-num"],
          maxLimit: settings["forge.max-response-items"],
        },
      })
    : createInventory(config, {
        apiThrottlePerMinute: settings["inventory.api-throttle-per-minute"],
        fullMultipleCompaniesSupport: settings["inventory.full-multiple-companies-support"],
        webhookAllowedHostList: settings["inventory.webhook-allowed-host-list"],
      });
}

/** Starts the services in order; if one fails, the ones already started are closed again. */
async function serveApps(apps: ServiceApp[], logger: Logger): Promise<void> {
  const started: ServiceApp[] = [];
  const closeAll = async () => {
    await Promise.allSettled(started.map((app) => app.close()));
  };
  closeOnSignals(closeAll, (error) => logger.error({ err: error }, "shutdown failed"));
  try {
    for (const app of apps) {
      const url = await app.listen();
      started.push(app);
      logger.info(`${app.name} listening on ${url}`);
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
}

export type ServiceName = "forge" | "inventory" | "hooks";

/** Starts the named services with the resolved settings; returns once all listen. */
export async function serve(names: readonly ServiceName[], settings: Settings): Promise<void> {
  const logger = createLogger({ level: settings["log-level"] });
  const apps = names.map((name) =>
    name === "hooks" ? createHooksService(settings, logger) : createService(name, settings, logger),
  );
  await serveApps(apps, logger);
}
