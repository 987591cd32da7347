// Go strings are bytes: webhook hands a header, query or form value to its command exactly as the
// client sent it, valid UTF-8 or not. JavaScript strings are UTF-16, so request text is decoded
// here with each byte that is not part of valid UTF-8 kept as a lone surrogate U+DC80..U+DCFF
// (valid UTF-8 never decodes to a lone surrogate, so nothing is ambiguous), and encoded back to
// those same bytes where the value leaves the process: argv, environment, temp files.

/** The length of the valid UTF-8 sequence at `at` as Go's utf8.DecodeRune accepts it; 0 if none. */
function sequenceLength(bytes: Uint8Array, at: number): number {
  const first = bytes[at];
  if (first < 0x80) return 1;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (first >= 0xc2 && first <= 0xdf) length = 2;
  else if (first >= 0xe0 && first <= 0xef) {
    length = 3;
    if (first === 0xe0) low = 0xa0;
    else if (first === 0xed) high = 0x9f;
  } else if (first >= 0xf0 && first <= 0xf4) {
    length = 4;
    if (first === 0xf0) low = 0x90;
    else if (first === 0xf4) high = 0x8f;
  } else return 0;
  if (at + length > bytes.length) return 0;
  const second = bytes[at + 1];
  if (second < low || second > high) return 0;
  for (let i = 2; i < length; i++) {
    const next = bytes[at + i];
    if (next < 0x80 || next > 0xbf) return 0;
  }
  return length;
}

/** Bytes as a string: valid UTF-8 decoded, every other byte b kept as U+DC00 + b. */
export function decodeGoString(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  // Node writes U+FFFD for invalid input; without one the bytes were valid UTF-8.
  if (!text.includes("\ufffd")) return text;
  let out = "";
  let run = 0;
  let at = 0;
  while (at < bytes.length) {
    const length = sequenceLength(bytes, at);
    if (length > 0) {
      at += length;
      continue;
    }
    out += bytes.toString("utf8", run, at) + String.fromCharCode(0xdc00 + bytes[at]);
    at++;
    run = at;
  }
  return out + bytes.toString("utf8", run);
}

/** A lone low surrogate U+DC80..U+DCFF: a byte decodeGoString could not decode. */
const RAW_BYTE = /(?<![\ud800-\udbff])[\udc80-\udcff]/;

/** True when `text` holds bytes that are not valid UTF-8 (see decodeGoString). */
export function hasRawBytes(text: string): boolean {
  return RAW_BYTE.test(text);
}

/** The bytes decodeGoString read `text` from: UTF-8, with each kept byte written back as itself. */
export function encodeGoString(text: string): Buffer {
  if (!RAW_BYTE.test(text)) return Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc80 || c > 0xdcff) continue;
    const previous = i > 0 ? text.charCodeAt(i - 1) : 0;
    if (previous >= 0xd800 && previous <= 0xdbff) continue;
    parts.push(Buffer.from(text.slice(run, i), "utf8"), Buffer.of(c - 0xdc00));
    run = i + 1;
  }
  parts.push(Buffer.from(text.slice(run), "utf8"));
  return Buffer.concat(parts);
}
