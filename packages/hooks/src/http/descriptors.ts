// Connections under a low open-file limit (`ulimit -n`). Go's server leaves connections it cannot
// take yet in the kernel's queue and accepts them later; Node's libuv, once accept() fails for
// want of a descriptor, accepts and closes every waiting connection, which clients see as a
// connection closed without an answer. So the hook runner stops short of the limit: it keeps a
// reserve for starting commands and answers connections beyond its share with 503 at once.

import { readdirSync, readFileSync } from "node:fs";
import type net from "node:net";
import { commandOutputDescriptors } from "../command/process.ts";

/** Descriptors kept free for starting commands (pipes, temp files, the child's own) and the log. */
const RESERVE = 32;

/** The soft limit on open files (Linux's /proc); undefined where it cannot be read or is unlimited. */
function openFileLimit(): number | undefined {
  try {
    const limits = readFileSync("/proc/self/limits", "utf8");
    const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
    return soft === undefined ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

function openFileCount(): number | undefined {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return undefined;
  }
}

export class DescriptorBudget {
  /** Descriptors connections and running commands may hold together; undefined: no known limit. */
  readonly #capacity: number | undefined;
  #connections = 0;

  /** Measured once the server is set up: what it holds then (log, watchers, libuv's own) stays held. */
  constructor() {
    const limit = openFileLimit();
    const held = openFileCount();
    this.#capacity = limit === undefined || held === undefined ? undefined : limit - held - RESERVE;
  }

  /**
   * Counts a new connection while it is open; false when it would take the descriptors commands
   * need (the caller answers it 503 and closes it, which frees its descriptor at once).
   */
  admit(socket: net.Socket): boolean {
    if (this.#capacity !== undefined && this.#connections + commandOutputDescriptors() >= this.#capacity) {
      return false;
    }
    this.#connections++;
    socket.once("close", () => this.#connections--);
    return true;
  }
}
