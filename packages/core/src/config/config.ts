import { readFileSync } from "node:fs";
import YAML from "yaml";

// Configuration comes from, highest first: command-line flags, ANVIL_* environment variables,
// an optional YAML/JSON config file, and the defaults. Every key has one dotted name from which
// the other spellings follow: `forge.port` is flag --forge-port, variable ANVIL_FORGE_PORT and
// `forge: {port: ...}` in the file.

export type ConfigValueType = "string" | "port" | "integer" | "boolean" | "list";

type ValueOf<T extends ConfigValueType> = T extends "string"
  ? string
  : T extends "port" | "integer"
    ? number
    : T extends "boolean"
      ? boolean
      : string[];

export interface ConfigKey<T extends ConfigValueType = ConfigValueType> {
  type: T;
  default: ValueOf<T>;
  description: string;
  /** A further check of a value of the right type; `expected` completes "… is not <expected>". */
  accepts?: { test(value: ValueOf<T>): boolean; expected: string };
}

export type ConfigSpec = Record<string, ConfigKey>;

export type ConfigOf<S extends ConfigSpec> = { [K in keyof S]: ValueOf<S[K]["type"]> };

export interface ConfigSources {
  /** Flag values keyed by the dotted name (the CLI maps --forge-port to forge.port). */
  flags?: Record<string, unknown>;
  /** The flag a user typed for a key when it is not the key's own (`forge serve --port`). */
  flagNames?: Record<string, string>;
  /** Variables; an empty one counts as unset, as shells make clearing a variable easy that way. */
  env?: Record<string, string | undefined>;
  /** Path of a YAML or JSON config file. */
  file?: string;
  /**
   * The keys the command uses: only these are read and checked, the others keep their defaults,
   * so a bad value for a service that is not being started does not stop the command.
   */
  only?: readonly string[];
}

export class ConfigError extends Error {}

export function envName(key: string): string {
  return `ANVIL_${key.replace(/[.-]/g, "_").toUpperCase()}`;
}

export function flagName(key: string): string {
  return `--${key.replace(/\./g, "-")}`;
}

function describeType(type: ConfigValueType): string {
  switch (type) {
    case "port":
      return "a port number from 0 to 65535";
    case "integer":
      return "a whole number";
    case "boolean":
      return "true or false";
    case "list":
      return "a list (comma-separated in flags and variables)";
    default:
      return "a string";
  }
}

function coerce(type: ConfigValueType, raw: unknown): unknown {
  switch (type) {
    case "string":
      return typeof raw === "string" || typeof raw === "number" ? String(raw) : undefined;
    case "port":
    case "integer": {
      const n =
        typeof raw === "number"
          ? raw
          : typeof raw === "string" && /^-?\d+$/.test(raw.trim())
            ? Number(raw)
            : NaN;
      if (!Number.isSafeInteger(n)) return undefined;
      return type === "port" && (n < 0 || n > 65535) ? undefined : n;
    }
    case "boolean":
      if (typeof raw === "boolean") return raw;
      if (raw === "true" || raw === "1") return true;
      if (raw === "false" || raw === "0") return false;
      return undefined;
    case "list":
      if (Array.isArray(raw) && raw.every((v) => typeof v === "string")) return raw;
      if (typeof raw === "string")
        return raw
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "");
      return undefined;
  }
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = YAML.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid YAML or JSON: ${(error as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed))
    throw new ConfigError(`config file ${path} must hold a mapping of keys`);
  const flat: Record<string, unknown> = {};
  const walk = (node: Record<string, unknown>, prefix: string) => {
    for (const [name, value] of Object.entries(node)) {
      const key = prefix + name;
      if (value !== null && typeof value === "object" && !Array.isArray(value))
        walk(value as Record<string, unknown>, `${key}.`);
      else flat[key] = value;
    }
  };
  walk(parsed as Record<string, unknown>, "");
  return flat;
}

export function resolveConfig<S extends ConfigSpec>(spec: S, sources: ConfigSources = {}): ConfigOf<S> {
  const fileValues = sources.file ? readConfigFile(sources.file) : {};
  for (const key of Object.keys(fileValues)) {
    if (!(key in spec))
      throw new ConfigError(
        `config file ${sources.file}: unknown key "${key}" (known: ${Object.keys(spec).join(", ")})`,
      );
  }
  const env = sources.env ?? {};
  const flags = sources.flags ?? {};
  const used = new Set(sources.only ?? Object.keys(spec));
  const result: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(spec)) {
    const variable = env[envName(key)];
    const candidates: Array<[unknown, string]> = [
      [flags[key], `flag ${sources.flagNames?.[key] ?? flagName(key)}`],
      [variable === "" ? undefined : variable, `variable ${envName(key)}`],
      [fileValues[key], `config file ${sources.file}`],
    ];
    const found = used.has(key) ? candidates.find(([value]) => value !== undefined) : undefined;
    if (found === undefined) {
      result[key] = entry.default;
      continue;
    }
    const value = coerce(entry.type, found[0]);
    const check = entry.accepts as { test(value: unknown): boolean; expected: string } | undefined;
    const expected =
      value === undefined
        ? describeType(entry.type)
        : check && !check.test(value)
          ? check.expected
          : undefined;
    if (expected !== undefined) {
      throw new ConfigError(
        `invalid value for ${key} (from ${found[1]}): ${JSON.stringify(found[0])} is not ${expected}`,
      );
    }
    result[key] = value;
  }
  return result as ConfigOf<S>;
}
