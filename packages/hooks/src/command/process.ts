// One run of a hook's command: start it (posix-spawn.ts, or child-spawn.ts where posix_spawn
// cannot be loaded), waiting and trying again while file descriptors or processes are used up,
// collect its combined output, enforce the opt-in timeout on its process group, and learn its
// exit status.

import net from "node:net";
import type { Readable } from "node:stream";
import { childProcessSpawn } from "./child-spawn.ts";
import { retryWhileExhausted } from "./files.ts";
import {
  type ChildStatus,
  closeFd,
  openPipe,
  posixSpawn,
  posixSpawnUnavailable,
  reapChild,
} from "./posix-spawn.ts";

/** What to run; the command is already resolved to an absolute path. */
export interface CommandSpec {
  file: string;
  argv0: string;
  args: string[];
  /** The whole environment, `NAME=value` entries. */
  env: string[];
  cwd: string | undefined;
  /** Milliseconds; 0 = no limit. With a limit the command gets its own process group. */
  timeout: number;
  /** Milliseconds between SIGTERM and SIGKILL to the group. */
  killGrace: number;
  output: "ignore" | "capture" | "stream";
  /** Captured output beyond this many bytes is dropped (the command keeps running). */
  maxOutput: number;
}

export interface CommandExit {
  code: number | null;
  signal: string | null;
  /** errno code when the command could not be started. */
  spawnError: string | undefined;
  timedOut: boolean;
  /** Combined stdout and stderr, in capture mode (at most maxOutput bytes of it). */
  output: Buffer | undefined;
  /** How many bytes the command wrote in all. */
  outputBytes: number;
  truncated: boolean;
}

export interface StreamCallbacks {
  /** The process has started. */
  onSpawn(): void;
  /** Output as it is produced (stream mode). */
  onData(chunk: Buffer): void;
}

/** What runCommand tells its caller while the command runs. */
export interface CommandEvents {
  /** The process has started. */
  onSpawn?(pid: number): void;
  /** Output as it is produced (stream mode). */
  onData?(chunk: Buffer): void;
  /** The start failed for want of file descriptors or processes (the errno); it is tried again. */
  onStarved?(errno: string): void;
}

/** Children started here and not reaped yet. */
const exiting = new Map<number, (status: ChildStatus) => void>();
let watchingChildren = false;
/**
 * Runs while children are outstanding: it keeps the event loop alive for them (a signal
 * listener does not), and sweeps again in case a child's SIGCHLD was merged into an earlier one.
 */
let sweepTimer: NodeJS.Timeout | undefined;
const SWEEP_MS = 200;

/**
 * Node reaps only the children it started itself, so these are reaped here on SIGCHLD (one
 * signal may stand for several exits, hence the sweep).
 */
function reapExited(): void {
  for (const [pid, resolve] of exiting) {
    const status = reapChild(pid);
    if (status === undefined) continue;
    exiting.delete(pid);
    resolve(status);
  }
  if (exiting.size === 0 && sweepTimer !== undefined) {
    clearInterval(sweepTimer);
    sweepTimer = undefined;
  }
}

/**
 * At most this many spawns at once, each holding a thread of libuv's pool (4 threads, shared with
 * file I/O); more gain nothing on this 2-core class of machine. The rest wait in order, without
 * holding a pipe yet.
 */
const MAX_SPAWNING = 2;
let spawning = 0;
const spawnQueue: (() => void)[] = [];

/** Output channels (pipe read ends) held by running commands, each one file descriptor. */
let openOutputs = 0;

/** How many file descriptors running commands hold for their output. */
export function commandOutputDescriptors(): number {
  return openOutputs;
}

async function inSpawnSlot<T>(start: () => Promise<T>): Promise<T> {
  if (spawning < MAX_SPAWNING) spawning++;
  else await new Promise<void>((resolve) => spawnQueue.push(resolve));
  try {
    return await start();
  } finally {
    const next = spawnQueue.shift();
    if (next === undefined) spawning--;
    else next();
  }
}

/** Registered before the first spawn. */
function watchChildren(): void {
  if (watchingChildren) return;
  watchingChildren = true;
  process.on("SIGCHLD", reapExited);
}

/** The child's end. It is looked for at once too: its SIGCHLD may have come before it was listed. */
function childExit(pid: number): Promise<ChildStatus> {
  const status = reapChild(pid);
  if (status !== undefined) return Promise.resolve(status);
  sweepTimer ??= setInterval(reapExited, SWEEP_MS);
  return new Promise((resolve) => exiting.set(pid, resolve));
}

/**
 * The server's environment, read once (it is built for every command, and process.env is a
 * slow proxy), with each command's variables laid over it.
 */
export class ServerEnvironment {
  readonly #entries: string[];
  readonly #index: Map<string, number>;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#entries = Object.entries(env).map(([name, value]) => `${name}=${value}`);
    this.#index = new Map(this.#entries.map((entry, i) => [entry.slice(0, entry.indexOf("=")), i]));
  }

  /** `extra` (`NAME=value`) added; a name given again takes the later value, in its place. */
  with(extra: string[]): string[] {
    if (extra.length === 0) return this.#entries;
    const entries = [...this.#entries];
    const added = new Map<string, number>();
    for (const entry of extra) {
      const name = entry.slice(0, entry.indexOf("="));
      const at = this.#index.get(name) ?? added.get(name);
      if (at === undefined) added.set(name, entries.push(entry) - 1);
      else entries[at] = entry;
    }
    return entries;
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

function exitOf(fields: Partial<CommandExit>): CommandExit {
  return {
    code: null,
    signal: null,
    spawnError: undefined,
    timedOut: false,
    output: undefined,
    outputBytes: 0,
    truncated: false,
    ...fields,
  };
}

/** A started command: its pid, where its combined output arrives (none when ignored), its end. */
interface Started {
  pid: number;
  output: Readable | undefined;
  exited: Promise<ChildStatus>;
}

/** Opens the output pipe and starts the command with posix_spawn. */
async function startWithPosixSpawn(spec: CommandSpec): Promise<Started | { errno: string }> {
  watchChildren();
  let pipe: [number, number] | undefined;
  try {
    if (spec.output !== "ignore") pipe = openPipe();
  } catch (error) {
    return { errno: (error as NodeJS.ErrnoException).code ?? "EIO" };
  }
  const started = await posixSpawn({
    file: spec.file,
    argv: [spec.argv0, ...spec.args],
    env: spec.env,
    cwd: spec.cwd,
    outputFd: pipe?.[1],
    ownProcessGroup: spec.timeout > 0,
  });
  if (pipe !== undefined) closeFd(pipe[1]);
  if ("errno" in started) {
    if (pipe !== undefined) closeFd(pipe[0]);
    return started;
  }
  const output = pipe && new net.Socket({ fd: pipe[0], readable: true, writable: false });
  return { pid: started.pid, output, exited: childExit(started.pid) };
}

function startWithChildProcess(spec: CommandSpec): Promise<Started | { errno: string }> {
  const request = {
    file: spec.file,
    argv: [spec.argv0, ...spec.args],
    env: spec.env,
    cwd: spec.cwd,
    ownProcessGroup: spec.timeout > 0,
  };
  return childProcessSpawn(request, spec.output !== "ignore");
}

/** Starts the command, waiting and trying again (in order, holding no descriptor) while resources are used up. */
async function startWhenPossible(
  spec: CommandSpec,
  events: CommandEvents,
): Promise<Started | { errno: string }> {
  const start = posixSpawnUnavailable() === undefined ? startWithPosixSpawn : startWithChildProcess;
  return retryWhileExhausted(
    () => start(spec),
    (started) => ("errno" in started ? started.errno : undefined),
    events.onStarved,
  );
}

/**
 * Runs the command to its end. stdout and stderr share one pipe, like Go's CombinedOutput, so
 * the output keeps the order in which it was written; like cmd.Wait, the run ends when the
 * command has exited and the pipe is closed.
 */
export async function runCommand(spec: CommandSpec, events: CommandEvents = {}): Promise<CommandExit> {
  const started = await inSpawnSlot(() => startWhenPossible(spec, events));
  if ("errno" in started) return exitOf({ spawnError: started.errno });
  const { pid, output, exited } = started;
  events.onSpawn?.(pid);

  const chunks: Buffer[] = [];
  let captured = 0;
  let written = 0;
  let truncated = false;
  const outputDone = new Promise<void>((resolve) => {
    if (output === undefined) return resolve();
    openOutputs++;
    output.on("data", (chunk: Buffer) => {
      written += chunk.length;
      if (spec.output === "stream") {
        events.onData?.(chunk);
      } else if (captured + chunk.length <= spec.maxOutput) {
        chunks.push(chunk);
        captured += chunk.length;
      } else {
        // What still fits is kept, so the output is cut exactly at the limit.
        const room = spec.maxOutput - captured;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        captured += room;
        truncated = true;
      }
    });
    output.once("close", () => resolve());
    output.once("error", () => resolve());
  }).then(() => {
    if (output !== undefined) openOutputs--;
  });

  let timedOut = false;
  const timers: NodeJS.Timeout[] = [];
  if (spec.timeout > 0) {
    timers.push(
      setTimeout(() => {
        timedOut = true;
        killGroup(pid, "SIGTERM");
        timers.push(setTimeout(() => killGroup(pid, "SIGKILL"), spec.killGrace));
      }, spec.timeout),
    );
  }

  const { code, signal } = await exited;
  await outputDone;
  for (const timer of timers) clearTimeout(timer);
  // Without a timeout the group is left alone, as webhook does; after one, nothing may outlive it.
  if (timedOut) killGroup(pid, "SIGKILL");
  return exitOf({
    code,
    signal,
    timedOut,
    output: spec.output === "capture" ? Buffer.concat(chunks) : undefined,
    outputBytes: written,
    truncated,
  });
}
