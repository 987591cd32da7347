import { join } from "node:path";
import { type ConfigKey, type ConfigOf, resolveConfig } from "@anvil/core/config";

// Every setting of the anvil command. The dotted name gives the flag (--forge-port), the
// variable (ANVIL_FORGE_PORT) and the config file key (forge: {port: …}).
export const settingsSpec = {
  "data-dir": {
    type: "string",
    default: "./data",
    description: "directory for databases, repositories and uploads",
  } as ConfigKey<"string">,
  host: {
    type: "string",
    default: "0.0.0.0",
    description: "address every service listens on",
  } as ConfigKey<"string">,
  "log-level": {
    type: "string",
    default: "info",
    description: "fatal, error, warn, info, debug or trace",
  } as ConfigKey<"string">,
  "forge.port": { type: "port", default: 3000, description: "forge HTTP port" } as ConfigKey<"port">,
  "forge.database": {
    type: "string",
    default: "",
    description: "forge database URL (default sqlite:<data-dir>/forge.db)",
  } as ConfigKey<"string">,
  "inventory.port": { type: "port", default: 8000, description: "inventory HTTP port" } as ConfigKey<"port">,
  "inventory.database": {
    type: "string",
    default: "",
    description: "inventory database URL (default sqlite:<data-dir>/inventory.db)",
  } as ConfigKey<"string">,
  "hooks.port": { type: "port", default: 9000, description: "hook runner HTTP port" } as ConfigKey<"port">,
  "hooks.files": {
    type: "list",
    default: [],
    description: "hooks files (JSON or YAML) for the hook runner under anvil serve",
  } as ConfigKey<"list">,
  "hooks.urlprefix": {
    type: "string",
    default: "hooks",
    description: "URL prefix of hook endpoints",
  } as ConfigKey<"string">,
  "hooks.hotreload": {
    type: "boolean",
    default: false,
    description: "reload hooks files when they change",
  } as ConfigKey<"boolean">,
};

export type Settings = ConfigOf<typeof settingsSpec>;

const LOG_LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/** Resolves flags > ANVIL_* variables > config file (--config or ANVIL_CONFIG) > defaults. */
export function loadSettings(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Settings {
  const file = (flags.config as string | undefined) ?? env.ANVIL_CONFIG;
  const { config: _config, ...rest } = flags;
  const settings = resolveConfig(settingsSpec, { flags: rest, env, file });
  if (!LOG_LEVELS.has(settings["log-level"])) {
    throw new Error(
      `invalid value for log-level: "${settings["log-level"]}" is not one of ${[...LOG_LEVELS].join(", ")}`,
    );
  }
  return settings;
}

export function databaseUrl(settings: Settings, service: "forge" | "inventory"): string {
  const given = settings[`${service}.database`];
  return given !== "" ? given : `sqlite:${join(settings["data-dir"], `${service}.db`)}`;
}
