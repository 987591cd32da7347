import { envName, flagName } from "@anvil/core/config";
import { type Command, Option } from "commander";
import { type Settings, settingsSpec } from "./settings.ts";

type SettingKey = keyof Settings;

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
export function settingFlags(
  options: Record<string, unknown>,
  flags: SettingFlag[],
): Record<string, unknown> {
  const result: Record<string, unknown> = { config: options.config };
  for (const { key, flag } of flags) {
    const value = options[attributeName(flag ?? flagName(key))];
    if (value !== undefined) result[key] = value;
  }
  return result;
}
