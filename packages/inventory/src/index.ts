import { createHttpService, type HttpService, httpStatusOf, type Logger } from "@anvil/core";
import { migrations } from "./migrations/index.ts";
import { registerHealth } from "./routes/health.ts";

export interface InventoryConfig {
  host: string;
  port: number;
  /** sqlite:PATH or postgres://… */
  databaseUrl: string;
  dataDir: string;
  logger: Logger;
}

/** The IT asset inventory with Snipe-IT's REST API v1. */
export function createApp(config: InventoryConfig): HttpService {
  return createHttpService({
    name: "inventory",
    host: config.host,
    port: config.port,
    logger: config.logger,
    databaseUrl: config.databaseUrl,
    migrationOwner: "inventory",
    migrations,
    // Snipe-IT's standard envelope: {status: "error", messages, payload: null}.
    mapError: (error) => ({
      status: httpStatusOf[error.kind],
      body: {
        status: "error",
        messages: Object.keys(error.details).length > 0 ? error.details : error.message,
        payload: null,
      },
    }),
    register: (app, database) => registerHealth(app, database),
  });
}
