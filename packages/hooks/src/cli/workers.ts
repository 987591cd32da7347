// `anvil hooks -workers N`: the first process plus N-1 copies of itself (same program, same argv)
// serve one TCP port, each on its own SO_REUSEPORT socket, so the kernel spreads connections over
// every core. Copies are plain spawned processes rather than node:cluster workers: cluster's
// primary would accept every connection itself and hand it over (or share one accept queue
// unevenly), while separate reuseport sockets let every process, the first one included, accept
// its own share. An IPC channel ties each copy to the first process: a "stop" message ends it
// gracefully, and the channel closing (the first process died, even by SIGKILL) ends it too.

import { type ChildProcess, spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import { type Listener, openListener } from "../http/listen.ts";
import type { Hook, Log } from "../types.ts";
import type { HooksConfig } from "./flags.ts";

/** Set in a copy's environment to the TCP port the first process listens on. */
const COPY_ENV = "ANVIL_HOOKS_WORKER_PORT";
const READY = "ready";
const STOP = "stop";

/** True in the N-1 processes the first one started. */
export function isWorkerCopy(): boolean {
  return process.env[COPY_ENV] !== undefined;
}

/** Why -workers cannot be used with these flags, as webhook words its own flag conflicts. */
export function workersConflict(config: HooksConfig): string | undefined {
  if (config.workers === 1) return undefined;
  if (config.socket !== "") return "error: workers option cannot be used with the socket option";
  // Each copy would have to open its socket as root before dropping privileges; not supported.
  if (config.setuid !== 0) return "error: workers option cannot be used with setuid and setgid options";
  return undefined;
}

/**
 * max-concurrency counts commands in one process, so with several processes it would allow N times
 * more: such hooks are refused (at start: exit 1; on reload: the previous hooks are kept).
 */
export function refuseUnderWorkers(config: HooksConfig): ((hook: Hook) => string | undefined) | undefined {
  if (config.workers === 1) return undefined;
  return (hook) =>
    hook.maxConcurrency > 0
      ? `hook "${hook.id}" sets max-concurrency, which cannot be enforced across ${config.workers} processes; use -workers 1 to serve it`
      : undefined;
}

/**
 * The listening socket of one of the N processes. The first process binds once without
 * SO_REUSEPORT so that a port already used (also by another anvil's reuseport group) fails here,
 * with Go's message, before anything starts; then it binds again with the option on.
 */
export async function openWorkersListener(config: HooksConfig): Promise<Listener> {
  const copyPort = process.env[COPY_ENV];
  if (copyPort !== undefined) return openListener({ ...config, port: Number(copyPort) }, true);
  const probe = await openListener(config);
  const { port } = probe.socket.address() as AddressInfo;
  await new Promise((resolve) => probe.socket.close(resolve));
  return openListener({ ...config, port }, true);
}

/** The copies, as the first process sees them. */
export interface WorkerGroup {
  /** SIGHUP/SIGUSR1 received by the first process: each copy reloads its hooks too. */
  forward(signal: NodeJS.Signals): void;
  /** Asks every copy to stop as after SIGTERM; resolves once they have all exited. */
  stop(): Promise<void>;
}

/**
 * Starts `count` copies of this process on `port` and resolves once each one serves; rejects (after
 * ending the others) if one exits first. `log` hears about a copy that exits later.
 */
export async function startWorkers(count: number, port: number, log: Log): Promise<WorkerGroup> {
  const children: ChildProcess[] = [];
  const exited: Promise<void>[] = [];
  let stopping = false;
  const started: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      env: { ...process.env, [COPY_ENV]: String(port) },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    children.push(child);
    const exit = new Promise<number | string>((resolve) =>
      child.once("exit", (code, signal) => resolve(signal ?? code ?? 0)),
    );
    exited.push(exit.then(() => undefined));
    started.push(
      new Promise<void>((resolve, reject) => {
        child.on("message", (message) => message === READY && resolve());
        void exit.then((status) => {
          const text = `worker process ${child.pid} exited (${status})`;
          reject(new Error(`${text} before serving`));
          if (!stopping) log(text);
        });
      }),
    );
  }
  const group: WorkerGroup = {
    forward(signal) {
      for (const child of children) if (child.exitCode === null) child.kill(signal);
    },
    async stop() {
      stopping = true;
      for (const child of children) if (child.connected) child.send(STOP);
      await Promise.all(exited);
    },
  };
  try {
    await Promise.all(started);
  } catch (error) {
    await group.stop();
    throw error;
  }
  return group;
}

/**
 * In a copy: tells the first process it serves, and resolves when it must stop (a "stop" message,
 * or the channel closing because the first process is gone).
 */
export function serveAsWorker(): Promise<void> {
  // The first process may already be gone (killed while this one started): then stop at once.
  // Otherwise its going shows as "disconnect", which cannot have fired before the listener below.
  if (!process.connected) return Promise.resolve();
  process.send?.(READY, () => undefined);
  return new Promise((resolve) => {
    const stop = () => {
      // The channel must not keep this process alive once it has stopped serving.
      if (process.connected) process.disconnect();
      resolve();
    };
    process.on("message", (message) => message === STOP && stop());
    process.once("disconnect", stop);
  });
}
