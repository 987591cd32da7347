import { envName, flagName } from "@anvil/core/config";
import { type Command, Option } from "commander";
import { type GivenFlags, type SettingKey, settingsSpec } from "./settings.ts";

/** A setting offered by a command, optionally under a shorter flag (`forge serve --port`). */
export interface SettingFlag {
  key: SettingKey;
  flag?: string;
}

function attributeName(flag: string): string {
  return flag.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Adds --config and the given settings as options, each documented with its variable and default. */
export function addSettingOptions(command: Command, flags: SettingFlag[]): Command {
  command.addOption(new Option("--config <file>", "YAML or JSON config file (variable ANVIL_CONFIG)"));
  for (const { key, flag } of flags) {
    const entry = settingsSpec[key];
    const name = flag ?? flagName(key);
    const shown = Array.isArray(entry.default)
      ? entry.default.join(",") || "none"
      : String(entry.default) || "see description";
    const argument = entry.type === "boolean" ? "" : entry.type === "list" ? " <items>" : " <value>";
    command.addOption(
      new Option(`${name}${argument}`, `${entry.description} (variable ${envName(key)}; default ${shown})`),
    );
  }
  return command;
}

/** The parsed options of a command, keyed by setting name, for loadSettings(). */
export function settingFlags(options: Record<string, unknown>, flags: SettingFlag[]): GivenFlags {
  const given: GivenFlags = { config: options.config as string | undefined, values: {}, flagNames: {} };
  for (const { key, flag } of flags) {
    const name = flag ?? flagName(key);
    const value = options[attributeName(name)];
    if (value !== undefined) {
      given.values[key] = value;
      given.flagNames[key] = name;
    }
  }
  return given;
}

/** The settings a command reads: the ones it offers as flags. */
export function settingKeys(flags: SettingFlag[]): SettingKey[] {
  return flags.map(({ key }) => key);
}

/** A flag's boolean value, as Gitea's CLI takes it: given alone it means true, or `--flag false`. */
export function booleanFlag(text: string): boolean {
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  throw new Error(`"${text}" is not true or false`);
}

export function wholeNumber(text: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`"${text}" is not a whole number`);
  return Number(text);
}
