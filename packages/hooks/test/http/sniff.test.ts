// The Content-Type Go's net/http sniffs (http.DetectContentType) for answers webhook writes
// without one: command output and response-message.
import assert from "node:assert/strict";
import { test } from "node:test";
import { detectContentType } from "../../src/http/sniff.ts";

const TEXT = "text/plain; charset=utf-8";
const HTML = "text/html; charset=utf-8";
const BINARY = "application/octet-stream";

const sniff = (bytes: string) => detectContentType(Buffer.from(bytes, "latin1"));

test("text: anything without binary bytes, empty included", () => {
  assert.equal(sniff(""), TEXT);
  assert.equal(sniff("deploy started\n"), TEXT);
  assert.equal(detectContentType(Buffer.from("é漢😀", "utf8")), TEXT);
  // ESC (0x1b) is no binary byte to Go; the other controls below 0x20 but tab, LF, FF, CR are.
  assert.equal(sniff("\x1b[1mbold\x1b[0m\t\n\f\r"), TEXT);
  for (const byte of ["\x00", "\x08", "\x0b", "\x0e", "\x1a", "\x1c", "\x1f"]) {
    assert.equal(sniff(`ok${byte}`), BINARY, JSON.stringify(byte));
  }
});

test("HTML: a known tag (any case) after leading white space, then a space or `>`", () => {
  for (const body of [
    "<html>",
    "<HTML lang=en>",
    "  \r\n\t<!DOCTYPE html>",
    "<h1>t</h1>",
    "<p>",
    "<!-- c -->",
  ]) {
    assert.equal(sniff(body), HTML, body);
  }
  for (const body of ["<htmlx>", "<html", "<p", "<pre>", "x<html>"]) {
    assert.equal(sniff(body), TEXT, body);
  }
  // A vertical tab is no white space to the sniffer, and a binary byte.
  assert.equal(sniff("\v<html>"), BINARY);
});

test("XML after leading white space; other signatures only at the very start", () => {
  assert.equal(sniff('<?xml version="1.0"?><r/>'), "text/xml; charset=utf-8");
  assert.equal(sniff(" \n<?xml version='1.0'?>"), "text/xml; charset=utf-8");
  assert.equal(sniff("%PDF-1.7"), "application/pdf");
  assert.equal(sniff(" %PDF-1.7"), TEXT);
  assert.equal(sniff("%!PS-Adobe-3.0"), "application/postscript");
});

test("byte order marks and binary formats", () => {
  const signatures: [string, string][] = [
    ["\xfe\xffx", "text/plain; charset=utf-16be"],
    ["\xff\xfex", "text/plain; charset=utf-16le"],
    ["\xef\xbb\xbfx", TEXT],
    ["\x89PNG\r\n\x1a\n....", "image/png"],
    ["GIF89a....", "image/gif"],
    ["GIF87a....", "image/gif"],
    ["\xff\xd8\xff\xe0", "image/jpeg"],
    ["BM....", "image/bmp"],
    ["\x00\x00\x01\x00", "image/x-icon"],
    ["RIFF\x10\x20\x30\x40WEBPVP8 ", "image/webp"],
    ["RIFF\x10\x20\x30\x40WAVEfmt ", "audio/wave"],
    ["RIFF\x10\x20\x30\x40AVI LIST", "video/avi"],
    ["FORM\x10\x20\x30\x40AIFF", "audio/aiff"],
    ["ID3\x03", "audio/mpeg"],
    ["OggS\x00\x02", "application/ogg"],
    ["MThd\x00\x00\x00\x06", "audio/midi"],
    ["\x1a\x45\xdf\xa3", "video/webm"],
    ["\x00\x01\x00\x00", "font/ttf"],
    ["OTTO", "font/otf"],
    ["wOFF", "font/woff"],
    ["wOF2", "font/woff2"],
    ["\x1f\x8b\x08\x00", "application/x-gzip"],
    ["PK\x03\x04", "application/zip"],
    ["Rar!\x1a\x07\x00", "application/x-rar-compressed"],
    ["Rar!\x1a\x07\x01\x00", "application/x-rar-compressed"],
    ["\x00asm\x01", "application/wasm"],
  ];
  for (const [bytes, contentType] of signatures)
    assert.equal(sniff(bytes), contentType, JSON.stringify(bytes));
});

test("MP4: an ftyp box naming an mp4 brand, the minor version skipped", () => {
  const box = (brands: string[], minor = "\x00\x00\x02\x00") => {
    const body = `ftyp${brands[0]}${minor}${brands.slice(1).join("")}`;
    const size = body.length + 4;
    return Buffer.concat([Buffer.from([0, 0, 0, size]), Buffer.from(body, "latin1")]);
  };
  assert.equal(detectContentType(box(["isom", "iso2", "mp41"])), "video/mp4");
  assert.equal(detectContentType(box(["mp42", "isom"])), "video/mp4");
  assert.equal(detectContentType(box(["isom", "iso2"], "mp41")), BINARY);
});

test("only the first 512 bytes are read", () => {
  assert.equal(sniff(`${"a".repeat(511)}\x00`), BINARY);
  assert.equal(sniff(`${"a".repeat(512)}\x00`), TEXT);
  assert.equal(sniff(`${" ".repeat(510)}<p>`), TEXT);
  assert.equal(sniff(`${" ".repeat(509)}<p>`), HTML);
});
