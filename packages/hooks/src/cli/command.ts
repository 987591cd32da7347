// `anvil hooks <webhook flags>`: webhook's whole process behaviour, step for step as its main()
// does it (flags, -version, -list-cipher-suites, listen before loading hooks, privilege drop,
// log file, pidfile, start rules and exit codes, signals).

import { access, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { closeRuntime, completeConfig, createRuntime, type HooksRuntime } from "../app.ts";
import { DuplicateHookError, RefusedHookError } from "../config/registry.ts";
import { errnoText } from "../go/errors.ts";
import { type Listener, openListener } from "../http/listen.ts";
import { listCipherSuites, opensslCiphers, tlsMinVersion } from "../http/tls.ts";
import { createLogger, formatLocalTimestamp, formatLogLine, type Logger } from "../log/logger.ts";
import type { Log } from "../types.ts";
import { type HooksConfig, parseFlags } from "./flags.ts";
import {
  isWorkerCopy,
  openWorkersListener,
  refuseUnderWorkers,
  serveAsWorker,
  startWorkers,
  type WorkerGroup,
  workersConflict,
} from "./workers.ts";

/** The version -version reports: webhook 2.8.0 is the behaviour anvil hooks reproduces. */
export const WEBHOOK_VERSION = "2.8.0";

const NO_HOOKS_MESSAGE =
  "couldn't load any hooks from file!\naborting webhook execution since the -verbose flag is set to false.\nIf, for some reason, you want webhook to start without the hooks, either use -verbose flag, or -nopanic";

/** Resolves with the exit status once the process should end (early exits, or after SIGINT/SIGTERM). */
export async function runHooksCommand(argv: string[]): Promise<number> {
  const parsed = parseFlags(argv);
  if ("exitCode" in parsed) {
    process.stderr.write(parsed.stderr);
    return parsed.exitCode;
  }
  const config = completeConfig(parsed.config);
  if (config.version) {
    // Exactly webhook's line: scripts that check the version keep working (`anvil --version` names anvil's).
    process.stdout.write(`webhook version ${WEBHOOK_VERSION}\n`);
    return 0;
  }
  if (config.listCipherSuites) {
    try {
      process.stdout.write(listCipherSuites(config.tlsMinVersion));
      return 0;
    } catch (error) {
      // Go's default logger: date and time, no prefix yet.
      process.stderr.write(`${formatLocalTimestamp(new Date())} ${(error as Error).message}\n`);
      return 1;
    }
  }
  if ((config.setuid !== 0) !== (config.setgid !== 0)) {
    process.stdout.write("error: setuid and setgid options must be used together\n");
    return 1;
  }
  if (config.socket !== "" && config.setuid !== 0) {
    process.stdout.write("error: setuid and setgid options cannot be used with the socket option\n");
    return 1;
  }
  const conflict = workersConflict(config);
  if (conflict !== undefined) {
    process.stdout.write(`${conflict}\n`);
    return 1;
  }
  return serve(config);
}

/**
 * Everything after the early exits: listen, drop privileges, open the log, load hooks, serve.
 * With -workers N the first process then starts N-1 copies of itself, which run this too but
 * leave the pidfile and the start-up lines to the first one.
 */
async function serve(config: HooksConfig): Promise<number> {
  const copy = isWorkerCopy();
  // Collected, then printed together, as webhook does once its log output is set up.
  const startupErrors: string[] = [];
  let listener: Listener | undefined;
  try {
    listener = config.workers > 1 ? await openWorkersListener(config) : await openListener(config);
  } catch (error) {
    startupErrors.push(`error listening on port: ${(error as Error).message}`);
  }
  if (config.setuid !== 0) {
    try {
      dropPrivileges(config.setuid, config.setgid);
    } catch (error) {
      startupErrors.push(`error dropping privileges: ${errnoText(error)}`);
    }
  }
  let logger: Logger | undefined;
  try {
    logger = await createLogger(config);
  } catch (error) {
    startupErrors.push((error as Error).message);
  }
  if (listener === undefined || logger === undefined || startupErrors.length > 0) {
    // Shown whatever -verbose says.
    const write = logger?.enabled ? logger.raw : (line: string) => void process.stderr.write(line);
    for (const message of startupErrors) write(formatLogLine(message));
    await logger?.close();
    listener?.socket.close();
    return 1;
  }
  const quiet: Log = () => undefined;
  const runtime = createRuntime(config, listener, logger, {
    registryLog: copy ? quiet : undefined,
    refuse: refuseUnderWorkers(config),
  });
  const log = copy ? quiet : logger.log;
  let workers: WorkerGroup | undefined;

  let pidfile: string | undefined;
  if (config.pidfile !== "" && !copy) {
    try {
      await createPidfile(config.pidfile);
      pidfile = config.pidfile;
    } catch (error) {
      return fatal(runtime, `Error creating pidfile: ${(error as Error).message}`);
    }
  }
  const stopped = watchSignals(runtime, log, (signal) => workers?.forward(signal));
  log(`version ${WEBHOOK_VERSION} starting`);
  log("setting up os signal watcher");
  const exit = async (status: number, message?: string) => {
    await removePidfile(runtime, pidfile);
    const closed = message === undefined ? closeRuntime(runtime).then(() => status) : fatal(runtime, message);
    // Exits only once every copy has exited: none is left behind.
    const [result] = await Promise.all([closed, workers?.stop()]);
    return result;
  };

  try {
    await runtime.registry.load();
  } catch (error) {
    if (error instanceof DuplicateHookError) return exit(1, error.message);
    if (error instanceof RefusedHookError) {
      // Not webhook's situation: said whatever -verbose says, like a flag conflict.
      process.stderr.write(formatLogLine(error.message));
      return exit(1);
    }
    throw error;
  }
  if (!config.verbose && !config.nopanic && runtime.registry.size === 0) {
    process.stdout.write(formatLogLine(NO_HOOKS_MESSAGE));
    return exit(1);
  }
  if (config.hotreload) runtime.registry.watch();

  if (config.secure) {
    try {
      opensslCiphers(config.cipherSuites);
      tlsMinVersion(config.tlsMinVersion);
    } catch (error) {
      return exit(1, (error as Error).message);
    }
  }
  const prefix = config.urlprefix === "" ? "" : `/${config.urlprefix}`;
  log(`serving hooks on ${runtime.server.displayAddress}${prefix}/{id}`);
  try {
    await runtime.server.start();
  } catch (error) {
    // webhook logs why it cannot serve (a missing certificate) and returns: exit status 0.
    log((error as Error).message);
    return exit(0);
  }
  if (config.workers > 1 && !copy) {
    const { port } = listener.socket.address() as AddressInfo;
    try {
      workers = await startWorkers(config.workers - 1, port, logger.log);
    } catch (error) {
      process.stderr.write(formatLogLine((error as Error).message));
      return exit(1);
    }
  }
  log("os signal watcher ready");
  runtime.executor.warmUp();

  const signal = await (copy
    ? Promise.race([stopped, serveAsWorker().then(() => "SIGTERM" as const)])
    : stopped);
  log(`caught ${signal === "SIGINT" ? "interrupt" : "terminated"} signal; exiting`);
  hurryOnSecondSignal(runtime, (second) => workers?.forward(second));
  return exit(0);
}

/**
 * During shutdown, a second SIGINT or SIGTERM ends the process at once: running commands are
 * killed and their temp files removed first (webhook would leave them behind), and -workers
 * copies are told the same.
 */
function hurryOnSecondSignal(runtime: HooksRuntime, forward: (signal: NodeJS.Signals) => void): void {
  const now = (signal: NodeJS.Signals) => {
    forward(signal);
    runtime.executor.abort();
    process.exit(0);
  };
  process.once("SIGINT", now);
  process.once("SIGTERM", now);
}

/** log.Fatal: the message goes to the log (so it is silent without -verbose, as in webhook), exit 1. */
async function fatal(runtime: HooksRuntime, message: string): Promise<number> {
  runtime.logger.log(message);
  await closeRuntime(runtime);
  return 1;
}

/** SIGUSR1/SIGHUP reload the hooks files (here, and through `forward` in -workers copies); resolves with SIGINT or SIGTERM. */
function watchSignals(
  runtime: HooksRuntime,
  log: Log,
  forward: (signal: NodeJS.Signals) => void,
): Promise<NodeJS.Signals> {
  const reload = (signal: NodeJS.Signals) => () => {
    log(`caught ${signal.slice(3)} signal`);
    forward(signal);
    void runtime.registry.reload();
  };
  const onUsr1 = reload("SIGUSR1");
  const onHup = reload("SIGHUP");
  process.on("SIGUSR1", onUsr1);
  process.on("SIGHUP", onHup);
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      process.off("SIGUSR1", onUsr1);
      process.off("SIGHUP", onHup);
      resolve(signal);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** setuid/setgid as webhook 2.8.2 does it: supplementary groups first, then group, then user. */
function dropPrivileges(uid: number, gid: number): void {
  process.setgroups?.([]);
  process.setgid?.(gid);
  process.setuid?.(uid);
}

/** webhook's pidfile: refused while the recorded process still runs; parents created; mode 0600. */
async function createPidfile(file: string): Promise<void> {
  const recorded = await readFile(file, "utf8").catch(() => undefined);
  if (recorded !== undefined) {
    const pid = Number.parseInt(recorded.trim(), 10);
    const running = await access(path.join("/proc", String(pid))).then(
      () => true,
      () => false,
    );
    if (String(pid) === recorded.trim() && running) {
      throw new Error(`pid file found, ensure webhook is not running or delete ${file}`);
    }
  }
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
    await writeFile(file, String(process.pid), { mode: 0o600 });
  } catch (error) {
    throw new Error(`open ${file}: ${errnoText(error)}`);
  }
}

async function removePidfile(runtime: HooksRuntime, file: string | undefined): Promise<void> {
  if (file === undefined) return;
  await rm(file).catch((error: unknown) => runtime.logger.log(`remove ${file}: ${errnoText(error)}`));
}
