import { createHttpService, type HttpService, httpStatusOf, type Logger } from "@anvil/core";
import { migrations } from "./migrations/index.ts";
import { registerHealth } from "./routes/health.ts";

export interface ForgeConfig {
  host: string;
  port: number;
  /** sqlite:PATH or postgres://… */
  databaseUrl: string;
  dataDir: string;
  logger: Logger;
}

/** The Git forge with Gitea's REST API v1. */
export function createApp(config: ForgeConfig): HttpService {
  return createHttpService({
    name: "forge",
    host: config.host,
    port: config.port,
    logger: config.logger,
    databaseUrl: config.databaseUrl,
    migrationOwner: "forge",
    migrations,
    // Gitea's error body: {message, url}.
    mapError: (error, request) => ({
      status: httpStatusOf[error.kind],
      body: { message: error.message, url: `${request.protocol}://${request.host}/api/swagger` },
    }),
    register: (app, database) => registerHealth(app, database),
  });
}
