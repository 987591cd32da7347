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
