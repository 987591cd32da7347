// Responses laid out the way Go's net/http writes them, so clients see webhook's bytes: handler
// headers sorted by name, then Date, Content-Length (bodies up to 2048 bytes; larger ones are
// chunked) and a sniffed Content-Type; Go's reason phrases.

import type { ServerResponse } from "node:http";
import type { ResponseHeader } from "../types.ts";
import { canonicalHeaderKey, isToken } from "./header.ts";
import { detectContentType } from "./sniff.ts";

/** Header name and value pairs, canonical names, at most one per name, sorted like Go writes them. */
export type HeaderList = readonly (readonly [string, string])[];

/** net/http's StatusText table; a code missing here is "unknown" to webhook. */
const STATUS_TEXT = new Map<number, string>([
  [100, "Continue"],
  [101, "Switching Protocols"],
  [102, "Processing"],
  [103, "Early Hints"],
  [200, "OK"],
  [201, "Created"],
  [202, "Accepted"],
  [203, "Non-Authoritative Information"],
  [204, "No Content"],
  [205, "Reset Content"],
  [206, "Partial Content"],
  [207, "Multi-Status"],
  [208, "Already Reported"],
  [226, "IM Used"],
  [300, "Multiple Choices"],
  [301, "Moved Permanently"],
  [302, "Found"],
  [303, "See Other"],
  [304, "Not Modified"],
  [305, "Use Proxy"],
  [307, "Temporary Redirect"],
  [308, "Permanent Redirect"],
  [400, "Bad Request"],
  [401, "Unauthorized"],
  [402, "Payment Required"],
  [403, "Forbidden"],
  [404, "Not Found"],
  [405, "Method Not Allowed"],
  [406, "Not Acceptable"],
  [407, "Proxy Authentication Required"],
  [408, "Request Timeout"],
  [409, "Conflict"],
  [410, "Gone"],
  [411, "Length Required"],
  [412, "Precondition Failed"],
  [413, "Request Entity Too Large"],
  [414, "Request URI Too Long"],
  [415, "Unsupported Media Type"],
  [416, "Requested Range Not Satisfiable"],
  [417, "Expectation Failed"],
  [418, "I'm a teapot"],
  [421, "Misdirected Request"],
  [422, "Unprocessable Entity"],
  [423, "Locked"],
  [424, "Failed Dependency"],
  [425, "Too Early"],
  [426, "Upgrade Required"],
  [428, "Precondition Required"],
  [429, "Too Many Requests"],
  [431, "Request Header Fields Too Large"],
  [451, "Unavailable For Legal Reasons"],
  [500, "Internal Server Error"],
  [501, "Not Implemented"],
  [502, "Bad Gateway"],
  [503, "Service Unavailable"],
  [504, "Gateway Timeout"],
  [505, "HTTP Version Not Supported"],
  [506, "Variant Also Negotiates"],
  [507, "Insufficient Storage"],
  [508, "Loop Detected"],
  [510, "Not Extended"],
  [511, "Network Authentication Required"],
]);

export function statusText(code: number): string | undefined {
  return STATUS_TEXT.get(code);
}

/**
 * The status a configured success/mismatch code really produces: webhook ignores codes Go has no
 * text for (200 is sent), and an informational 1xx code is not a final status in Go either.
 */
export function effectiveStatus(code: number): number {
  return STATUS_TEXT.has(code) && code >= 200 ? code : 200;
}

/** Go's chunking buffer: a handler that writes more than this before returning gets chunked encoding. */
const CHUNKING_THRESHOLD = 2048;

let dateSecond = -1;
let dateValue = "";

/** The Date header value, formatted once per second. */
export function httpDate(now = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateValue = new Date(now).toUTCString();
  }
  return dateValue;
}

/** Status codes for which Go writes neither a body nor Content-Length. */
function bodyAllowed(status: number): boolean {
  return status >= 200 && status !== 204 && status !== 304;
}

/** What a sent response looked like, for the access log and -debug dumps. */
export interface SentResponse {
  status: number;
  bytes: number;
  headers: HeaderList;
}

/** The header fields Go writes for a complete answer, flattened as Node's writeHead takes them. */
function goHeaderFields(
  status: number,
  headers: HeaderList,
  body: Buffer,
  isHead: boolean,
  contentType: string | undefined,
): { fields: string[]; length: number; chunked: boolean } {
  const fields: string[] = [];
  let hasContentType = false;
  let hasContentEncoding = false;
  let hasContentLength = false;
  for (const [name, value] of headers) {
    fields.push(name, value);
    if (name === "Content-Type") hasContentType = true;
    else if (name === "Content-Encoding") hasContentEncoding = value !== "";
    else if (name === "Content-Length") hasContentLength = true;
  }
  fields.push("Date", httpDate());
  const withBody = bodyAllowed(status);
  const length = withBody ? body.length : 0;
  const chunked = length > CHUNKING_THRESHOLD;
  if (withBody && !chunked && !hasContentLength && !(isHead && length === 0)) {
    fields.push("Content-Length", String(length));
  }
  if (length > 0 && !hasContentType && !hasContentEncoding) {
    fields.push("Content-Type", contentType ?? detectContentType(body));
  }
  return { fields, length, chunked };
}

/**
 * Writes a complete response as net/http would for a handler that set `headers`, called
 * WriteHeader(status) and wrote `body`. `contentType` skips sniffing when the caller knows the answer.
 */
export function sendResponse(
  res: ServerResponse,
  isHead: boolean,
  status: number,
  headers: HeaderList,
  body: Buffer,
  contentType?: string,
): SentResponse {
  const { fields, length, chunked } = goHeaderFields(status, headers, body, isHead, contentType);
  writeGoHead(res, status, fields);
  if (isHead || length === 0) res.end();
  else if (chunked) {
    res.write(body);
    res.end();
  } else {
    // A string goes out in the same write as the headers; a Buffer would take a second (writev).
    res.end(body.toString("latin1"), "latin1");
  }
  return { status, bytes: length, headers: pairs(fields) };
}

/**
 * The same answer as raw bytes, for a connection Node's parser gave up on (Go accepts more, e.g.
 * methods Node does not know); the connection is closed after it.
 */
export function rawResponse(status: number, headers: HeaderList, body: Buffer, contentType?: string): string {
  return responseText(status, headers, body, contentType, "Connection: close\r\n");
}

/** Header fields node:http acts on when they are written (the connection's fate, the framing). */
const NODE_MANAGED = new Set(["Connection", "Content-Length", "Transfer-Encoding"]);

/**
 * True when keepAliveResponse can write this answer: a body Go does not send chunked, and none of
 * the header fields node:http would act on itself.
 */
export function plainAnswer(headers: HeaderList, body: Buffer): boolean {
  return body.length <= CHUNKING_THRESHOLD && headers.every(([name]) => !NODE_MANAGED.has(name));
}

/**
 * The bytes sendResponse has node:http write for a complete answer to a GET or POST on an
 * HTTP/1.1 keep-alive connection, for the fast path, which writes them itself; undefined when
 * that is not a plain answer.
 */
export function keepAliveResponse(
  status: number,
  headers: HeaderList,
  body: Buffer,
  contentType?: string,
): string | undefined {
  if (!plainAnswer(headers, body)) return undefined;
  return responseText(status, headers, body, contentType, "");
}

function responseText(
  status: number,
  headers: HeaderList,
  body: Buffer,
  contentType: string | undefined,
  connection: string,
): string {
  const { fields, length } = goHeaderFields(status, headers, body, false, contentType);
  let text = `HTTP/1.1 ${status} ${STATUS_TEXT.get(status) ?? ""}\r\n`;
  for (let i = 0; i < fields.length; i += 2) text += `${fields[i]}: ${fields[i + 1]}\r\n`;
  return `${text}${connection}\r\n${body.toString("latin1", 0, length)}`;
}

/**
 * writeHead without what Go would not send: Go names the connection's fate only when it is not
 * the protocol's default (`Connection: close` on HTTP/1.1, `keep-alive` on HTTP/1.0).
 */
export function writeGoHead(res: ServerResponse, status: number, fields: string[]): void {
  const http11 = res.req.httpVersionMinor === 1;
  if (res.socket?.readableEnded) {
    // The client has closed its sending side (a half-close): Go answers, then closes, and
    // still names nothing in a Connection header.
    res.shouldKeepAlive = false;
    res.removeHeader("Connection");
  } else if (res.shouldKeepAlive === http11) res.removeHeader("Connection");
  res.writeHead(status, STATUS_TEXT.get(status) ?? "", fields);
}

function pairs(flat: string[]): [string, string][] {
  const list: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) list.push([flat[i], flat[i + 1]]);
  return list;
}

/**
 * Header.Set over a list, as Go writes it: canonical names, the last value per name, invalid names
 * dropped, CR/LF in values turned into spaces and the ends trimmed, non-Latin-1 text sent as its
 * UTF-8 bytes.
 */
export function headerList(headers: readonly ResponseHeader[]): HeaderList {
  const list: [string, string][] = [];
  for (const { name, value } of headers) {
    const canonical = canonicalHeaderKey(name);
    if (isToken(canonical)) list.push([canonical, wireValue(value)]);
  }
  return combineHeaders(list);
}

/** Lists applied in order (a later value replaces an earlier one of the same name), sorted by name. */
export function combineHeaders(...lists: HeaderList[]): HeaderList {
  const merged = new Map<string, string>();
  for (const list of lists) for (const [name, value] of list) merged.set(name, value);
  return [...merged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function wireValue(value: string): string {
  const trimmed = value.replace(/[\r\n]/g, " ").replace(/^[ \t]+|[ \t]+$/g, "");
  const bytes = Buffer.from(trimmed, "utf8").toString("latin1");
  // Node refuses control characters in header values where Go would send them; drop them.
  let wire = "";
  for (const char of bytes) {
    const code = char.charCodeAt(0);
    if (code === 0x09 || (code >= 0x20 && code !== 0x7f)) wire += char;
  }
  return wire;
}
