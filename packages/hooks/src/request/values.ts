// Request values as hooks reference them ({source, name}), with webhook's dot-path lookup and its
// parse-parameters-as-json rewriting of the request maps.
import { quote } from "../go/strconv.ts";
import { decodeGoString } from "../go/utf8.ts";
import { canonicalHeaderKey } from "../http/header.ts";
import type { Argument, HookRequest, JsonObject, JsonValue } from "../types.ts";
import {
  decodeJsonObject,
  encodeGoJson,
  getOwn,
  isJsonObject,
  NIL_MAP,
  setOwn,
  valueToString,
} from "./json.ts";

/** A resolved value, or webhook's error text; notFound marks the soft "parameter node not found". */
export type Extracted = { value: string } | { error: string; notFound?: boolean };

type Lookup = { value: JsonValue } | { error: string; notFound: boolean };

const INDEX = /^[0-9]+$/;

/**
 * webhook's GetParameter: at an object the whole remaining path as a literal key wins, else split at
 * the first dot; at an array the next segment is an index. Walking into a JSON null is a hard error
 * in webhook ("no parameters"), every other miss is "parameter node not found".
 */
function lookupParameter(path: string, node: JsonValue | undefined): Lookup {
  if (node === null) return { error: "no parameters", notFound: false };
  const dot = path.indexOf(".");
  if (Array.isArray(node)) {
    const segment = dot === -1 ? path : path.slice(0, dot);
    const index = INDEX.test(segment) ? Number(segment) : -1;
    if (index < 0 || index >= node.length) return notFound(path);
    return dot === -1 ? { value: node[index] } : lookupParameter(path.slice(dot + 1), node[index]);
  }
  if (isJsonObject(node)) {
    const literal = getOwn(node, path);
    if (literal !== undefined) return { value: literal };
    if (dot !== -1) {
      const child = getOwn(node, path.slice(0, dot));
      if (child !== undefined) return lookupParameter(path.slice(dot + 1), child);
    }
  }
  return notFound(path);
}

function notFound(path: string): Lookup {
  return { error: `parameter node not found: ${path}`, notFound: true };
}

/** The value at a dot path, or undefined when webhook could not resolve it. */
export function getParameter(path: string, root: JsonValue | undefined): JsonValue | undefined {
  const found = lookupParameter(path, root);
  return "value" in found ? found.value : undefined;
}

function extractFrom(path: string, root: JsonObject | undefined): Extracted {
  const found = lookupParameter(path, root);
  return "value" in found ? { value: valueToString(found.value) } : found;
}

/** webhook's Argument.Get for every source it knows. */
export function extractArgument(arg: Argument, req: HookRequest): Extracted {
  switch (arg.source) {
    case "header":
      return extractFrom(canonicalHeaderKey(arg.name), req.headers);
    case "url":
    case "query":
      return extractFrom(arg.name, req.query);
    case "payload":
      return extractFrom(arg.name, req.payload);
    case "string":
      return { value: arg.name };
    case "raw-request-body":
      return { value: decodeGoString(req.rawBody) };
    case "request":
      switch (arg.name.toLowerCase()) {
        case "remote-addr":
          return { value: req.remoteAddr };
        case "method":
          return { value: req.method };
        default:
          return { error: `unsupported request key: ${quote(arg.name)}` };
      }
    case "entire-payload":
      return { value: encodeGoJson(req.payload) };
    case "entire-headers":
      return { value: encodeGoJson(req.headers) };
    case "entire-query":
      return { value: encodeGoJson(req.query) };
    default:
      return { error: "no source for value retrieval" };
  }
}

/** Go's %+v of an Argument, as webhook's log lines show it. */
export function formatArgument(arg: Argument): string {
  return `{Source:${arg.source} Name:${arg.name} EnvName:${arg.envname} Base64Decode:${arg.base64decode}}`;
}

/**
 * A parse-parameters-as-json entry whose dotted name reaches a non-array value: webhook 2.8.0
 * panics there (500 "Internal Server Error"); we report it clearly instead.
 */
export class DottedJsonParameterError extends Error {
  override readonly name = "DottedJsonParameterError";
  readonly argument: Argument;
  constructor(argument: Argument) {
    super(
      `parse-parameters-as-json cannot decode ${quote(argument.name)} (source ${argument.source}): ` +
        "only top-level parameters can be replaced; name the top-level parameter instead",
    );
    this.argument = argument;
  }
}

/**
 * parse-parameters-as-json: each referenced value holding a JSON object replaces the string in its
 * map, so later `name.sub` paths reach inside. JSON `null` becomes Go's nil map. Returns webhook's
 * log messages for the entries that failed (without the request id prefix).
 */
export function applyJsonStringParameters(params: Argument[], req: HookRequest): string[] {
  const log: string[] = [];
  for (const param of params) {
    const found = extractArgument(param, req);
    if ("error" in found) {
      log.push(`error parsing JSON parameters: couldn't retrieve argument for ${formatArgument(param)}`);
      continue;
    }
    const decoded = decodeJsonObject(found.value);
    if ("error" in decoded) {
      log.push(`error parsing JSON parameters: ${decoded.error}`);
      continue;
    }
    const target = sourceMap(param.source, req);
    if (target === null) {
      log.push(`error parsing JSON parameters: invalid source for argument ${formatArgument(param)}`);
      continue;
    }
    const key = param.source === "header" ? canonicalHeaderKey(param.name) : param.name;
    if (target !== undefined) replaceParameter(key, target, decoded.value ?? NIL_MAP, param);
  }
  return log;
}

/** The map a source names; null for sources webhook cannot rewrite, undefined for a missing payload. */
function sourceMap(source: string, req: HookRequest): JsonObject | undefined | null {
  if (source === "header") return req.headers;
  if (source === "payload") return req.payload;
  if (source === "url" || source === "query") return req.query;
  return null;
}

/** webhook's ReplaceParameter on the top-level map: only an existing key is replaced. */
function replaceParameter(path: string, map: JsonObject, value: JsonValue, param: Argument): void {
  const dot = path.indexOf(".");
  if (dot === -1) {
    if (Object.hasOwn(map, path)) setOwn(map, path, value);
    return;
  }
  const child = getOwn(map, path.slice(0, dot));
  if (child !== undefined) replaceNested(path.slice(dot + 1), child, param);
}

/**
 * Below the top level webhook only walks arrays and never replaces anything; reaching any other
 * non-null value is where it panics.
 */
function replaceNested(path: string, node: JsonValue, param: Argument): void {
  if (node === null) return;
  if (!Array.isArray(node)) throw new DottedJsonParameterError(param);
  const dot = path.indexOf(".");
  if (node.length === 0 || dot === -1) return;
  const segment = path.slice(0, dot);
  const index = INDEX.test(segment) ? Number(segment) : -1;
  if (index >= 0 && index < node.length) replaceNested(path.slice(dot + 1), node[index], param);
}
