// Go's http.DetectContentType (the WHATWG sniffing subset net/http implements): webhook never sets
// a Content-Type for command output or response-message, so net/http sniffs the first 512 bytes.

type Signature = (data: Buffer, firstNonWhitespace: number) => string | undefined;

const TEXT_UTF8 = "text/plain; charset=utf-8";
const SNIFF_LENGTH = 512;

function isWhitespace(byte: number): boolean {
  return byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d || byte === 0x20;
}

/** Case-insensitive tag at the first non-whitespace byte, followed by a space or `>`. */
function htmlTag(tag: string): Signature {
  const pattern = Buffer.from(tag, "latin1");
  return (data, start) => {
    if (data.length < start + pattern.length + 1) return undefined;
    for (let i = 0; i < pattern.length; i++) {
      let byte = data[start + i];
      if (byte >= 0x61 && byte <= 0x7a) byte &= 0xdf;
      if (byte !== pattern[i]) return undefined;
    }
    const terminator = data[start + pattern.length];
    return terminator === 0x20 || terminator === 0x3e ? "text/html; charset=utf-8" : undefined;
  };
}

/** Bytes at `offset` (or after leading whitespace), `0x00` in `mask` positions matching anything. */
function prefix(
  bytes: string,
  contentType: string,
  options: { skipWhitespace?: boolean; any?: number[] } = {},
) {
  const pattern = Buffer.from(bytes, "latin1");
  const wildcard = new Set(options.any ?? []);
  return (data: Buffer, firstNonWhitespace: number): string | undefined => {
    const start = options.skipWhitespace ? firstNonWhitespace : 0;
    if (data.length < start + pattern.length) return undefined;
    for (let i = 0; i < pattern.length; i++) {
      if (!wildcard.has(i) && data[start + i] !== pattern[i]) return undefined;
    }
    return contentType;
  };
}

const RIFF_SIZE = [4, 5, 6, 7];

function mp4(data: Buffer): string | undefined {
  if (data.length < 12) return undefined;
  const boxSize = data.readUInt32BE(0);
  if (data.length < boxSize || boxSize % 4 !== 0 || data.toString("latin1", 4, 8) !== "ftyp")
    return undefined;
  for (let offset = 8; offset < boxSize; offset += 4) {
    if (offset === 12) continue; // the minor version
    if (data.toString("latin1", offset, offset + 3) === "mp4") return "video/mp4";
  }
  return undefined;
}

function text(data: Buffer): string {
  for (const byte of data) {
    if (byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f)) {
      return "application/octet-stream";
    }
  }
  return TEXT_UTF8;
}

const SIGNATURES: Signature[] = [
  ...[
    "<!DOCTYPE HTML",
    "<HTML",
    "<HEAD",
    "<SCRIPT",
    "<IFRAME",
    "<H1",
    "<DIV",
    "<FONT",
    "<TABLE",
    "<A",
    "<STYLE",
    "<TITLE",
    "<B",
    "<BODY",
    "<BR",
    "<P",
    "<!--",
  ].map(htmlTag),
  prefix("<?xml", "text/xml; charset=utf-8", { skipWhitespace: true }),
  prefix("%PDF-", "application/pdf"),
  prefix("%!PS-Adobe-", "application/postscript"),
  prefix("\xfe\xff", "text/plain; charset=utf-16be"),
  prefix("\xff\xfe", "text/plain; charset=utf-16le"),
  prefix("\xef\xbb\xbf", TEXT_UTF8),
  prefix("\x00\x00\x01\x00", "image/x-icon"),
  prefix("\x00\x00\x02\x00", "image/x-icon"),
  prefix("BM", "image/bmp"),
  prefix("GIF87a", "image/gif"),
  prefix("GIF89a", "image/gif"),
  prefix("RIFF\x00\x00\x00\x00WEBPVP", "image/webp", { any: RIFF_SIZE }),
  prefix("\x89PNG\x0d\x0a\x1a\x0a", "image/png"),
  prefix("\xff\xd8\xff", "image/jpeg"),
  prefix("FORM\x00\x00\x00\x00AIFF", "audio/aiff", { any: RIFF_SIZE }),
  prefix("ID3", "audio/mpeg"),
  prefix("OggS\x00", "application/ogg"),
  prefix("MThd\x00\x00\x00\x06", "audio/midi"),
  prefix("RIFF\x00\x00\x00\x00AVI ", "video/avi", { any: RIFF_SIZE }),
  prefix("RIFF\x00\x00\x00\x00WAVE", "audio/wave", { any: RIFF_SIZE }),
  mp4,
  prefix("\x1a\x45\xdf\xa3", "video/webm"),
  prefix("\x00\x01\x00\x00", "font/ttf"),
  prefix("OTTO", "font/otf"),
  prefix("ttcf", "font/collection"),
  prefix("wOFF", "font/woff"),
  prefix("wOF2", "font/woff2"),
  prefix("\x1f\x8b\x08", "application/x-gzip"),
  prefix("PK\x03\x04", "application/zip"),
  prefix("Rar!\x1a\x07\x00", "application/x-rar-compressed"),
  prefix("Rar!\x1a\x07\x01\x00", "application/x-rar-compressed"),
  prefix("\x00asm", "application/wasm"),
];

/** The Content-Type Go's net/http would send for a response starting with `body`. */
export function detectContentType(body: Buffer): string {
  const data = body.length > SNIFF_LENGTH ? body.subarray(0, SNIFF_LENGTH) : body;
  let firstNonWhitespace = 0;
  while (firstNonWhitespace < data.length && isWhitespace(data[firstNonWhitespace])) firstNonWhitespace++;
  for (const signature of SIGNATURES) {
    const match = signature(data, firstNonWhitespace);
    if (match !== undefined) return match;
  }
  return text(data);
}
