// Signature checks of the payload-hmac-* and scalr-signature rules. Errors name only what the
// client sent, never the MAC we computed.
import { createHmac, timingSafeEqual } from "node:crypto";
import { quote } from "../go/strconv.ts";
import { getOwn } from "../request/json.ts";
import { type HookRequest, RuleError } from "../types.ts";

export type HmacAlgorithm = "sha1" | "sha256" | "sha512";

export interface SignatureResult {
  ok: boolean;
  error?: RuleError;
}

/** subtle.ConstantTimeCompare: only the length can leak. */
export function constantTimeEquals(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * webhook's ExtractSignatures: without a comma the value is one signature (prefix optional); with
 * commas only the items starting with the prefix count, prefix removed.
 */
export function extractSignatures(source: string, prefix: string): string[] {
  if (!source.includes(",")) return [source.startsWith(prefix) ? source.slice(prefix.length) : source];
  const signatures: string[] = [];
  for (const part of source.split(",")) {
    if (part.startsWith(prefix)) signatures.push(part.slice(prefix.length));
  }
  return signatures;
}

/** Hex HMAC of the raw body against any of the given signatures (`sha256=...` prefixes allowed). */
export function checkPayloadSignature(
  algorithm: HmacAlgorithm,
  body: Buffer,
  secret: string,
  signature: string,
): SignatureResult {
  if (secret === "")
    return { ok: false, error: new RuleError("hard", "signature validation secret can not be empty") };
  const signatures = extractSignatures(signature, algorithm + "=");
  const expected = createHmac(algorithm, secret).update(body).digest("hex");
  for (const candidate of signatures) {
    if (constantTimeEquals(candidate, expected)) return { ok: true };
  }
  const empty = body.length === 0 ? " on empty payload" : "";
  return {
    ok: false,
    error: new RuleError("signature", `invalid payload signatures [${signatures.join(" ")}]${empty}`),
  };
}

/** Scalr's allowed clock skew, in seconds. */
const SCALR_MAX_SKEW = 300;

/**
 * scalr-signature: X-Signature is the hex HMAC-SHA1 of body + Date header; the Date (layout
 * `Mon 02 Jan 2006 15:04:05 MST`) must be within 300 s of now. Missing headers are a plain false.
 */
export function checkScalrSignature(req: HookRequest, secret: string, now = Date.now()): SignatureResult {
  const signature = getOwn(req.headers, "X-Signature");
  const date = getOwn(req.headers, "Date");
  if (signature === undefined || date === undefined) return { ok: false };
  if (secret === "") {
    return { ok: false, error: new RuleError("hard", "signature validation signing key can not be empty") };
  }
  const provided = String(signature);
  const dateText = String(date);
  const expected = createHmac("sha1", secret).update(req.rawBody).update(dateText).digest("hex");
  if (!constantTimeEquals(provided, expected)) {
    return { ok: false, error: new RuleError("signature", `invalid payload signature ${provided}`) };
  }
  const time = parseScalrDate(dateText);
  if (time === undefined) {
    return {
      ok: false,
      error: new RuleError(
        "hard",
        `parsing time ${quote(dateText)} as "Mon 02 Jan 2006 15:04:05 MST": cannot parse`,
      ),
    };
  }
  if (Math.abs(now - time) / 1000 > SCALR_MAX_SKEW) {
    return { ok: false, error: new RuleError("signature", "invalid payload signature outdated") };
  }
  return { ok: true };
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const SCALR_DATE =
  /^(?:mon|tue|wed|thu|fri|sat|sun) ([0-9]{2}) ([a-z]{3}) ([0-9]{4}) ([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]+))? (.+)$/i;
// Zone abbreviations Go's time.Parse accepts for "MST"; hour offsets only up to 23.
const ZONE = /^(?:ChST|MeST|WITA|[A-Z]{3}|[A-Z]{3}T|[A-Z]{4}T)$/;
const ZONE_OFFSET = /^(?:GMT)?[+-]([0-9]+)$/;

/**
 * Go's time.Parse for Scalr's layout, in milliseconds. Go reads the wall clock as UTC whatever the
 * zone abbreviation says (it only applies offsets of zones known to the host's time zone).
 */
export function parseScalrDate(text: string): number | undefined {
  const match = SCALR_DATE.exec(text);
  if (match === null) return undefined;
  const [, day, monthName, year, hour, minute, second, fraction, zone] = match;
  const month = MONTHS.indexOf(monthName.toLowerCase());
  if (month === -1 || !isZone(zone)) return undefined;
  const [d, h, m, s, y] = [day, hour, minute, second, year].map(Number);
  const daysInMonth = new Date(Date.UTC(y, month + 1, 0)).getUTCDate();
  if (d < 1 || d > daysInMonth || h > 23 || m > 59 || s > 59) return undefined;
  const millis = fraction === undefined ? 0 : Number(`0.${fraction}`) * 1000;
  const date = new Date(0);
  date.setUTCFullYear(y, month, d);
  date.setUTCHours(h, m, s, 0);
  return date.getTime() + millis;
}

function isZone(zone: string): boolean {
  if (zone.startsWith("UTC")) return zone === "UTC";
  const offset = ZONE_OFFSET.exec(zone);
  if (offset !== null) return Number(offset[1]) <= 23;
  return zone === "GMT" || (!zone.startsWith("GMT") && ZONE.test(zone));
}
