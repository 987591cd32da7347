import { jsonText, nested } from "./json-text.ts";
import { type Operation, type Parameter, pathParameters, type Schema } from "./openapi.ts";
import type { Random } from "./random.ts";
import { junkCompound, junkString, junkValue, plausibleValue } from "./values.ts";

/** One request as it goes on the wire: the path is already encoded, the body already bytes. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Who the request claims to be: "admin", "anonymous" or "junk" credentials. */
  auth: "admin" | "anonymous" | "junk";
}

/** What a service gives the fuzzer: valid values for path parameters and how to authenticate. */
export interface Target {
  /** Values that name seeded objects, by parameter name (`*` for a wildcard). */
  validValues(parameter: string, path: string): string[];
  /** The admin's Authorization header. */
  adminAuthorization: string;
  /** Query parameters every route of the service reads without declaring them (e.g. forge's `token`). */
  queryParameters?: Record<string, Schema>;
  /** Binary content types an operation reads without declaring them (e.g. git's pack requests). */
  binaryTypes?: (operation: Operation) => string[];
  /** Extra headers the service reads (e.g. forge's Sudo), with junk values. */
  junkHeaders?: (random: Random) => Record<string, string>;
  /** What is wrong with an error answer (4xx) that is not in the API's error shape; nothing when it is. */
  errorShape?: (answer: {
    /** The operation's path template, e.g. /api/v1/repos/{owner}/{repo}. */
    operation: string;
    method: string;
    status: number;
    contentType: string;
    body: string;
  }) => string | undefined;
}

/** Percent-encoding that takes any string (a lone surrogate goes as U+FFFD). */
function percentEncode(text: string): string {
  return encodeURIComponent(text.toWellFormed());
}

// CONNECT is left out: node's client treats it as a tunnel, never as a request with an answer.
const OTHER_METHODS = [
  "GET",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "HEAD",
  "OPTIONS",
  "TRACE",
  "PROPFIND",
  "PURGE",
];

/** A path segment: raw junk the URL parser would normally clean up, or an encoded junk value. */
function junkSegment(random: Random): string {
  if (random.chance(0.3))
    return random.pick([
      "..",
      ".",
      "%2e%2e",
      "%2E.",
      "%00",
      "a%00b",
      "%",
      "%zz",
      "%ff",
      "%2f",
      "a%2fb",
      "%0a",
      "%20",
      ";",
      "~",
    ]);
  const value = junkString(random);
  const length = random.chance(0.9) ? 300 : random.chance(0.9) ? 20_000 : 1_000_000;
  return percentEncode(value.slice(0, length));
}

function pathOf(random: Random, operation: Operation, target: Target): string {
  let path = operation.path;
  for (const name of pathParameters(operation.path)) {
    const valid = target.validValues(name, operation.path);
    // A DELETE names a seeded object less often, so the DELETEs after it still find some.
    const keep = operation.method === "DELETE" ? 0.2 : 0.5;
    const value =
      valid.length > 0 && random.chance(keep) ? percentEncode(random.pick(valid)) : junkSegment(random);
    path = path.replace(`{${name}}`, value);
  }
  return path;
}

function queryValue(random: Random, schema: Schema | undefined): string {
  const value = random.chance(0.3) ? plausibleValue(random, schema) : junkValue(random, schema);
  const text = typeof value === "string" ? value : jsonText(value);
  return percentEncode(text.slice(0, random.chance(0.9) ? 300 : 20_000));
}

function queryOf(random: Random, operation: Operation, target: Target): string {
  const pairs: string[] = [];
  const undeclared = Object.entries(target.queryParameters ?? {}).map(
    ([name, schema]): Parameter => ({ name, in: "query", schema }),
  );
  for (const parameter of [...operation.parameters, ...undeclared]) {
    if (parameter.in !== "query" || random.chance(0.4)) continue;
    const name = percentEncode(parameter.name);
    pairs.push(`${name}=${queryValue(random, parameter.schema)}`);
    if (random.chance(0.1)) pairs.push(`${name}=${queryValue(random, parameter.schema)}`);
    if (random.chance(0.05)) pairs.push(`${name}[]=1&${name}[a][b][c]=2`);
  }
  if (random.chance(0.15))
    pairs.push(
      random.pick([
        "__proto__[admin]=1",
        "constructor[prototype][admin]=1",
        "a" + "[a]".repeat(200) + "=1",
        "%=%",
        "%zz=%ff",
        "x=%00",
        "&&&",
        "page=-1&limit=-1",
        "limit=99999999999999999999",
        "sort=id;drop%20table%20x&order=sideways",
        `q=${"%25".repeat(5000)}`,
      ]),
    );
  return pairs.length === 0 ? "" : `?${pairs.join("&")}`;
}

/**
 * A JSON body for a schema: either a well-formed body with one field malformed (so the check of
 * that field, and what comes after it, is reached), or several fields malformed, some left out and
 * an unknown one added, or every field null.
 */
function objectBody(random: Random, schema: Schema): unknown {
  const properties = Object.entries(schema.properties ?? {});
  const body: Record<string, unknown> = {};
  const roll = random.next();
  if (roll < 0.5) {
    for (const [name, property] of properties) body[name] = plausibleValue(random, property);
    const [name, property] = properties.length > 0 ? random.pick(properties) : ["name", undefined];
    body[name] = junkValue(random, property);
    return body;
  }
  for (const [name, property] of properties) {
    if (roll > 0.85) body[name] = null;
    else if (random.chance(0.15)) continue;
    else body[name] = random.chance(0.55) ? junkValue(random, property) : plausibleValue(random, property);
  }
  if (random.chance(0.2)) body[`unknown_${random.int(0, 9)}`] = junkValue(random, undefined);
  return body;
}

function jsonBody(random: Random, schema: Schema | undefined): string {
  switch (random.int(0, 9)) {
    case 0:
      return jsonText(random.pick<unknown>([[], [{}], null, 1, "text", true, junkCompound(random)]));
    case 1:
      return jsonText(nested(random.pick([100, 5000, 10_000, 100_000]), random.pick(["array", "object"])));
    case 2:
      return random.pick([
        "",
        "{",
        '{"a":',
        "{'a':1}",
        '{"a":1,}',
        "[1,2",
        "\ufeff{}",
        "{}{}",
        '{"a":1} trailing',
        "/* comment */ {}",
        "\u0000",
        "NaN",
        '{"a":"\\ud800"}',
        '{"a":"\\u0000"}',
        '{"a":"\\x00"}',
      ]);
    case 3: {
      const name = random.pick(Object.keys(schema?.properties ?? { name: {} }));
      return `{${JSON.stringify(name)}:${jsonText(plausibleValue(random, schema?.properties?.[name]))},${JSON.stringify(name)}:${jsonText(junkValue(random, undefined))}}`;
    }
    case 4:
      return jsonText([objectBody(random, schema ?? {})]);
    default:
      return jsonText(objectBody(random, schema ?? {}));
  }
}

/** Random bytes, or pkt-lines (git's framing) with wrong lengths and commands. */
function binaryBody(random: Random): Buffer {
  if (random.chance(0.5))
    return Buffer.from(Array.from({ length: random.int(0, 4096) }, () => random.int(0, 255)));
  return Buffer.from(
    random.pick([
      "0000",
      "0001",
      "ffff",
      "zzzz",
      "0004",
      "0032want 0000000000000000000000000000000000000000\n0000",
      "0032want zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n00000009done\n",
      "00a0" + "x".repeat(10),
      "0014command=ls-refs\n0000",
      "0046" + "0".repeat(40) + " " + "1".repeat(40) + " refs/heads/main\u0000\n0000PACK",
      "PACK\u0000\u0000\u0000\u0002\u0000\u0000\u0000\u0001junk",
    ]),
    "latin1",
  );
}

function formBody(random: Random, schema: Schema | undefined): string {
  const names = Object.keys(schema?.properties ?? { name: {} });
  return names
    .map((name) => `${percentEncode(name)}=${percentEncode(junkString(random).slice(0, 1000))}`)
    .join("&");
}

function multipartBody(random: Random, schema: Schema | undefined): { type: string; body: Buffer } {
  const boundary = "fuzzboundary" + random.int(0, 9999);
  const names = [...Object.keys(schema?.properties ?? {}), "file", "image", "file[]"];
  const parts: string[] = [];
  for (let i = random.int(0, 3); i > 0; i--) {
    const name = random.pick(names);
    const filename = random.chance(0.5)
      ? `; filename="${random.pick(["../../x.php", "a\u0000.png", "", ".htaccess", "x".repeat(500)])}"`
      : "";
    const type = random.chance(0.5)
      ? `\r\nContent-Type: ${random.pick(["image/png", "text/csv", "application/x-php", "junk"])}`
      : "";
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename}${type}\r\n\r\n${junkString(random).slice(0, 5000)}\r\n`,
    );
  }
  const ending = random.chance(0.8)
    ? `--${boundary}--\r\n`
    : random.pick(["", `--${boundary}`, "--wrong--\r\n"]);
  const declared = random.chance(0.85) ? boundary : random.pick(["", "other", "x".repeat(100)]);
  return {
    type: declared === "" ? "multipart/form-data" : `multipart/form-data; boundary=${declared}`,
    body: Buffer.from(parts.join("") + ending, "latin1"),
  };
}

const OTHER_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "application/xml",
  "application/json; charset=utf-16",
  "application/json; charset=latin1",
  "APPLICATION/JSON",
  "application/vnd.api+json",
  "application/merge-patch+json",
  "application/octet-stream",
  "multipart/form-data",
  "*/*",
  ";",
];

function bodyOf(
  random: Random,
  operation: Operation,
  target: Target,
  headers: Record<string, string>,
): Buffer | undefined {
  const binary = target.binaryTypes?.(operation) ?? [];
  const declared = [...Object.keys(operation.body), ...binary];
  if (declared.length === 0 && random.chance(0.7)) return undefined;
  const type = declared.length > 0 && random.chance(0.8) ? random.pick(declared) : random.pick(OTHER_TYPES);
  if (binary.includes(type)) {
    headers["content-type"] = type;
    if (random.chance(0.1)) headers["content-encoding"] = random.pick(["gzip", "deflate", "br", "junk"]);
    return binaryBody(random);
  }
  const schema = operation.body[type] ?? Object.values(operation.body)[0];
  if (type.startsWith("multipart/form-data")) {
    const multipart = multipartBody(random, schema);
    headers["content-type"] = random.chance(0.9) ? multipart.type : type;
    return multipart.body;
  }
  if (random.chance(0.05)) {
    // A body past any sensible limit.
    headers["content-type"] = type;
    return Buffer.alloc(11 * 1024 * 1024, "a");
  }
  const text = type.includes("x-www-form-urlencoded") ? formBody(random, schema) : jsonBody(random, schema);
  if (random.chance(0.9)) headers["content-type"] = type;
  if (random.chance(0.05)) return Buffer.concat([Buffer.from(text), Buffer.from([0xff, 0xfe, 0xc3, 0x28])]);
  return Buffer.from(text, type.includes("utf-16") ? "utf16le" : "utf8");
}

function authOf(random: Random, target: Target, headers: Record<string, string>): FuzzRequest["auth"] {
  const roll = random.next();
  if (roll < 0.6) {
    headers.authorization = target.adminAuthorization;
    return "admin";
  }
  if (roll < 0.9) return "anonymous";
  headers.authorization = random.pick([
    "token ",
    "token junk",
    "Bearer " + "a".repeat(10_000),
    "Basic !!!",
    `Basic ${Buffer.from("root:").toString("base64")}`,
    `Basic ${Buffer.from(":".repeat(3)).toString("base64")}`,
    `Basic ${Buffer.from(`${"a".repeat(5000)}:${"b".repeat(5000)}`).toString("base64")}`,
    "Digest x",
    "Bearer",
  ]);
  return "junk";
}

/** A malformed request for `operation`, drawn from `random`. */
export function fuzzRequest(random: Random, operation: Operation, target: Target): FuzzRequest {
  const headers: Record<string, string> = {};
  const method = random.chance(0.03) ? random.pick(OTHER_METHODS) : operation.method;
  const auth = authOf(random, target, headers);
  const path = pathOf(random, operation, target) + queryOf(random, operation, target);
  const body = method === "HEAD" ? undefined : bodyOf(random, operation, target, headers);
  if (random.chance(0.1)) Object.assign(headers, target.junkHeaders?.(random) ?? {});
  if (random.chance(0.05))
    headers.accept = random.pick(["text/html", "application/xml", "*/*;q=junk", "\u00ff"]);
  return { method, path, headers, body, auth };
}
