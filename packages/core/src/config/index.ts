export {
  ConfigError,
  type ConfigKey,
  type ConfigOf,
  type ConfigSources,
  type ConfigSpec,
  type ConfigValueType,
  envName,
  flagName,
  resolveConfig,
} from "./config.ts";
export { DEFAULT_SHUTDOWN_GRACE_MS, parseTrustProxy } from "./service-settings.ts";
