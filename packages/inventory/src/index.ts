import { createHttpService, type HttpService, type ServiceConfig } from "@anvil/core";
import { mapInventoryError } from "./errors.ts";
import { migrations } from "./migrations/index.ts";
import { registerHealth } from "./routes/health.ts";

/** The IT asset inventory with Snipe-IT's REST API v1. */
export function createApp(config: ServiceConfig): HttpService {
  return createHttpService({
    name: "inventory",
    config,
    migrationOwner: "inventory",
    migrations,
    mapError: mapInventoryError,
    // Snipe-IT publishes no machine-readable API description; ours sits beside the API.
    openapi: {
      title: "anvil inventory (Snipe-IT API v1)",
      version: "8.1.4",
      paths: ["/api/v1/openapi.json"],
    },
    register: (app, database) => registerHealth(app, database),
  });
}
