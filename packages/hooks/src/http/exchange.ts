// One request and its response, with what webhook's logs say about them: the request id, the
// peer address the Go way, and (after the answer) the access line and -debug dumps.

import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { HooksConfig } from "../cli/flags.ts";
import { formatAccessLine, type Logger } from "../log/logger.ts";
import { clipBytesForLog, formatRequestDump, formatResponseDump } from "../log/redact.ts";
import type { Log } from "../types.ts";
import { canonicalHeaderKey } from "./header.ts";
import { type SentResponse, statusText } from "./response.ts";

export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly isHead: boolean;
  /** webhook's request id: 6 hex digits, or the client's X-Request-Id with -x-request-id. */
  readonly rid: string;
  /** The log when enabled: callers skip building messages otherwise. */
  readonly log: Log | undefined;
  /** hrtime at arrival (only measured when logging). */
  readonly started: bigint;
  /** The request body once read, for the -debug dump. */
  requestBody: Buffer;
}

const EMPTY: Buffer = Buffer.alloc(0);

export function openExchange(
  req: IncomingMessage,
  res: ServerResponse,
  config: HooksConfig,
  logger: Logger,
): Exchange {
  const log = logger.enabled ? logger.log : undefined;
  return {
    req,
    res,
    isHead: req.method === "HEAD",
    // The id only appears in log lines.
    rid: log === undefined ? "" : requestId(req, config),
    log,
    started: log === undefined ? 0n : process.hrtime.bigint(),
    requestBody: EMPTY,
  };
}

function requestId(req: IncomingMessage, config: HooksConfig): string {
  if (config.xRequestId) {
    let id = rawHeader(req.rawHeaders, "x-request-id") ?? "";
    if (config.xRequestIdLimit > 0 && id.length > config.xRequestIdLimit)
      id = id.slice(0, config.xRequestIdLimit);
    if (id !== "") return id;
  }
  return randomUUID().slice(0, 6);
}

/** First value of a header from rawHeaders (reading req.headers would build the whole object). */
export function rawHeader(rawHeaders: string[], lowerName: string): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === lowerName.length && name.toLowerCase() === lowerName) return rawHeaders[i + 1];
  }
  return undefined;
}

/** Go's RemoteAddr: `ip:port`, IPv6 in brackets, IPv4-mapped addresses shown as IPv4. */
export function remoteAddr(req: { socket: Socket }): string {
  const socket = req.socket;
  let address = socket.remoteAddress;
  if (address === undefined) return "@"; // a Unix socket peer
  if (address.startsWith("::ffff:") && address.includes(".")) address = address.slice(7);
  return address.includes(":") ? `[${address}]:${socket.remotePort}` : `${address}:${socket.remotePort}`;
}

/** After the answer: -debug dumps, then webhook's access line. */
export function logExchange(
  logger: Logger,
  exchange: Exchange,
  sent: SentResponse,
  responseBody: Buffer,
): void {
  if (!logger.enabled) return;
  const { req, rid } = exchange;
  const method = req.method ?? "";
  const uri = req.url ?? "";
  if (logger.debug) {
    const raw = req.rawHeaders;
    const headers: [string, string][] = [];
    for (let i = 0; i < raw.length; i += 2) headers.push([canonicalHeaderKey(raw[i]), raw[i + 1]]);
    headers.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // Go's dump puts Host, which net/http keeps apart from the other headers, first.
    const host = headers.findIndex(([name]) => name === "Host");
    if (host > 0) headers.unshift(...headers.splice(host, 1));
    logger.raw(formatRequestDump(rid, method, uri, `HTTP/${req.httpVersion}`, headers, exchange.requestBody));
    const statusLine = `${sent.status} ${statusText(sent.status) ?? ""}`;
    logger.raw(formatResponseDump(rid, statusLine, sent.headers, clipBytesForLog(responseBody)));
  }
  const elapsed = Number(process.hrtime.bigint() - exchange.started);
  const host = rawHeader(req.rawHeaders, "host") ?? "";
  logger.log(formatAccessLine(rid, sent.status, sent.bytes, elapsed, host, method, uri));
}
