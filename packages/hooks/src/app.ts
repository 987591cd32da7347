// The hook runner as one of anvil's services: `anvil serve` starts it next to the others with
// createApp(config); `anvil hooks` drives the same parts itself (cli/command.ts) to behave like webhook.

import type { ServiceApp } from "@anvil/core";
import { defaultHooksConfig, type HooksConfig } from "./cli/flags.ts";
import { Executor } from "./command/executor.ts";
import { HookRegistry } from "./config/registry.ts";
import { type Listener, openListener } from "./http/listen.ts";
import { HooksServer } from "./http/server.ts";
import { createLogger, type Logger } from "./log/logger.ts";
import type { Hook, Log } from "./types.ts";

/** The running parts of one hook runner. */
export interface HooksRuntime {
  config: HooksConfig;
  logger: Logger;
  registry: HookRegistry;
  executor: Executor;
  server: HooksServer;
}

/** Fills what a partial config leaves out with webhook's defaults (-debug and -logfile imply -verbose). */
export function completeConfig(config: Partial<HooksConfig>): HooksConfig {
  const complete = { ...defaultHooksConfig(), ...config };
  if (complete.debug || complete.logfile !== "") complete.verbose = true;
  return complete;
}

/** How `anvil hooks -workers N` changes one process's parts (see cli/workers.ts). */
export interface RuntimeOptions {
  /** Where the hooks files' load and reload lines go (a copy process stays quiet: the first one says it). */
  registryLog?: Log;
  refuse?: (hook: Hook) => string | undefined;
}

/** Builds the parts around an open listener; nothing is read or served yet. */
export function createRuntime(
  config: HooksConfig,
  listener: Listener,
  logger: Logger,
  options: RuntimeOptions = {},
): HooksRuntime {
  const registry = new HookRegistry({
    files: config.hooks,
    template: config.template,
    log: options.registryLog ?? logger.log,
    refuse: options.refuse,
  });
  const executor = new Executor({
    logger,
    commandTimeout: config.commandTimeout,
    maxOutput: config.maxCommandOutput,
  });
  const server = new HooksServer({ config, listener, hooks: registry, executor, logger });
  return { config, logger, registry, executor, server };
}

/**
 * Stops accepting requests, drops the commands still waiting for their turn, waits for in-flight
 * requests and the commands already started, closes the log.
 */
export async function closeRuntime(runtime: HooksRuntime): Promise<void> {
  runtime.registry.close();
  const commands = runtime.executor.close();
  await runtime.server.close();
  await commands;
  await runtime.logger.close();
}

/** `anvil serve`'s hook runner. With no hooks files it still starts (`GET /` answers OK). */
export function createApp(config: Partial<HooksConfig>): ServiceApp {
  const complete = completeConfig(config);
  let runtime: HooksRuntime | undefined;
  return {
    name: "hooks",
    async listen() {
      const logger = await createLogger(complete);
      const listener = await openListener(complete).catch(async (error: unknown) => {
        await logger.close();
        throw error;
      });
      const started = createRuntime(complete, listener, logger);
      try {
        await started.registry.load();
        await started.server.start();
      } catch (error) {
        await closeRuntime(started);
        throw error;
      }
      if (complete.hotreload) started.registry.watch();
      if (started.registry.size > 0) started.executor.warmUp();
      runtime = started;
      return started.server.url;
    },
    async close() {
      if (runtime !== undefined) await closeRuntime(runtime);
      runtime = undefined;
    },
  };
}
