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
export {
  DEFAULT_LOGIN_LIMITS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  type LoginLimits,
  parseTrustProxy,
} from "./service-settings.ts";
