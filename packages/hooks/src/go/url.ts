// Go's percent-decoding (net/url's unescape; mime decodes RFC 2231 parameter values by the same
// rule): `%XX` is the byte XX, and a `%` not followed by two hex digits makes the whole text invalid.

const HEX_PAIR = /^[0-9a-fA-F]{2}$/;

/**
 * `bytes` with each `%XX` decoded, and `+` read as a space when `plusIsSpace` (url.QueryUnescape);
 * the offset of the first malformed escape instead.
 */
export function unescapeBytes(bytes: Buffer, plusIsSpace: boolean): Buffer | number {
  const out = Buffer.allocUnsafe(bytes.length);
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x25) {
      const hex = bytes.toString("latin1", i + 1, i + 3);
      if (!HEX_PAIR.test(hex)) return i;
      out[length++] = Number.parseInt(hex, 16);
      i += 2;
    } else out[length++] = plusIsSpace && byte === 0x2b ? 0x20 : byte;
  }
  return out.subarray(0, length);
}

/**
 * url.PathUnescape (and mime's RFC 2231 decoding) of text: its UTF-8 bytes decoded, read back as
 * UTF-8 (bytes that are not become U+FFFD); undefined for a malformed escape. Each UTF-16 unit is
 * encoded on its own, as the router and multipart did before they shared this, so a character
 * outside the BMP (possible only in a quoted RFC 2231 value) becomes two U+FFFD where Go keeps it.
 */
export function pathUnescape(text: string): string | undefined {
  if (!text.includes("%")) return text;
  const bytes = Buffer.allocUnsafe(text.length * 3);
  let length = 0;
  for (let i = 0; i < text.length; i++) length += bytes.write(text[i], length, "utf8");
  const decoded = unescapeBytes(bytes.subarray(0, length), false);
  return typeof decoded === "number" ? undefined : decoded.toString("utf8");
}
