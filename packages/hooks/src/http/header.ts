// Header names and methods as Go's net/http reads them: RFC 7230 tokens, and header names in
// textproto's canonical form (`x-foo_bar` is `X-Foo_bar` to webhook's rules and commands).

/** An RFC 7230 token: what Go accepts as a header name or a request method. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** TOKEN's characters by ASCII code, for canonicalHeaderKey's walk over a name. */
const TOKEN_CHAR = Uint8Array.from({ length: 128 }, (_, code) =>
  TOKEN.test(String.fromCharCode(code)) ? 1 : 0,
);

/** A non-empty name of token characters only (httpguts.ValidHeaderFieldName, validMethod). */
export function isToken(text: string): boolean {
  return TOKEN.test(text);
}

const canonicalCache = new Map<string, string>();
const CANONICAL_CACHE_LIMIT = 1024;

/** textproto.CanonicalMIMEHeaderKey: `x-foo_bar` -> `X-Foo_bar`; names with non-token bytes unchanged. */
export function canonicalHeaderKey(name: string): string {
  const cached = canonicalCache.get(name);
  if (cached !== undefined) return cached;
  let key = "";
  let upper = true;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 128 || TOKEN_CHAR[c] === 0) {
      key = name;
      break;
    }
    if (upper && c >= 0x61 && c <= 0x7a) key += String.fromCharCode(c - 32);
    else if (!upper && c >= 0x41 && c <= 0x5a) key += String.fromCharCode(c + 32);
    else key += name[i];
    upper = c === 0x2d;
  }
  // Request header names repeat endlessly; a bound keeps hostile clients from growing the cache.
  if (canonicalCache.size < CANONICAL_CACHE_LIMIT) canonicalCache.set(name, key);
  return key;
}
