// Request bytes kept as Go keeps them: decoded to text where they are UTF-8, each other byte kept
// as itself, and written back unchanged.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { decodeGoString, encodeGoString, hasRawBytes } from "../../src/go/utf8.ts";

const rawBytes = (text: string) => [...text].filter((char) => hasRawBytes(char)).length;

test("valid UTF-8, a written U+FFFD included, decodes as usual", () => {
  const bytes = Buffer.from("héllo ✓ 😀 \ufffd", "utf8");
  assert.equal(decodeGoString(bytes), "héllo ✓ 😀 \ufffd");
  assert.equal(hasRawBytes(decodeGoString(bytes)), false);
});

test("each byte Go's utf8.DecodeRune refuses is kept on its own", () => {
  const cases: [number[], number][] = [
    [[0xff], 1],
    [[0xc3, 0x28], 1], // a lead byte without its continuation
    [[0xc0, 0xaf], 2], // overlong
    [[0xed, 0xa0, 0x80], 3], // an encoded surrogate
    [[0xf0, 0x9f, 0x98], 3], // cut short
    [[0xf4, 0x90, 0x80, 0x80], 4], // above U+10FFFF
    [[0x80], 1], // a lone continuation byte
  ];
  for (const [bytes, kept] of cases) {
    const text = decodeGoString(Buffer.from(bytes));
    assert.equal(rawBytes(text), kept, `bytes ${bytes}`);
    assert.deepEqual([...encodeGoString(text)], bytes, `bytes ${bytes}`);
  }
});

test("any bytes come back unchanged", () => {
  for (let i = 0; i < 2000; i++) {
    const bytes = randomBytes(1 + (i % 40));
    assert.deepEqual(encodeGoString(decodeGoString(bytes)), bytes);
  }
});

test("a surrogate pair whose low half looks like a kept byte is text, not a byte", () => {
  const text = "\u{10080}"; // \ud800\udc80
  assert.equal(hasRawBytes(text), false);
  assert.deepEqual(encodeGoString(text), Buffer.from(text, "utf8"));
});
