// What the load benchmarks share: finding wrk, reading its report, and medians.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface WrkMeasure {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 2xx/3xx, and socket errors and timeouts. */
  errors: number;
}

export async function hasWrk(): Promise<boolean> {
  try {
    await run("wrk", ["--version"]);
    return true;
  } catch (error) {
    // wrk prints its version and exits 1; only a missing program is "absent".
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/** The rate, latencies and errors of a `wrk --latency` report. */
export function parseWrk(output: string): WrkMeasure {
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const percentile = (p: string) => {
    // wrk pads a value in seconds with a trailing space ("1.10s ").
    const found = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(output);
    if (!found) throw new Error(`no ${p}% latency in wrk output:\n${output}`);
    const factor = { us: 0.001, ms: 1, s: 1000 }[found[2] as "us" | "ms" | "s"];
    return Number(found[1]) * factor;
  };
  if (!rate) throw new Error(`no Requests/sec in wrk output:\n${output}`);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requestsPerSecond: Number(rate[1]),
    p50Ms: percentile("50"),
    p99Ms: percentile("99"),
    errors: non2xx + socketErrors,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
