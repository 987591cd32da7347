export * from "./auth/index.ts";
export * from "./config/index.ts";
export * from "./db/index.ts";
export * from "./errors.ts";
export * from "./http/index.ts";
export * from "./log/index.ts";
export { openMigratedDatabase } from "./migrated.ts";
export * from "./outbox/index.ts";
export {
  createHttpService,
  type DatabaseConfig,
  type HttpService,
  type HttpServiceOptions,
  type ServiceApp,
  type ServiceConfig,
} from "./service.ts";
export * from "./web/index.ts";
