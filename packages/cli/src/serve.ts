import { closeOnSignals, createLogger, type Logger, type ServiceApp } from "@anvil/core";
import { createApp as createForge } from "@anvil/forge";
import { createApp as createInventory } from "@anvil/inventory";
import { createHooksService } from "./hooks-service.ts";
import { databaseUrl, type Settings } from "./settings.ts";

function createService(name: "forge" | "inventory", settings: Settings, logger: Logger): ServiceApp {
  const config = {
    host: settings.host,
    port: settings[`${name}.port`],
    databaseUrl: databaseUrl(settings, name),
    dataDir: settings["data-dir"],
    logger: logger.child({ service: name }),
  };
  return name === "forge" ? createForge(config) : createInventory(config);
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
