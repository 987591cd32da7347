// strconv as Go applies it for webhook: Quote for the argv log line (%q) and template printf's %q;
// ParseInt and ParseUint (base 0) for int flags and hooks file integers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseInt64, parseUint64, quote } from "../../src/go/strconv.ts";
import { decodeGoString } from "../../src/go/utf8.ts";

test("quote escapes what Go escapes and leaves printable text alone", () => {
  assert.equal(quote(""), '""');
  assert.equal(quote('say "hi" \\ bye'), '"say \\"hi\\" \\\\ bye"');
  assert.equal(quote("\x07\b\f\n\r\t\v\x00\x1f\x7f'"), '"\\a\\b\\f\\n\\r\\t\\v\\x00\\x1f\\x7f\'"');
  assert.equal(quote("héllo 漢字 😀"), '"héllo 漢字 😀"');
  // Not printable for Go: space separators other than ' ', format characters.
  assert.equal(quote("\u00a0\u200b\u2028\ufeff\u{e0001}"), '"\\u00a0\\u200b\\u2028\\ufeff\\U000e0001"');
  assert.equal(quote("é漢😀\n", true), '"\\u00e9\\u6f22\\U0001f600\\n"');
});

test("bytes that are not UTF-8 are quoted as Go quotes them, one \\x escape each", () => {
  const value = decodeGoString(Buffer.from([0x61, 0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xe2, 0x82]));
  assert.equal(quote(value), '"a\\xff\\xc3(\\xed\\xa0\\x80\\xe2\\x82"');
  // A surrogate that is not one of those bytes (from JavaScript text) is U+FFFD to Go.
  assert.equal(quote("\ud800x"), '"\\ufffdx"');
});

test("a large value is quoted whole, runs copied between the escapes", () => {
  const unit = 'a "b"\né\x01';
  const value = unit.repeat(400_000);
  const quoted = quote(value);
  assert.equal(quoted, `"${'a \\"b\\"\\né\\x01'.repeat(400_000)}"`);
  assert.equal(quote("x".repeat(3_000_000)).length, 3_000_002);
});

test("parseInt64 is ParseInt(text, 0, 64): prefixes, leading-0 octal, `_` between digits", () => {
  const values: [string, bigint][] = [
    ["0", 0n],
    ["42", 42n],
    ["-42", -42n],
    ["+7", 7n],
    ["0x1F", 31n],
    ["0X1f", 31n],
    ["0o17", 15n],
    ["0O17", 15n],
    ["017", 15n],
    ["00", 0n],
    ["0b101", 5n],
    ["1_000", 1000n],
    ["0x_1F", 31n],
    ["0_7", 7n],
    ["-0x10", -16n],
    ["9223372036854775807", 9223372036854775807n],
    ["-9223372036854775808", -9223372036854775808n],
  ];
  for (const [text, value] of values) assert.equal(parseInt64(text), value, text);
  for (const text of [
    "",
    "abc",
    "08",
    "0b2",
    "0x",
    "0x_",
    "1__0",
    "1_",
    "_1",
    "1.0",
    " 1",
    "1e3",
    "--1",
    "+-1",
  ]) {
    assert.equal(parseInt64(text), "invalid syntax", JSON.stringify(text));
  }
  for (const text of ["9223372036854775808", "-9223372036854775809", "0x8000000000000000"]) {
    assert.equal(parseInt64(text), "value out of range", text);
  }
});

test("parseUint64 is ParseUint(text, 0, 64): the same forms without a sign, up to 2^64-1", () => {
  assert.equal(parseUint64("9223372036854775808"), 9223372036854775808n);
  assert.equal(parseUint64("18446744073709551615"), 18446744073709551615n);
  assert.equal(parseUint64("0xFFFF_FFFF_FFFF_FFFF"), 18446744073709551615n);
  assert.equal(parseUint64("18446744073709551616"), "value out of range");
  assert.equal(parseUint64("+1"), "invalid syntax");
  assert.equal(parseUint64("-1"), "invalid syntax");
  assert.equal(parseUint64("1__0"), "invalid syntax");
});
