// Go's percent-decoding, shared by the query and form parser, the router and multipart's RFC 2231
// parameter values.
import assert from "node:assert/strict";
import { test } from "node:test";
import { pathUnescape, unescapeBytes } from "../../src/go/url.ts";

const bytes = (text: string) => Buffer.from(text, "latin1");

test("unescapeBytes decodes %XX to bytes, `+` only in query mode", () => {
  assert.deepEqual(unescapeBytes(bytes("a%20b+c"), false), bytes("a b+c"));
  assert.deepEqual(unescapeBytes(bytes("a%20b+c"), true), bytes("a b c"));
  assert.deepEqual(
    unescapeBytes(bytes("%41%6a%6A%ff%00"), false),
    Buffer.from([0x41, 0x6a, 0x6a, 0xff, 0x00]),
  );
  assert.deepEqual(unescapeBytes(bytes("%2B+"), true), bytes("+ "));
  assert.deepEqual(unescapeBytes(bytes(""), true), bytes(""));
});

test("unescapeBytes gives the offset of the first malformed escape", () => {
  assert.equal(unescapeBytes(bytes("%"), false), 0);
  assert.equal(unescapeBytes(bytes("ab%4"), false), 2);
  assert.equal(unescapeBytes(bytes("%41%zz%"), true), 3);
  assert.equal(unescapeBytes(bytes("x%g0"), true), 1);
  assert.equal(unescapeBytes(Buffer.from("%é1", "utf8"), false), 0);
});

test("pathUnescape reads the decoded bytes as UTF-8 and keeps `+`", () => {
  assert.equal(pathUnescape("/hooks/plain"), "/hooks/plain");
  assert.equal(pathUnescape("/hooks/a%2Fb+c"), "/hooks/a/b+c");
  assert.equal(pathUnescape("%E2%9C%93"), "✓");
  assert.equal(pathUnescape("%41é漢"), "Aé漢");
  assert.equal(pathUnescape("%ff"), "\ufffd");
  assert.equal(pathUnescape("a%2"), undefined);
  assert.equal(pathUnescape("%%41"), undefined);
});
