// The three maps webhook builds from a request (headers, query, payload) and its body parsing by
// content type, with Go net/http's view of the request.
import { quote } from "../go/strconv.ts";
import { isSpace } from "../go/unicode.ts";
import { decodeGoString } from "../go/utf8.ts";
import { canonicalHeaderKey } from "../http/header.ts";
import type { JsonObject } from "../types.ts";
import { decodeJsonObject, NIL_MAP, parseJson, setOwn } from "./json.ts";
import { readMultipartForm } from "./multipart.ts";
import { parseUrlValues } from "./url-values.ts";
import { parseXmlPayload } from "./xml.ts";

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * webhook's Headers map from Node's `req.rawHeaders`: canonical names, first value, no Host (Go
 * moves it to r.Host) and no Transfer-Encoding (consumed by Go's body reader).
 */
export function buildHeaderMap(rawHeaders: string[]): JsonObject {
  const headers: JsonObject = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const key = canonicalHeaderKey(rawHeaders[i]);
    if (key === "Host" || key === "Transfer-Encoding" || Object.hasOwn(headers, key)) continue;
    const value = rawHeaders[i + 1];
    // Node reads header bytes as latin1; Go keeps the bytes themselves (UTF-8 or not).
    setOwn(headers, key, NON_ASCII.test(value) ? decodeGoString(Buffer.from(value, "latin1")) : value);
  }
  // Go's server adds this for HTTP/1.0 caches (fixPragmaCacheControl), so webhook sees it too.
  if (headers["Pragma"] === "no-cache" && headers["Cache-Control"] === undefined) {
    headers["Cache-Control"] = "no-cache";
  }
  return headers;
}

/** r.URL.Query() reduced to first values: pairs with a `;` or a bad escape are dropped, others kept. */
export function buildQueryMap(search: string): JsonObject {
  return parseUrlValues(search.startsWith("?") ? search.slice(1) : search).values;
}

export interface ParsedBody {
  payload: JsonObject | undefined;
  /** What raw-request-body and the HMAC rules see: empty for multipart, which Go streams. */
  rawBody: Buffer;
  /** webhook answers 500 "Error occurred while parsing multipart form." */
  multipartError: boolean;
  /** webhook's log messages, without the `[request id] ` prefix. */
  log: string[];
}

export interface ParseBodyOptions {
  maxMultipartMem: number;
  /** Names of the hook's parse-parameters-as-json entries with source `payload`. */
  jsonParameterNames: string[];
  /** The raw query string: Go's ParseMultipartForm fails on a query it cannot parse. */
  rawQuery?: string;
}

const EMPTY = Buffer.alloc(0);

/**
 * webhook's body handling: the content type (or the hook's incoming-payload-content-type) is matched
 * by substring in this order: json, x-www-form-urlencoded, xml, then a `multipart/form-data;` prefix.
 * Parse failures only log; nothing throws. Synchronous, so that an answer that needs no command
 * (a rule mismatch) goes out in the same turn as the request arrived.
 */
export function parseBody(contentType: string, body: Buffer, opts: ParseBodyOptions): ParsedBody {
  const isMultipart = contentType.startsWith("multipart/form-data;");
  const result: ParsedBody = {
    payload: undefined,
    rawBody: isMultipart ? EMPTY : body,
    multipartError: false,
    log: [],
  };
  if (contentType.includes("json")) parseJsonBody(result);
  else if (contentType.includes("x-www-form-urlencoded")) {
    // One character per byte: the values keep the bytes the client sent (see url-values.ts).
    const form = parseUrlValues(result.rawBody.toString("latin1"));
    if (form.error !== undefined) result.log.push(`error parsing form payload ${form.error}`);
    else result.payload = form.values;
  } else if (contentType.includes("xml")) {
    try {
      result.payload = parseXmlPayload(result.rawBody.toString("utf8"));
    } catch (error) {
      result.log.push(`error parsing XML payload: ${(error as Error).message}`);
    }
  } else if (isMultipart) parseMultipartBody(result, contentType, body, opts);
  else result.log.push(`error parsing body payload due to unsupported content type header: ${contentType}`);
  return result;
}

function parseJsonBody(result: ParsedBody): void {
  const text = result.rawBody.toString("utf8");
  if (firstNonSpaceByte(result.rawBody) === 0x5b) {
    try {
      result.payload = { root: parseJson(text) };
    } catch (error) {
      result.log.push(`error parsing JSON array payload ${(error as Error).message}`);
    }
    return;
  }
  const decoded = decodeJsonObject(text);
  if ("error" in decoded) result.log.push(`error parsing JSON payload ${decoded.error}`);
  else result.payload = decoded.value;
}

/** webhook skips bytes unicode.IsSpace accepts (including \v, \f, 0x85, 0xA0) to spot an array. */
function firstNonSpaceByte(body: Buffer): number | undefined {
  for (const byte of body) {
    if (!isSpace(byte)) return byte;
  }
  return undefined;
}

function parseMultipartBody(
  result: ParsedBody,
  contentType: string,
  body: Buffer,
  opts: ParseBodyOptions,
): void {
  const read = readMultipartForm(contentType, body, opts.maxMultipartMem);
  // ParseMultipartForm reports a bad query string too, after its own errors.
  const error = "error" in read ? read.error : opts.rawQuery && parseUrlValues(opts.rawQuery).error;
  if (error || !("form" in read)) {
    result.multipartError = true;
    result.log.push(`error parsing multipart form: ${error}`);
    return;
  }
  const payload: JsonObject = {};
  let found = false;
  for (const [name, value] of read.form.values) {
    result.log.push(`found multipart form value ${quote(name)}`);
    setOwn(payload, name, value);
    found = true;
  }
  for (const [name, file] of read.form.files) {
    if (!opts.jsonParameterNames.includes(name) && !file.contentTypes.includes("application/json")) continue;
    result.log.push(`parsing multipart form file ${quote(name)} as JSON`);
    const decoded = decodeJsonObject(file.data.toString("utf8"));
    if ("error" in decoded) result.log.push(`error parsing JSON payload file: ${decoded.error}`);
    setOwn(payload, name, ("value" in decoded ? decoded.value : undefined) ?? NIL_MAP);
    found = true;
  }
  if (found) result.payload = payload;
}
