import { Worker } from "node:worker_threads";
import type { AttemptThreadData, FromAttemptThread, ToAttemptThread } from "./attempt-thread.ts";
import { type AttemptResult, attemptDelivery, DeliveryAgents } from "./deliver.ts";
import { parseAllowedHostList } from "./hosts.ts";

// Where a worker's attempts run. A delivery's HTTP exchange (connecting, writing the request,
// parsing the answer) costs about half a millisecond of CPU; on the thread that serves a service's
// API, a drain of 16 at a time took that from every request in line behind it and doubled the
// API's p99. A worker thread makes the exchanges on a core of its own; the API's thread is left
// with the claims and the results, which the outbox worker batches, and the messages to and from
// the thread are batched too. Requests and answer headers cross as the JSON they are stored as,
// so the API's thread neither parses nor serializes them.

/** A delivery's request as the outbox stores it. */
export interface Attempt {
  url: string;
  method: string;
  /** JSON of the headers. */
  headers: string;
  body: string;
}

/** An attempt's result, with an answer's headers as the JSON the outbox stores. */
export type Attempted =
  | (Omit<Extract<AttemptResult, { kind: "answered" }>, "headers"> & { headers: string })
  | Exclude<AttemptResult, { kind: "answered" }>;

export interface Numbered<T> {
  seq: number;
  value: T;
}

export interface Attempts {
  attempt(attempt: Attempt): Promise<Attempted>;
  /** Ends the attempts' kept connections (and the thread). Attempts in flight end as failed. */
  close(): Promise<void>;
}

/** Attempts made on the calling thread, with kept connections of their own. */
export function attempter(allowedHosts: string, timeoutMs: number) {
  const allowed = parseAllowedHostList(allowedHosts);
  const agents = new DeliveryAgents();
  return {
    async attempt({ url, method, headers, body }: Attempt): Promise<Attempted> {
      const result = await attemptDelivery(
        { url, method, headers: JSON.parse(headers), body },
        allowed,
        timeoutMs,
        agents,
      );
      return result.kind === "answered" ? { ...result, headers: JSON.stringify(result.headers) } : result;
    },
    close: () => agents.close(),
  };
}

/** Attempts made on this thread's event loop. */
export function attemptsHere(allowedHosts: string, timeoutMs: number): Attempts {
  const { attempt, close } = attempter(allowedHosts, timeoutMs);
  return { attempt, close: async () => close() };
}

/**
 * Attempts made on a worker thread, started on the first attempt. A thread that dies ends its
 * attempts as failed (they are retried as any failed attempt is) and the next attempt starts
 * another.
 */
export function attemptsInThread(allowedHosts: string, timeoutMs: number): Attempts {
  // Parsed here too, so a list that cannot be used fails where the outbox worker is started.
  parseAllowedHostList(allowedHosts);
  const data: AttemptThreadData = { allowedHosts, timeoutMs };
  const waiting = new Map<number, (result: Attempted) => void>();
  let unsent: Numbered<Attempt>[] = [];
  let seq = 0;
  let thread: Worker | undefined;

  function endWaiting(error: string) {
    for (const resolve of waiting.values()) resolve({ kind: "failed", error, durationMs: 0 });
    waiting.clear();
  }

  function started(): Worker {
    if (thread !== undefined) return thread;
    const worker = new Worker(new URL("./attempt-thread.ts", import.meta.url), { workerData: data });
    worker.on("message", ({ results }: FromAttemptThread) => {
      for (const { seq, value } of results) {
        waiting.get(seq)?.(value);
        waiting.delete(seq);
      }
      if (waiting.size === 0) worker.unref();
    });
    worker.on("error", (error) => endWaiting(`the delivery thread failed: ${error.message}`));
    worker.on("exit", () => {
      if (thread === worker) thread = undefined;
      endWaiting("the delivery thread stopped");
    });
    thread = worker;
    return worker;
  }

  // The attempts begun in one turn go to the thread in one message.
  function send() {
    const worker = started();
    // Held open only while attempts are in flight, so an idle thread never keeps a process up.
    worker.ref();
    worker.postMessage({ attempts: unsent } satisfies ToAttemptThread);
    unsent = [];
  }

  return {
    attempt(value) {
      return new Promise((resolve) => {
        seq += 1;
        waiting.set(seq, resolve);
        if (unsent.length === 0) queueMicrotask(send);
        unsent.push({ seq, value });
      });
    },
    async close() {
      const worker = thread;
      if (worker === undefined) return;
      thread = undefined;
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      worker.postMessage({ close: true } satisfies ToAttemptThread);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      await worker.terminate();
      endWaiting("the delivery thread stopped");
    },
  };
}
