// Go's url.ParseQuery, used by webhook for the query string and for form bodies. Only the first
// value of a key is kept, as webhook does. The text is read one character per byte (latin1), and
// keys and values keep their bytes as Go's strings do, valid UTF-8 or not (go/utf8.ts).

import { quote } from "../go/strconv.ts";
import { unescapeBytes } from "../go/url.ts";
import { decodeGoString } from "../go/utf8.ts";
import type { JsonObject } from "../types.ts";
import { setOwn } from "./json.ts";

export interface UrlValues {
  values: JsonObject;
  /** Go's first error (the bad pairs are skipped, the others kept): callers decide what it costs. */
  error: string | undefined;
}

/** `text`: the query string or form body, one character per byte. */
export function parseUrlValues(text: string): UrlValues {
  const values: JsonObject = {};
  let error: string | undefined;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("&", start);
    if (end === -1) end = text.length;
    const pair = text.slice(start, end);
    start = end + 1;
    if (pair.includes(";")) {
      error ??= "invalid semicolon separator in query";
      continue;
    }
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const key = queryUnescape(equals === -1 ? pair : pair.slice(0, equals));
    const value = queryUnescape(equals === -1 ? "" : pair.slice(equals + 1));
    if (key.error !== undefined || value.error !== undefined) {
      error ??= key.error ?? value.error;
      continue;
    }
    if (!Object.hasOwn(values, key.text)) setOwn(values, key.text, value.text);
  }
  return { values, error };
}

type Unescaped = { text: string; error?: undefined } | { text?: undefined; error: string };

const NEEDS_DECODING = /[%+\u0080-\u00ff]/;

/** url.QueryUnescape: `+` is a space, `%XX` a byte; a malformed escape fails the whole component. */
function queryUnescape(text: string): Unescaped {
  if (!NEEDS_DECODING.test(text)) return { text };
  const decoded = unescapeBytes(Buffer.from(text, "latin1"), true);
  if (typeof decoded !== "number") return { text: decodeGoString(decoded) };
  const bad = decodeGoString(Buffer.from(text.slice(decoded, decoded + 3), "latin1"));
  return { error: `invalid URL escape ${quote(bad)}` };
}
