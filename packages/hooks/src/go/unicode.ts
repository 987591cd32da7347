// Go's unicode.IsSpace and the strings functions built on it: webhook splits ip-range with
// strings.Fields, mime trims media types with it, and webhook skips such bytes to spot a JSON array.

/** unicode.IsSpace: the Latin-1 white space (with U+0085 and U+00A0) and Unicode's White_Space. */
const SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const ONE_SPACE = new RegExp(`^${SPACE}$`);
const SPACES = new RegExp(`${SPACE}+`);
const LEADING_SPACES = new RegExp(`^${SPACE}+`);
const OUTER_SPACES = new RegExp(`^${SPACE}+|${SPACE}+$`, "g");

/** unicode.IsSpace of one code point. */
export function isSpace(code: number): boolean {
  return ONE_SPACE.test(String.fromCodePoint(code));
}

/** strings.Fields: the text split at runs of white space, without empty fields. */
export function fields(text: string): string[] {
  return text.split(SPACES).filter((field) => field !== "");
}

/** strings.TrimSpace. */
export function trimSpace(text: string): string {
  return text.replace(OUTER_SPACES, "");
}

/** strings.TrimLeftFunc(text, unicode.IsSpace). */
export function trimLeftSpace(text: string): string {
  return text.replace(LEADING_SPACES, "");
}
