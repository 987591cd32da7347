import { join } from "node:path";
import {
  type ConfigKey,
  type ConfigOf,
  DEFAULT_LOGIN_LIMITS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  parseTrustProxy,
  resolveConfig,
} from "@anvil/core/config";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

const atLeastOne = { test: (n: number) => n >= 1, expected: "a whole number of at least 1" };
const zeroOrMore = { test: (n: number) => n >= 0, expected: "a whole number, 0 or more" };

function isRootUrl(text: string): boolean {
  if (text === "") return true;
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === "";
  } catch {
    return false;
  }
}

// The settings each database-backed service has, under its own prefix.
function serviceSettings<P extends string>(prefix: P, port: number) {
  return {
    [`${prefix}.port`]: {
      type: "port",
      default: port,
      description: `${prefix} HTTP port`,
    } as ConfigKey<"port">,
    [`${prefix}.database`]: {
      type: "string",
      default: "",
      description: `${prefix} database URL (default sqlite:<data-dir>/${prefix}.db)`,
    } as ConfigKey<"string">,
    [`${prefix}.root-url`]: {
      type: "string",
      default: "",
      description: `public URL of the ${prefix}, as clients reach it through any proxy (default http://<host>:<port>/)`,
      accepts: { test: isRootUrl, expected: "an http:// or https:// URL without query" },
    } as ConfigKey<"string">,
    [`${prefix}.database-pool-size`]: {
      type: "integer",
      default: 10,
      description: `PostgreSQL connections per ${prefix} process`,
      accepts: atLeastOne,
    } as ConfigKey<"integer">,
    [`${prefix}.statement-cache-size`]: {
      type: "integer",
      default: 200,
      description: `prepared statements kept by the ${prefix} on SQLite`,
      accepts: atLeastOne,
    } as ConfigKey<"integer">,
  } as unknown as { [K in `${P}.port`]: ConfigKey<"port"> } & {
    [K in `${P}.database` | `${P}.root-url`]: ConfigKey<"string">;
  } & { [K in `${P}.database-pool-size` | `${P}.statement-cache-size`]: ConfigKey<"integer"> };
}

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
    description: "fatal, error, warn, info, debug, trace or silent",
    accepts: {
      test: (level: string) => LOG_LEVELS.includes(level),
      expected: `one of ${LOG_LEVELS.join(", ")}`,
    },
  } as ConfigKey<"string">,
  "trust-proxy": {
    type: "string",
    default: "",
    description:
      "proxies whose X-Forwarded-* headers are believed: true (any), or IP addresses/CIDR ranges (default none)",
    accepts: {
      test: (text: string) => parseTrustProxy(text) !== undefined,
      expected: "true, false or a comma-separated list of IP addresses and CIDR ranges",
    },
  } as ConfigKey<"string">,
  "shutdown-grace": {
    type: "integer",
    default: DEFAULT_SHUTDOWN_GRACE_MS / 1000,
    description: "seconds in-flight requests may run after SIGTERM before their connections are closed",
    accepts: { test: (n: number) => n >= 0, expected: "a whole number of seconds, 0 or more" },
  } as ConfigKey<"integer">,
  ...serviceSettings("forge", 3000),
  "forge.ssh-port": {
    type: "port",
    default: 2222,
    description: "port of the forge's built-in SSH server for git (0: no SSH)",
  } as ConfigKey<"port">,
  "forge.default-paging-num": {
    type: "integer",
    default: 30,
    description:
      "items in a page of an API list when the client asks for no limit (Gitea's DEFAULT_PAGING_NUM)",
    accepts: atLeastOne,
  } as ConfigKey<"integer">,
  "forge.max-response-items": {
    type: "integer",
    default: 50,
    description: "most items in a page of an API list, whatever the client asks (Gitea's MAX_RESPONSE_ITEMS)",
    accepts: atLeastOne,
  } as ConfigKey<"integer">,
  "forge.login-failures-per-account": {
    type: "integer",
    default: DEFAULT_LOGIN_LIMITS.accountFailures,
    description:
      "failed password logins (API basic auth, git over HTTP) to one account name within the window before more are refused with 429 (0: no limit)",
    accepts: zeroOrMore,
  } as ConfigKey<"integer">,
  "forge.login-failures-per-address": {
    type: "integer",
    default: DEFAULT_LOGIN_LIMITS.addressFailures,
    description:
      "failed password logins from one client address (an IPv6 /64) within the window before more are refused with 429 (0: no limit)",
    accepts: zeroOrMore,
  } as ConfigKey<"integer">,
  "forge.login-failure-window": {
    type: "integer",
    default: DEFAULT_LOGIN_LIMITS.windowSeconds,
    description: "seconds over which failed password logins are counted (a sliding window)",
    accepts: atLeastOne,
  } as ConfigKey<"integer">,
  "forge.login-trusted-address-days": {
    type: "integer",
    default: DEFAULT_LOGIN_LIMITS.trustSeconds / 86_400,
    description:
      "days an address that signed in to an account stays exempt from that account's failure limit (0: never)",
    accepts: zeroOrMore,
  } as ConfigKey<"integer">,
  "forge.max-creation-limit": {
    type: "integer",
    default: -1,
    description:
      "repositories an account may own when its own max_repo_creation is -1 (Gitea's MAX_CREATION_LIMIT; -1: no limit)",
    accepts: { test: (n: number) => n >= -1, expected: "a whole number, -1 or more" },
  } as ConfigKey<"integer">,
  "forge.webhook-allowed-host-list": {
    type: "string",
    default: "external",
    description:
      "where webhooks may deliver, as Gitea's webhook.ALLOWED_HOST_LIST: external, loopback, private, * (any), host names (globs) and CIDR ranges, comma-separated",
  } as ConfigKey<"string">,
  "forge.webhook-delivery-timeout": {
    type: "integer",
    default: 5,
    description:
      "seconds one webhook delivery may take before it counts as failed (Gitea's webhook.DELIVER_TIMEOUT)",
    accepts: atLeastOne,
  } as ConfigKey<"integer">,
  "forge.attachment-max-size": {
    type: "integer",
    default: 2048,
    description: "largest release attachment in megabytes (Gitea's attachment MAX_SIZE)",
    accepts: atLeastOne,
  } as ConfigKey<"integer">,
  "forge.auth-sync-interval": {
    type: "integer",
    default: 86_400,
    description:
      "seconds between synchronizations of the users of authentication sources that have it enabled (Gitea's cron.sync_external_users; 0: never)",
    accepts: zeroOrMore,
  } as ConfigKey<"integer">,
  ...serviceSettings("inventory", 8000),
  "inventory.api-throttle-per-minute": {
    type: "integer",
    default: 120,
    description:
      "API requests per user per minute before 429 (Snipe-IT's API_THROTTLE_PER_MINUTE; 0: no limit)",
    accepts: zeroOrMore,
  } as ConfigKey<"integer">,
  "inventory.full-multiple-companies-support": {
    type: "boolean",
    default: false,
    description:
      "non-superusers see and change only their own company's records (Snipe-IT's full multiple companies support)",
  } as ConfigKey<"boolean">,
  "inventory.webhook-allowed-host-list": {
    type: "string",
    default: "external",
    description:
      "where notifications (the settings' Slack/Teams/general webhook and the generic webhooks) may deliver, in Gitea's webhook.ALLOWED_HOST_LIST syntax: external, loopback, private, * (any), host names (globs) and CIDR ranges, comma-separated",
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
export type SettingKey = keyof Settings;

/** What a command's parsed options say: values and the flag typed for each, by setting. */
export interface GivenFlags {
  config?: string;
  values: Record<string, unknown>;
  flagNames: Record<string, string>;
}

/**
 * Resolves flags > ANVIL_* variables > config file (--config or ANVIL_CONFIG) > defaults, reading
 * and checking only the settings the command uses.
 */
export function loadSettings(
  given: GivenFlags,
  used: readonly SettingKey[],
  env: NodeJS.ProcessEnv = process.env,
): Settings {
  const file = given.config ?? (env.ANVIL_CONFIG === "" ? undefined : env.ANVIL_CONFIG);
  return resolveConfig(settingsSpec, {
    flags: given.values,
    flagNames: given.flagNames,
    env,
    file,
    only: used,
  });
}

export function databaseUrl(settings: Settings, service: "forge" | "inventory"): string {
  const given = settings[`${service}.database`];
  return given !== "" ? given : `sqlite:${join(settings["data-dir"], `${service}.db`)}`;
}
