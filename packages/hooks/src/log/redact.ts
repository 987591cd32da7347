// What a log line may show of a request's or a command's values: secrets (header, query, body and
// variable values whose names look sensitive) redacted, each value cut at LOG_VALUE_LIMIT, and
// webhook's -debug request and response dumps built from both rules.

export const REDACTED = "[REDACTED]";

/**
 * At most this many characters (or bytes) of one value (an argument, a variable, command output, a
 * body) go into a log line: a huge value would make the line, and the time spent writing it, huge.
 */
export const LOG_VALUE_LIMIT = 64 * 1024;

/** What ends a value cut for the log. */
function cutNote(total: number, unit: string): string {
  return `… [${total} ${unit} in all; the rest is not logged]`;
}

/**
 * Command output (not redacted, as webhook logs it) decoded only as far as a log line shows it;
 * `total` is the length of the whole when only its start was kept.
 */
export function clipBytesForLog(bytes: Buffer, total = bytes.length): string {
  const shown = Math.min(bytes.length, LOG_VALUE_LIMIT);
  const text = bytes.toString("utf8", 0, shown);
  return total > shown ? text + cutNote(total, "bytes") : text;
}

/**
 * A value as a log line carries it: secrets redacted, at most LOG_VALUE_LIMIT characters of it.
 * Only what is shown is redacted, so a huge value costs no more than a small one. The cut may
 * split a secret's value from its name, leaving it unredacted: so the line ends before the first
 * secret-looking name after the last redaction. `text` may be only the start of the value, whose
 * length is `total` `unit`s.
 */
export function redactForLog(text: string, total = text.length, unit = "characters"): string {
  if (total <= LOG_VALUE_LIMIT) return redactText(text);
  const shown = redactText(text.slice(0, LOG_VALUE_LIMIT));
  const redacted = shown.lastIndexOf(REDACTED);
  SECRET_NAMES.lastIndex = redacted < 0 ? 0 : redacted + REDACTED.length;
  const unredacted = SECRET_NAMES.exec(shown);
  return (unredacted === null ? shown : shown.slice(0, unredacted.index)) + cutNote(total, unit);
}

const SECRET_NAME_PATTERN =
  "auth|token|secret|signature|passw|cookie|api[-_]?key|private[-_]?key|access[-_]?key";
const SECRET_NAME = new RegExp(SECRET_NAME_PATTERN, "i");
/** The same, to find every such name in a text. */
const SECRET_NAMES = new RegExp(SECRET_NAME_PATTERN, "gi");

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

/** The request URI with its query redacted, as the access line and the -debug dump show it. */
export function redactRequestUri(uri: string): string {
  const at = uri.indexOf("?");
  return at < 0 ? uri : uri.slice(0, at + 1) + redactQuery(uri.slice(at + 1));
}

/** Redacts sensitive members of a JSON document, or `name=value` pairs of a form body. */
export function redactText(text: string): string {
  if (!SECRET_NAME.test(text)) return text;
  const json = redactJsonMembers(text);
  return json === text ? redactQuery(text) : json;
}

/** Between a member's name and its value. */
const MEMBER_COLON = /\s*:\s*/y;
const SCALAR_VALUE = /-?[\d.eE+-]+|true|false|null/y;

/**
 * Where a JSON string whose content starts at `from` closes (the index of its quote), or where
 * reading it stopped: a backslash before a line end, or the end of the text.
 */
function stringEnd(text: string, from: number): { close: number } | { stop: number } {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return { close: i };
    if (c !== 0x5c) continue;
    const next = text.charCodeAt(i + 1);
    if (Number.isNaN(next) || next === 0x0a || next === 0x0d || next === 0x2028 || next === 0x2029) {
      return { stop: i };
    }
    i++;
  }
  return { stop: text.length };
}

/**
 * Every `"name": value` whose name looks secret gets `"[REDACTED]"` for its value. One pass, so a
 * huge or hostile value (a long run of `\"` after a secret-looking word) costs time in proportion
 * to its length: a quote inside a string that failed to be a member name ends where that string
 * ends, so the search goes on from there rather than reading the same string again.
 */
function redactJsonMembers(text: string): string {
  let out = "";
  let copied = 0;
  let quote = text.indexOf('"');
  while (quote >= 0) {
    const name = stringEnd(text, quote + 1);
    if ("stop" in name) {
      quote = text.indexOf('"', name.stop + 1);
      continue;
    }
    MEMBER_COLON.lastIndex = name.close + 1;
    const colon = MEMBER_COLON.exec(text);
    const valueStart = colon === null ? -1 : name.close + 1 + colon[0].length;
    let valueEnd = -1;
    if (valueStart < 0) {
      // Not a member name; its closing quote may open one.
    } else if (text.charCodeAt(valueStart) === 0x22) {
      const value = stringEnd(text, valueStart + 1);
      if ("close" in value) valueEnd = value.close + 1;
    } else {
      SCALAR_VALUE.lastIndex = valueStart;
      const scalar = SCALAR_VALUE.exec(text);
      if (scalar !== null) valueEnd = valueStart + scalar[0].length;
    }
    if (valueEnd < 0) {
      quote = name.close;
      continue;
    }
    if (isSecretName(text.slice(quote + 1, name.close))) {
      out += `${text.slice(copied, valueStart)}"${REDACTED}"`;
      copied = valueEnd;
    }
    quote = text.indexOf('"', valueEnd);
  }
  return copied === 0 ? text : out + text.slice(copied);
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
    const shown = redactForLog(body.toString("utf8", 0, LOG_VALUE_LIMIT), body.length, "bytes");
    for (const line of shown.split("\n")) text += `> [${requestId}] ${line}\n`;
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
