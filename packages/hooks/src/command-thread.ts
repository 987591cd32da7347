// The main thread's side of the command thread (command-worker.ts): hands run requests over a
// few at a time and routes its answers back to the waiting runs.

import { Worker } from "node:worker_threads";
import type { RunMessage, WorkerMessage } from "./command-worker.ts";
import type { Log } from "./types.ts";

export type ExitMessage = Extract<WorkerMessage, { type: "exit" }>;

export interface StreamCallbacks {
  /** The process has started. */
  onSpawn(): void;
  /** Output as it is produced (stream mode). */
  onData(chunk: Buffer): void;
}

interface PendingRun {
  resolve(message: ExitMessage): void;
  stream: StreamCallbacks | undefined;
  /** Handed to the thread and not yet started (or failed to start). */
  starting: boolean;
}

/**
 * Runs handed to the thread before it has started them. The thread reaps exited children only
 * between messages, so a long queue there piles up zombies under load; the rest wait here.
 */
const MAX_STARTING = 4;

export class CommandThread {
  readonly #log: Log;
  readonly #pending = new Map<number, PendingRun>();
  /** Runs not handed over yet: a FIFO read from #backlogHead. */
  #backlog: RunMessage[] = [];
  #backlogHead = 0;
  #starting = 0;
  #worker: Worker | undefined;
  #nextId = 1;

  constructor(log: Log) {
    this.#log = log;
  }

  /** Starts the thread now rather than on the first command. */
  warmUp(): void {
    this.#thread();
  }

  /** Runs a command (its `id` is assigned here); resolves when it has exited or failed to start. */
  run(message: RunMessage, stream?: StreamCallbacks): Promise<ExitMessage> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      if (this.#pending.size === 0) this.#thread().ref();
      this.#pending.set(id, {
        resolve: (exit) => {
          this.#pending.delete(id);
          if (this.#pending.size === 0) this.#worker?.unref();
          resolve(exit);
        },
        stream,
        starting: true,
      });
      this.#backlog.push({ ...message, id });
      this.#feed();
    });
  }

  async close(): Promise<void> {
    await this.#worker?.terminate();
    this.#worker = undefined;
  }

  #feed(): void {
    while (this.#starting < MAX_STARTING && this.#backlogHead < this.#backlog.length) {
      const message = this.#backlog[this.#backlogHead++];
      this.#starting++;
      this.#thread().postMessage(message);
    }
    if (this.#backlogHead === this.#backlog.length) {
      this.#backlog = [];
      this.#backlogHead = 0;
    } else if (this.#backlogHead > 1024 && this.#backlogHead * 2 > this.#backlog.length) {
      this.#backlog = this.#backlog.slice(this.#backlogHead);
      this.#backlogHead = 0;
    }
  }

  #onMessage(message: WorkerMessage): void {
    const pending = this.#pending.get(message.id);
    if (pending === undefined) return;
    if (message.type === "data") {
      pending.stream?.onData(Buffer.from(message.chunk));
      return;
    }
    if (pending.starting) {
      pending.starting = false;
      this.#starting--;
      this.#feed();
    }
    if (message.type === "exit") pending.resolve(message);
    else pending.stream?.onSpawn();
  }

  #thread(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(new URL("./command-worker.ts", import.meta.url));
    worker.unref();
    worker.on("message", (message: WorkerMessage) => this.#onMessage(message));
    worker.on("error", (error) => this.#log(`command thread failed: ${error.message}`));
    worker.on("exit", () => {
      if (this.#worker === worker) this.#worker = undefined;
      this.#starting = 0;
      this.#backlog = [];
      this.#backlogHead = 0;
      for (const [id, pending] of this.#pending) {
        pending.resolve({
          type: "exit",
          id,
          code: null,
          signal: null,
          spawnError: "EIO",
          timedOut: false,
          output: undefined,
          truncated: false,
        });
      }
    });
    this.#worker = worker;
    return worker;
  }
}
