// strconv.Quote as Go writes it: webhook's argv log line (%q) and template printf's %q.
import assert from "node:assert/strict";
import { test } from "node:test";
import { quote } from "../src/go-strconv.ts";
import { decodeGoString } from "../src/go-utf8.ts";

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
