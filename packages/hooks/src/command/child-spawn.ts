// Starting commands with Node's child_process, where posix_spawn cannot be loaded from the C
// library (musl, macOS). It is slower: Node forks the whole server for each command. The command
// still sees what webhook's would, but for one thing: child_process passes arguments and
// variables as UTF-8, so bytes that are not valid UTF-8 reach it as U+FFFD.
//
// Go's CombinedOutput gives stdout and stderr one pipe, which keeps the order in which a command
// writes to the two. child_process cannot create a bare pipe, so the shared channel is a
// connected pair of Unix sockets: the command gets one end as stdout and stderr, the server reads
// the other.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ChildStatus, SpawnRequest } from "./posix-spawn.ts";

/** A started command: its pid, the server's end of its output channel, and its end. */
export interface ChildProcessStart {
  pid: number;
  output: net.Socket | undefined;
  exited: Promise<ChildStatus>;
}

interface PairServer {
  server: net.Server;
  address: string;
  /** Accepted sockets not yet taken, and who waits for the next one (at most one of the two is not empty). */
  accepted: net.Socket[];
  waiting: ((socket: net.Socket) => void)[];
}

let pairServer: Promise<PairServer> | undefined;
/** Connections are made one at a time, so the next accepted socket is the peer of the one connecting. */
let pairing: Promise<unknown> = Promise.resolve();

function listenForPairs(): Promise<PairServer> {
  const folder = mkdtempSync(path.join(tmpdir(), "anvil-hooks-"));
  const address = path.join(folder, "output.sock");
  const pairs: PairServer = { server: net.createServer(), address, accepted: [], waiting: [] };
  pairs.server.on("connection", (socket) => {
    const take = pairs.waiting.shift();
    if (take === undefined) pairs.accepted.push(socket);
    else take(socket);
  });
  // Nothing to wait for once the server is done with commands; the folder goes with the process.
  pairs.server.unref();
  process.once("exit", () => rmSync(folder, { recursive: true, force: true }));
  return new Promise((resolve, reject) => {
    pairs.server.once("error", reject);
    pairs.server.listen(address, () => resolve(pairs));
  });
}

/** Two connected sockets: [the command's end, the server's end]. */
function socketPair(): Promise<[net.Socket, net.Socket]> {
  pairServer ??= listenForPairs().catch((error: unknown) => {
    // Tried again for the next command (the listen may have failed for want of a descriptor).
    pairServer = undefined;
    throw error;
  });
  const made = pairing.then(async () => {
    const pairs = await pairServer!;
    const near = net.connect(pairs.address);
    await new Promise<void>((resolve, reject) => {
      near.once("connect", resolve);
      near.once("error", reject);
    });
    // Connected: the server has accepted this socket's peer, or is about to, unless it has no
    // descriptor left for it (libuv then closes it): that is worth another try later.
    const far =
      pairs.accepted.shift() ??
      (await new Promise<net.Socket>((resolve, reject) => {
        pairs.waiting.push(resolve);
        near.once("close", () => {
          pairs.waiting = pairs.waiting.filter((waiter) => waiter !== resolve);
          reject(Object.assign(new Error("output channel closed before use"), { code: "EAGAIN" }));
        });
      }));
    return [near, far] as [net.Socket, net.Socket];
  });
  pairing = made.catch(() => undefined);
  return made;
}

/** SpawnRequest's `env` entries as the object child_process takes. */
function environment(entries: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of entries) {
    const equals = entry.indexOf("=");
    env[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return env;
}

/**
 * Starts the command as posixSpawn does (stdin from /dev/null, stdout and stderr on one channel
 * when `withOutput`, signals at their defaults, optionally its own process group); resolves once
 * it runs, or with the errno that stopped it.
 */
export async function childProcessSpawn(
  request: Omit<SpawnRequest, "outputFd">,
  withOutput: boolean,
): Promise<ChildProcessStart | { errno: string }> {
  let pair: [net.Socket, net.Socket] | undefined;
  try {
    if (withOutput) pair = await socketPair();
  } catch (error) {
    return { errno: (error as NodeJS.ErrnoException).code ?? "EIO" };
  }
  let child: ChildProcess;
  try {
    child = spawn(request.file, request.argv.slice(1), {
      argv0: request.argv[0],
      env: environment(request.env),
      cwd: request.cwd,
      stdio: pair === undefined ? "ignore" : ["ignore", pair[0], pair[0]],
      detached: request.ownProcessGroup,
    });
  } catch (error) {
    // Refused before any process existed (a NUL byte in an argument, as Go's exec refuses it).
    for (const socket of pair ?? []) socket.destroy();
    return { errno: (error as NodeJS.ErrnoException).code === "ERR_INVALID_ARG_VALUE" ? "EINVAL" : "EIO" };
  }
  // The command has its own copy of its end; the server's copy must not keep the channel open.
  pair?.[0].destroy();
  const exited = new Promise<ChildStatus>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const spawned = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    child.once("spawn", () => resolve(undefined));
    child.once("error", resolve);
  });
  if (spawned !== undefined || child.pid === undefined) {
    pair?.[1].destroy();
    return { errno: spawned?.code ?? "EIO" };
  }
  // Signals are sent by pid (process groups included), never through this object.
  child.on("error", () => undefined);
  return { pid: child.pid, output: pair?.[1], exited };
}
