// The hook runner's public surface: `anvil serve` uses createApp, `anvil hooks` runHooksCommand.
export { createApp } from "./app.ts";
export { runHooksCommand } from "./cli/command.ts";
export { defaultHooksConfig, type HooksConfig } from "./cli/flags.ts";
