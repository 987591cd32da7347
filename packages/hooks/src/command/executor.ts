// Runs a fired hook's execute-command the way webhook does (no shell; argv[0] is the configured
// string; server environment + hook variables + file variables; temp files removed afterwards;
// webhook's log lines), plus the opt-in limits webhook lacks: a command timeout that kills the
// command's process group, and per-hook max-concurrency with a bounded FIFO queue. At shutdown it
// starts nothing more and waits for what runs; told to hurry, it kills what runs and cleans up.

import { rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { formatGoDuration } from "../go/duration.ts";
import { quote } from "../go/strconv.ts";
import { encodeGoString } from "../go/utf8.ts";
import type { Logger } from "../log/logger.ts";
import { clipBytesForLog, isSecretName, LOG_VALUE_LIMIT, REDACTED, redactForLog } from "../log/redact.ts";
import { extractArgument, formatArgument } from "../request/values.ts";
import type { Argument, Hook, HookRequest, Log } from "../types.ts";
import { createTempFile, decodeBase64 } from "./files.ts";
import { CommandLookup, commandLookPath, spawnErrorText } from "./look-path.ts";
import { posixSpawnUnavailable } from "./posix-spawn.ts";
import {
  type CommandExit,
  type CommandSpec,
  runCommand,
  ServerEnvironment,
  type StreamCallbacks,
} from "./process.ts";

/** How the caller wants the command's combined stdout+stderr. */
export type OutputMode = "ignore" | "capture" | "stream";

export interface CommandResult {
  /** Combined stdout and stderr (capture mode; empty otherwise). */
  output: Buffer;
  /** The exit status; null when killed by a signal or never started. */
  exitCode: number | null;
  signal: string | null;
  /** webhook's error text (`exit status 1`, `exec: "x": executable file not found in $PATH`), if any. */
  error: string | undefined;
  /** The command could not be started at all. */
  startFailed: boolean;
  /** It was still waiting for its turn (max-concurrency) when the server began to shut down: never started. */
  cancelled: boolean;
  timedOut: boolean;
  /** Capture mode: the output went beyond the limit and `output` holds only its start. */
  truncated: boolean;
  /** The effective timeout in milliseconds (0 = none). */
  timeout: number;
}

/** A place in a hook's concurrency limit: wait for `ready`, call `release` when done. */
export interface Ticket {
  ready: Promise<void>;
  release(): void;
}

export interface ExecutorOptions {
  logger: Logger;
  /** Global -command-timeout in milliseconds; a hook's own commandTimeout wins. 0 = none. */
  commandTimeout: number;
  /** Milliseconds between SIGTERM and SIGKILL when a command times out. */
  killGrace?: number;
  /** Captured output beyond this is dropped (the command still runs to its end). */
  maxOutput?: number;
}

const DEFAULT_KILL_GRACE = 2000;
const DEFAULT_MAX_OUTPUT = 256 * 1024 * 1024;
const EMPTY: Buffer = Buffer.alloc(0);
/** The ticket of every hook without max-concurrency. */
const UNLIMITED: Ticket = { ready: Promise.resolve(), release: () => {} };

/** Go's strings for the signals a command most often dies of (`signal: killed`). */
const SIGNAL_TEXT: Record<string, string> = {
  SIGABRT: "aborted",
  SIGALRM: "alarm clock",
  SIGBUS: "bus error",
  SIGFPE: "floating point exception",
  SIGHUP: "hangup",
  SIGILL: "illegal instruction",
  SIGINT: "interrupt",
  SIGKILL: "killed",
  SIGPIPE: "broken pipe",
  SIGQUIT: "quit",
  SIGSEGV: "segmentation fault",
  SIGTERM: "terminated",
  SIGTRAP: "trace/breakpoint trap",
  SIGUSR1: "user defined signal 1",
  SIGUSR2: "user defined signal 2",
};

interface Slots {
  running: number;
  waiting: (() => void)[];
}

/** A command ready to start, with what is needed once it has ended. */
interface Launch {
  spec: CommandSpec;
  hookId: string;
  rid: string;
  lookPath: string;
  files: string[];
  log: Log | undefined;
  /** Set once the process runs. */
  pid?: number;
}

/** `NAME=value` entries for the command, and the same as the log may show them. */
interface Environment {
  entries: string[];
  shown: string[];
}

export class Executor {
  readonly #logger: Logger;
  readonly #commandTimeout: number;
  readonly #killGrace: number;
  readonly #maxOutput: number;
  readonly #slots = new Map<string, Slots>();
  readonly #lookup = new CommandLookup();
  readonly #environment = new ServerEnvironment();
  readonly #running = new Set<Promise<CommandResult>>();
  /** Commands prepared (their temp files written) and not finished yet. */
  readonly #launches = new Set<Launch>();
  /** Resolves when the server begins to shut down: commands still waiting for their turn are dropped. */
  readonly #closing: Promise<void>;
  #close: () => void = () => undefined;

  constructor(options: ExecutorOptions) {
    this.#logger = options.logger;
    this.#commandTimeout = options.commandTimeout;
    this.#killGrace = options.killGrace ?? DEFAULT_KILL_GRACE;
    this.#maxOutput = options.maxOutput ?? DEFAULT_MAX_OUTPUT;
    this.#closing = new Promise((resolve) => (this.#close = resolve));
  }

  /** Loads posix_spawn now, so that no request waits for the load; says so where it cannot be used. */
  warmUp(): void {
    const reason = posixSpawnUnavailable();
    if (reason !== undefined) {
      this.#logger.log(
        `posix_spawn cannot be used (${reason}); commands are started with Node's child_process, which is slower`,
      );
    }
  }

  /**
   * Takes a place under the hook's max-concurrency: a ticket (possibly still waiting in the
   * FIFO queue), or undefined when the limit and the queue are both full (answer 429).
   */
  admit(hook: Hook): Ticket | undefined {
    if (hook.maxConcurrency <= 0) return UNLIMITED;
    let slots = this.#slots.get(hook.id);
    if (slots === undefined) {
      slots = { running: 0, waiting: [] };
      this.#slots.set(hook.id, slots);
    }
    const state = slots;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = state.waiting.shift();
      if (next === undefined) state.running--;
      else next();
      if (state.running === 0 && state.waiting.length === 0) this.#slots.delete(hook.id);
    };
    if (state.running < hook.maxConcurrency) {
      state.running++;
      return { ready: Promise.resolve(), release };
    }
    if (state.waiting.length >= hook.maxQueue) return undefined;
    return { ready: new Promise((resolve) => state.waiting.push(resolve)), release };
  }

  /**
   * Runs the hook's command for `request` once `ticket` is ready (webhook's handleHook) and
   * releases the ticket when it has exited. In stream mode `stream` hears of the start and the output.
   */
  run(
    hook: Hook,
    request: HookRequest,
    mode: OutputMode,
    ticket: Ticket = UNLIMITED,
    stream?: StreamCallbacks,
  ): Promise<CommandResult> {
    const result = this.#run(hook, request, mode, ticket, stream).finally(() => {
      ticket.release();
      this.#running.delete(result);
    });
    this.#running.add(result);
    return result;
  }

  /**
   * Shutdown: commands still waiting in a max-concurrency queue are not started; resolves once
   * every command already on its way has finished.
   */
  async close(): Promise<void> {
    this.#close();
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  /**
   * A second SIGINT/SIGTERM: every running command is killed (its process group when it has one
   * of its own) and every temp file removed, at once, since the process exits right after.
   */
  abort(): void {
    for (const launch of this.#launches) {
      if (launch.pid !== undefined) {
        try {
          process.kill(launch.spec.timeout > 0 ? -launch.pid : launch.pid, "SIGKILL");
        } catch {
          // It has just exited.
        }
      }
      for (const file of launch.files) rmSync(file, { force: true });
    }
  }

  async #run(
    hook: Hook,
    request: HookRequest,
    mode: OutputMode,
    ticket: Ticket,
    stream: StreamCallbacks | undefined,
  ): Promise<CommandResult> {
    const turn = await Promise.race([ticket.ready.then(() => true), this.#closing.then(() => false)]);
    if (!turn) {
      this.#logger.log(`[${request.id}] ${hook.id} was still waiting for its turn at shutdown; not started`);
      return notStarted(hook.commandTimeout || this.#commandTimeout, "", { cancelled: true });
    }
    const launch = await this.#prepare(hook, request, mode);
    if (!("spec" in launch)) return launch;
    this.#launches.add(launch);
    try {
      const exit = await runCommand(launch.spec, {
        onSpawn: (pid) => {
          launch.pid = pid;
          stream?.onSpawn();
        },
        onData: stream?.onData,
        onStarved: (errno) =>
          launch.log?.(`[${launch.rid}] cannot start the command yet (${errno}); trying again shortly`),
      });
      return await this.#complete(launch, mode, exit);
    } finally {
      this.#launches.delete(launch);
    }
  }

  /** Everything webhook's handleHook does before starting the command; a result if it cannot start. */
  async #prepare(hook: Hook, request: HookRequest, mode: OutputMode): Promise<Launch | CommandResult> {
    const log = this.#logger.enabled ? this.#logger.log : undefined;
    const rid = request.id;
    const timeout = hook.commandTimeout > 0 ? hook.commandTimeout : this.#commandTimeout;
    const lookPath = commandLookPath(hook);
    const file = await this.#lookup.resolve(lookPath);
    if (typeof file !== "string") {
      log?.(`[${rid}] error in ${file.error}`);
      if (hook.executeCommand.includes(" ")) {
        const first = hook.executeCommand.trim().split(/\s+/)[0];
        log?.(`[${rid}] use 'pass-arguments-to-command' to specify args for '${first}'`);
      }
      return notStarted(timeout, file.error);
    }
    const args = commandArguments(hook, request, log);
    const env = commandEnvironment(hook, request, log);
    const files = hook.passFileToCommand.length === 0 ? [] : await this.#writeFiles(hook, request, env, log);
    const cwd = hook.commandWorkingDirectory;
    log?.(
      `[${rid}] executing ${hook.executeCommand} (${file}) with arguments ${formatArgv(hook, args)} and environment [${env.shown.join(" ")}] using ${cwd} as cwd`,
    );
    const output = mode === "ignore" && log !== undefined ? "capture" : mode;
    const spec: CommandSpec = {
      file,
      argv0: hook.executeCommand,
      args,
      env: this.#environment.with(env.entries),
      cwd: cwd === "" ? undefined : cwd,
      timeout,
      killGrace: this.#killGrace,
      // webhook captures the output of async hooks too, to log it; only what the log shows is kept.
      output,
      maxOutput: mode === "capture" ? this.#maxOutput : LOG_VALUE_LIMIT,
    };
    return { spec, hookId: hook.id, rid, lookPath, files, log };
  }

  /** Waits for the command's end: webhook's log lines, temp files removed, the result. */
  async #complete(launch: Launch, mode: OutputMode, exit: CommandExit): Promise<CommandResult> {
    const { spec, rid, log } = launch;
    const output = exit.output ?? EMPTY;
    let error: string | undefined;
    if (exit.spawnError !== undefined) {
      error = await spawnErrorText(exit.spawnError, launch.lookPath, spec.cwd ?? "", spec.file);
    } else if (exit.signal !== null) error = `signal: ${SIGNAL_TEXT[exit.signal] ?? exit.signal}`;
    else if (exit.code !== 0) error = `exit status ${exit.code}`;

    if (log !== undefined) {
      if (exit.timedOut) {
        const after = formatGoDuration(spec.timeout * 1e6);
        log(`[${rid}] command timed out after ${after}; its process group was killed`);
      }
      if (exit.spawnError === undefined) {
        log(`[${rid}] command output: ${clipBytesForLog(output, exit.outputBytes)}\n`);
      }
      if (exit.truncated && mode === "capture") {
        log(`[${rid}] command output was cut at ${this.#maxOutput} bytes (-max-command-output)`);
      }
      if (error !== undefined) log(`[${rid}] error occurred: ${error}`);
    }
    await removeFiles(rid, launch.files, log);
    log?.(`[${rid}] finished handling ${launch.hookId}`);
    return {
      output: mode === "capture" ? output : EMPTY,
      exitCode: exit.code,
      signal: exit.signal,
      error,
      startFailed: exit.spawnError !== undefined,
      cancelled: false,
      timedOut: exit.timedOut,
      truncated: mode === "capture" && exit.truncated,
      timeout: spec.timeout,
    };
  }

  /** pass-file-to-command: one 0600 temp file per value, its path exported in the environment. */
  async #writeFiles(
    hook: Hook,
    request: HookRequest,
    env: Environment,
    log: Log | undefined,
  ): Promise<string[]> {
    const rid = request.id;
    const written: string[] = [];
    for (const argument of hook.passFileToCommand) {
      const value = extractArgument(argument, request);
      if (!("value" in value)) {
        log?.(`[${rid}] error extracting command arguments for file: ${argumentError(argument)}`);
        continue;
      }
      let envName = argument.envname;
      if (envName === "") {
        envName = `HOOK_${argument.name.toUpperCase()}`;
        log?.(`no ENVVAR name specified, falling back to [${envName}]`);
      }
      let data: Buffer;
      if (argument.base64decode) {
        const decoded = decodeBase64(value.value);
        if (decoded.error !== undefined) log?.(`error decoding string [${decoded.error}]`);
        data = decoded.data;
      } else {
        data = encodeGoString(value.value);
      }
      try {
        const file = await createTempFile(hook.commandWorkingDirectory || tmpdir(), envName, data);
        log?.(`[${rid}] writing env ${envName} file ${file}`);
        written.push(file);
        env.entries.push(`${envName}=${file}`);
        env.shown.push(`${envName}=${file}`);
      } catch (error) {
        log?.(`[${rid}] error creating temp file [${(error as Error).message}]`);
      }
    }
    return written;
  }
}

/** The result of a command that never started: `error` is webhook's text for it, if any. */
function notStarted(timeout: number, error: string, fields: Partial<CommandResult> = {}): CommandResult {
  return {
    output: EMPTY,
    exitCode: null,
    signal: null,
    error: error === "" ? undefined : error,
    startFailed: true,
    cancelled: false,
    timedOut: false,
    truncated: false,
    timeout,
    ...fields,
  };
}

/** argv[1..]: an unresolvable value becomes an empty argument, keeping the positions. */
function commandArguments(hook: Hook, request: HookRequest, log: Log | undefined): string[] {
  const args: string[] = [];
  for (const argument of hook.passArgumentsToCommand) {
    const value = extractArgument(argument, request);
    if ("value" in value) args.push(value.value);
    else {
      args.push("");
      log?.(`[${request.id}] error extracting command arguments: ${argumentError(argument)}`);
    }
  }
  return args;
}

/** pass-environment-to-command: `envname` or HOOK_<name>; an unresolvable value is left out. */
function commandEnvironment(hook: Hook, request: HookRequest, log: Log | undefined): Environment {
  const env: Environment = { entries: [], shown: [] };
  for (const argument of hook.passEnvironmentToCommand) {
    const value = extractArgument(argument, request);
    if (!("value" in value)) {
      log?.(`[${request.id}] error extracting command arguments for environment: ${argumentError(argument)}`);
      continue;
    }
    const name = argument.envname || `HOOK_${argument.name}`;
    env.entries.push(`${name}=${value.value}`);
    if (log !== undefined) {
      const secret = isSecretName(name) || isSecretName(argument.name);
      env.shown.push(`${name}=${secret ? REDACTED : redactForLog(value.value)}`);
    }
  }
  return env;
}

async function removeFiles(rid: string, files: string[], log: Log | undefined): Promise<void> {
  for (const file of files) {
    log?.(`[${rid}] removing file ${file}`);
    await rm(file, { force: true }).catch((error: Error) =>
      log?.(`[${rid}] error removing file ${file} [${error.message}]`),
    );
  }
}

/** webhook logs the Argument struct with %+v when a value cannot be resolved. */
function argumentError(argument: Argument): string {
  return `couldn't retrieve argument for ${formatArgument(argument)}`;
}

/** `["/bin/echo" "hello"]` (Go's %q of the argv), with values of sensitive parameters hidden. */
function formatArgv(hook: Hook, args: string[]): string {
  const shown = args.map((value, i) =>
    isSecretName(hook.passArgumentsToCommand[i].name) ? REDACTED : redactForLog(value),
  );
  return `[${[hook.executeCommand, ...shown].map((value) => quote(value)).join(" ")}]`;
}
