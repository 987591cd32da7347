// Go's unicode.IsSpace and strings.Fields/TrimSpace on it: the Latin-1 white space with U+0085 and
// U+00A0, and Unicode's White_Space, but not U+200B or U+FEFF.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fields, isSpace, trimLeftSpace, trimSpace } from "../../src/go/unicode.ts";

const SPACES = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f,
];

test("isSpace is unicode.IsSpace", () => {
  for (const code of [...SPACES, 0x205f, 0x3000]) assert.equal(isSpace(code), true, code.toString(16));
  for (const code of [0x00, 0x08, 0x0e, 0x1c, 0x1f, 0x41, 0x7f, 0x84, 0x180e, 0x200b, 0xfeff, 0x1f600]) {
    assert.equal(isSpace(code), false, code.toString(16));
  }
});

test("fields splits at runs of white space and drops empty fields", () => {
  assert.deepEqual(fields("  a\tb\n\u00a0c\u3000 "), ["a", "b", "c"]);
  assert.deepEqual(fields("a\u200bb\ufeffc"), ["a\u200bb\ufeffc"]);
  assert.deepEqual(fields(" \u2028 "), []);
  assert.deepEqual(fields(""), []);
});

test("trimSpace and trimLeftSpace trim Go's white space only", () => {
  assert.equal(trimSpace("\u0085 a b \v\u00a0"), "a b");
  assert.equal(trimSpace("\ufeffa\u200b"), "\ufeffa\u200b");
  assert.equal(trimLeftSpace(" \t a b "), "a b ");
});
