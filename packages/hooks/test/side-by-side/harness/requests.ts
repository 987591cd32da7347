// Request builders and signatures for the side-by-side cases.
import { createHmac } from "node:crypto";
import type { HttpRequest } from "./raw-http.ts";

export type Headers = Record<string, string> | [string, string][];

function headerList(headers: Headers): [string, string][] {
  return Array.isArray(headers) ? headers : Object.entries(headers);
}

export function request(
  method: string,
  path: string,
  headers: Headers = {},
  body: string | Buffer = "",
): HttpRequest {
  return {
    method,
    path,
    headers: headerList(headers),
    body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  };
}

export function get(path: string, headers: Headers = {}): HttpRequest {
  return request("GET", path, headers);
}

/** A POST of `body` as `contentType` (a JSON value is serialised; a string is sent verbatim). */
export function post(
  path: string,
  contentType: string,
  body: string | Buffer | object,
  headers: Headers = {},
) {
  const bytes = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return request("POST", path, [["Content-Type", contentType], ...headerList(headers)], bytes);
}

export function postJson(path: string, body: string | object, headers: Headers = {}): HttpRequest {
  return post(path, "application/json", body, headers);
}

export function postForm(path: string, body: string, headers: Headers = {}): HttpRequest {
  return post(path, "application/x-www-form-urlencoded", body, headers);
}

export interface Part {
  name: string;
  value: string;
  filename?: string;
  contentType?: string;
}

export const boundary = "sbs-boundary-7d1";

export function multipartBody(parts: Part[]): string {
  const lines: string[] = [];
  for (const part of parts) {
    lines.push(`--${boundary}`);
    const file = part.filename === undefined ? "" : `; filename="${part.filename}"`;
    lines.push(`Content-Disposition: form-data; name="${part.name}"${file}`);
    if (part.contentType) lines.push(`Content-Type: ${part.contentType}`);
    lines.push("", part.value);
  }
  lines.push(`--${boundary}--`, "");
  return lines.join("\r\n");
}

export function postMultipart(path: string, parts: Part[], headers: Headers = {}): HttpRequest {
  return post(path, `multipart/form-data; boundary=${boundary}`, multipartBody(parts), headers);
}

/** Hex HMAC as webhook's payload-hmac-* rules expect it. */
export function hmacHex(algorithm: "sha1" | "sha256" | "sha512", secret: string, body: string): string {
  return createHmac(algorithm, secret).update(body).digest("hex");
}

const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A Date header in scalr's layout `Mon 02 Jan 2006 15:04:05 MST` (UTC), `offsetSeconds` from now. */
export function scalrDate(offsetSeconds = 0): string {
  const d = new Date(Date.now() + offsetSeconds * 1000);
  const two = (n: number) => String(n).padStart(2, "0");
  return (
    `${days[d.getUTCDay()]} ${two(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC`
  );
}
