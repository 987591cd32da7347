import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { type Attempt, type Attempted, attempter, type Numbered } from "./attempts.ts";

// The body of a delivery thread (see attempts.ts): makes the attempts it is handed, each with the
// same checks and kept connections it would have on the main thread, and hands the results back
// in batches, all those that ended in one turn of its event loop together.

export interface AttemptThreadData {
  allowedHosts: string;
  timeoutMs: number;
}

export type ToAttemptThread = { attempts: Numbered<Attempt>[] } | { close: true };
export type FromAttemptThread = { results: Numbered<Attempted>[] };

/**
 * The thread's nice value. Deliveries are background work: when the cores are contended, the
 * kernel should serve the API's thread first. On Linux a nice value belongs to a thread, so this
 * lowers this thread alone.
 */
const NICE = 10;

const port = parentPort;
if (port === null) throw new Error("attempt-thread.ts runs only as a worker thread");
const { allowedHosts, timeoutMs } = workerData as AttemptThreadData;
try {
  setPriority(0, NICE);
} catch {
  // Where the platform keeps one priority per process, or refuses, attempts run at the usual one.
}
const { attempt, close } = attempter(allowedHosts, timeoutMs);
let results: Numbered<Attempted>[] = [];

function send() {
  port?.postMessage({ results } satisfies FromAttemptThread);
  results = [];
}

port.on("message", (message: ToAttemptThread) => {
  if ("close" in message) {
    close();
    port.close();
    return;
  }
  for (const { seq, value } of message.attempts) {
    attempt(value).then((result) => {
      if (results.length === 0) setImmediate(send);
      results.push({ seq, value: result });
    });
  }
});
