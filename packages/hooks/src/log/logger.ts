// webhook's log: `[webhook] YYYY/MM/DD HH:MM:SS message` in local time (Go's log.Ldate|log.Ltime),
// to stderr with -verbose/-debug, or appended to -logfile instead (as webhook does). Secrets never
// reach it: values are redacted before they are logged (redact.ts).

import { createWriteStream, type WriteStream } from "node:fs";
import { open } from "node:fs/promises";
import { formatGoDuration } from "../go/duration.ts";
import { errnoText } from "../go/errors.ts";
import type { Log } from "../types.ts";
import { redactRequestUri } from "./redact.ts";

export interface Logger {
  /** -verbose (or -debug/-logfile): callers check it before building a message on the hot path. */
  readonly enabled: boolean;
  /** -debug: dump each request and response. */
  readonly debug: boolean;
  readonly log: Log;
  /** Unprefixed text, as webhook's request dumper writes it. */
  raw(text: string): void;
  /** Flushes and closes the log file, if any. */
  close(): Promise<void>;
}

export interface LoggerOptions {
  verbose: boolean;
  debug: boolean;
  logfile: string;
  /** Where verbose logs go without -logfile; tests pass their own. */
  stderr?: { write(text: string): unknown };
}

/** Opens the log file first (webhook reports `error opening log file "x": ...` and exits 1). */
export async function createLogger(options: LoggerOptions): Promise<Logger> {
  const enabled = options.verbose || options.debug || options.logfile !== "";
  let file: WriteStream | undefined;
  if (options.logfile !== "") {
    try {
      const handle = await open(options.logfile, "a", 0o666);
      file = createWriteStream("", { fd: handle, flags: "a" });
    } catch (error) {
      throw new Error(
        `error opening log file "${options.logfile}": open ${options.logfile}: ${errnoText(error)}`,
      );
    }
  }
  const sink = file ?? options.stderr ?? process.stderr;
  const write = (text: string) => void sink.write(text);
  return {
    enabled,
    debug: options.debug,
    log: enabled ? (message) => write(formatLogLine(message)) : () => {},
    raw: enabled ? write : () => {},
    close: () =>
      new Promise((resolve) => {
        if (file === undefined) resolve();
        else file.end(resolve);
      }),
  };
}

let prefixSecond = -1;
let prefix = "";

/** One log line; like Go's log package, a newline is added only when the message lacks one. */
export function formatLogLine(message: string, now = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== prefixSecond) {
    prefixSecond = second;
    prefix = `[webhook] ${formatLocalTimestamp(new Date(now))} `;
  }
  return message.endsWith("\n") ? prefix + message : `${prefix}${message}\n`;
}

/** `YYYY/MM/DD HH:MM:SS` in local time. */
export function formatLocalTimestamp(date: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return (
    `${date.getFullYear()}/${two(date.getMonth() + 1)}/${two(date.getDate())} ` +
    `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`
  );
}

/** The access line of webhook's logger middleware: `[id] 200 | 30 B | 150µs | host | POST /hooks/x`. */
export function formatAccessLine(
  requestId: string,
  status: number,
  bytes: number,
  elapsedNanos: number,
  host: string,
  method: string,
  requestUri: string,
): string {
  const code = String(status).padStart(3, "0");
  return `[${requestId}] ${code} | ${formatIBytes(bytes)} | ${formatGoDuration(elapsedNanos)} | ${host} | ${method} ${redactRequestUri(requestUri)}`;
}

const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

/** go-humanize's IBytes: `6 B`, `2.0 KiB`, `15 KiB`. */
export function formatIBytes(bytes: number): string {
  if (bytes < 10) return `${bytes} B`;
  const exponent = Math.floor(Math.log(bytes) / Math.log(1024));
  const value = Math.floor((bytes / 1024 ** exponent) * 10 + 0.5) / 10;
  return `${value < 10 ? value.toFixed(1) : value.toFixed(0)} ${BYTE_UNITS[exponent]}`;
}
