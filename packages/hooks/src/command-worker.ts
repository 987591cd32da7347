// Runs hook commands on a worker thread. Node's spawn() forks the whole process and blocks the
// calling thread until the child has exec'd (about 1.2 ms here, ~550 spawns/s), which would stall
// every request on the main thread; Go forks off its request goroutines. Keeping spawn() here lets
// the server answer at full speed while commands start, as webhook does.

import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parentPort } from "node:worker_threads";

/** What the main thread asks for; the command is already resolved to an absolute path. */
export interface RunMessage {
  type: "run";
  id: number;
  file: string;
  argv0: string;
  args: string[];
  /** `NAME=value` entries added over the server's environment. */
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

export type WorkerMessage =
  | { type: "spawned"; id: number }
  | { type: "data"; id: number; chunk: Uint8Array }
  | {
      type: "exit";
      id: number;
      code: number | null;
      signal: string | null;
      /** errno code when the command could not be started. */
      spawnError: string | undefined;
      timedOut: boolean;
      output: Uint8Array | undefined;
      truncated: boolean;
    };

// Read once: a plain object converts to the child's environment faster than the process.env proxy.
const baseEnv: Record<string, string | undefined> = { ...process.env };

function environment(extra: string[]): Record<string, string | undefined> {
  if (extra.length === 0) return baseEnv;
  const env = { ...baseEnv };
  for (const entry of extra) {
    const at = entry.indexOf("=");
    env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}

/**
 * One stream carries stdout and stderr, like Go's CombinedOutput: the child gets the same socket
 * as fd 1 and 2, so the output keeps the order in which it was written. Node has no pipe() call,
 * so the pair comes from a private listening Unix socket: connect, and take the accepted end.
 */
const pairAddress =
  process.platform === "linux"
    ? `\0anvil-hooks-${process.pid}-${Math.random().toString(36).slice(2)}`
    : path.join(tmpdir(), `anvil-hooks-${process.pid}-${Math.random().toString(36).slice(2)}.sock`);
const accepted: ((socket: net.Socket) => void)[] = [];
let pairServer: Promise<net.Server> | undefined;

function listenForPairs(): Promise<net.Server> {
  pairServer ??= new Promise((resolve, reject) => {
    // Connections on a Unix socket are accepted in the order connect() was called.
    const server = net.createServer((socket) => accepted.shift()?.(socket));
    server.once("error", reject);
    server.listen(pairAddress, () => {
      server.unref();
      resolve(server);
    });
  });
  return pairServer;
}

async function outputPair(): Promise<{ childEnd: net.Socket; readEnd: net.Socket }> {
  await listenForPairs();
  return new Promise((resolve, reject) => {
    let readEnd: net.Socket | undefined;
    let connected = false;
    const childEnd = net.connect(pairAddress);
    const settle = () => {
      if (readEnd !== undefined && connected) resolve({ childEnd, readEnd });
    };
    accepted.push((socket) => {
      readEnd = socket;
      settle();
    });
    childEnd.once("connect", () => {
      connected = true;
      settle();
    });
    childEnd.once("error", reject);
  });
}

function post(message: WorkerMessage): void {
  parentPort!.postMessage(message);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // The group is already gone.
  }
}

async function run(message: RunMessage): Promise<void> {
  let pair: { childEnd: net.Socket; readEnd: net.Socket } | undefined;
  if (message.output !== "ignore") pair = await outputPair();
  let child: ChildProcess;
  try {
    child = spawn(message.file, message.args, {
      argv0: message.argv0,
      cwd: message.cwd,
      env: environment(message.env),
      stdio: pair === undefined ? "ignore" : ["ignore", pair.childEnd, pair.childEnd],
      detached: message.timeout > 0,
    });
  } catch {
    // Node refuses what execve would: NUL bytes in arguments or environment.
    pair?.childEnd.destroy();
    pair?.readEnd.destroy();
    return post(exitMessage(message.id, { spawnError: "EINVAL" }));
  } finally {
    pair?.childEnd.destroy();
  }

  const chunks: Buffer[] = [];
  let captured = 0;
  let truncated = false;
  let timedOut = false;
  let spawnError: string | undefined;
  const timers: NodeJS.Timeout[] = [];

  const outputDone = new Promise<void>((resolve) => {
    if (pair === undefined) return resolve();
    pair.readEnd.on("data", (chunk: Buffer) => {
      if (message.output === "stream") {
        post({ type: "data", id: message.id, chunk });
      } else if (captured + chunk.length <= message.maxOutput) {
        chunks.push(chunk);
        captured += chunk.length;
      } else {
        truncated = true;
      }
    });
    pair.readEnd.once("close", () => resolve());
    pair.readEnd.once("error", () => resolve());
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once("spawn", () => {
      post({ type: "spawned", id: message.id });
      if (message.timeout > 0) {
        timers.push(
          setTimeout(() => {
            timedOut = true;
            killGroup(child, "SIGTERM");
            timers.push(setTimeout(() => killGroup(child, "SIGKILL"), message.killGrace));
          }, message.timeout),
        );
      }
    });
    child.once("error", (error: NodeJS.ErrnoException) => {
      spawnError = error.code ?? "EINVAL";
      pair?.readEnd.destroy();
      resolve({ code: null, signal: null });
    });
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });

  const { code, signal } = await exited;
  await outputDone;
  for (const timer of timers) clearTimeout(timer);
  // Without a timeout the group is left alone, as webhook does; after one, nothing may outlive it.
  if (timedOut) killGroup(child, "SIGKILL");
  post(
    exitMessage(message.id, {
      code,
      signal,
      spawnError,
      timedOut,
      output: message.output === "capture" ? Buffer.concat(chunks) : undefined,
      truncated,
    }),
  );
}

function exitMessage(
  id: number,
  fields: Partial<Omit<Extract<WorkerMessage, { type: "exit" }>, "type" | "id">>,
): WorkerMessage {
  return {
    type: "exit",
    id,
    code: null,
    signal: null,
    spawnError: undefined,
    timedOut: false,
    output: undefined,
    truncated: false,
    ...fields,
  };
}

/**
 * Runs start one per turn of the event loop: exited children are reaped (SIGCHLD is handled in
 * the loop's poll phase) between two spawns, so a busy thread never piles up zombies. A message
 * port would otherwise deliver up to a thousand messages back to back.
 */
const waiting: RunMessage[] = [];
let startScheduled = false;

function startNext(): void {
  startScheduled = false;
  const message = waiting.shift();
  if (message === undefined) return;
  run(message).catch((error: NodeJS.ErrnoException) =>
    post(exitMessage(message.id, { spawnError: error.code ?? "EIO" })),
  );
  scheduleStart();
}

function scheduleStart(): void {
  if (startScheduled || waiting.length === 0) return;
  startScheduled = true;
  setImmediate(startNext);
}

parentPort!.on("message", (message: RunMessage) => {
  waiting.push(message);
  scheduleStart();
});
