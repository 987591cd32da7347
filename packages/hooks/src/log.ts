// webhook's log: `[webhook] YYYY/MM/DD HH:MM:SS message` in local time (Go's log.Ldate|log.Ltime),
// to stderr with -verbose/-debug, or appended to -logfile instead (as webhook does). Secrets never
// reach it: header, query, body and command values whose names look sensitive are redacted.

import { createWriteStream, type WriteStream } from "node:fs";
import { open } from "node:fs/promises";
import { formatGoDuration } from "./duration.ts";
import { errnoText } from "./go-errors.ts";
import type { Log } from "./types.ts";

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

export const REDACTED = "[REDACTED]";

const SECRET_NAME = /auth|token|secret|signature|passw|cookie|api[-_]?key|private[-_]?key|access[-_]?key/i;

/** Header, parameter and variable names whose values must never be logged. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Redacts `name=value` pairs with a sensitive name in a query string or form body. */
export function redactQuery(query: string): string {
  if (!SECRET_NAME.test(query)) return query;
  return query.replace(/(^|[&;])([^=&;]*)=([^&;]*)/g, (pair, separator: string, name: string) =>
    isSecretName(safeDecode(name)) ? `${separator}${name}=${REDACTED}` : pair,
  );
}

function redactRequestUri(uri: string): string {
  const at = uri.indexOf("?");
  return at < 0 ? uri : uri.slice(0, at + 1) + redactQuery(uri.slice(at + 1));
}

/** Redacts sensitive members of a JSON document, or `name=value` pairs of a form body. */
export function redactText(text: string): string {
  if (!SECRET_NAME.test(text)) return text;
  const json = text.replace(
    /("((?:[^"\\]|\\.)*)"\s*:\s*)("(?:[^"\\]|\\.)*"|-?[\d.eE+-]+|true|false|null)/g,
    (member, head: string, name: string) => (isSecretName(name) ? `${head}"${REDACTED}"` : member),
  );
  return json === text ? redactQuery(text) : json;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}

/** The request half of webhook's -debug dump, with secrets redacted. */
export function formatRequestDump(
  requestId: string,
  method: string,
  requestUri: string,
  protocol: string,
  headers: [string, string][],
  body: Buffer,
): string {
  let text = `> [${requestId}] ${method} ${redactRequestUri(requestUri)} ${protocol}\n`;
  for (const [name, value] of headers) {
    text += `> [${requestId}] ${name}: ${isSecretName(name) ? REDACTED : value}\n`;
  }
  text += `> [${requestId}] \n`;
  if (body.length > 0) {
    for (const line of redactText(body.toString("utf8")).split("\n")) text += `> [${requestId}] ${line}\n`;
  }
  return text;
}

/** The response half of the -debug dump. */
export function formatResponseDump(
  requestId: string,
  statusLine: string,
  headers: readonly (readonly [string, string])[],
  body: string,
): string {
  let text = `< [${requestId}] ${statusLine}\n`;
  for (const [name, value] of headers) {
    text += `< [${requestId}] ${name}: ${isSecretName(name) ? REDACTED : value}\n`;
  }
  text += `< [${requestId}]\n`;
  if (body.length > 0) {
    for (const line of body.split("\n")) text += `< [${requestId}] ${line}\n`;
  }
  return text;
}
