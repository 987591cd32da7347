import type { Logger, ServiceApp } from "@anvil/core";
import { createApp, defaultHooksConfig } from "@anvil/hooks";
import type { Settings } from "./settings.ts";

/** The hook runner as `anvil serve` runs it: webhook's defaults plus the anvil settings. */
export function createHooksService(settings: Settings, logger: Logger): ServiceApp {
  return createApp({
    ...defaultHooksConfig(),
    ip: settings.host,
    port: settings["hooks.port"],
    hooks: settings["hooks.files"],
    urlprefix: settings["hooks.urlprefix"],
    hotreload: settings["hooks.hotreload"],
    // webhook logs only with -verbose; under anvil serve its lines follow the shared log level.
    verbose: logger.isLevelEnabled("info"),
    nopanic: true,
  });
}
