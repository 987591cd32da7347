// Answers laid out as Go's net/http writes them: handler headers sorted by name, then Date,
// Content-Length for bodies Go does not chunk, and a sniffed Content-Type; Go's reason phrases.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  combineHeaders,
  effectiveStatus,
  headerList,
  httpDate,
  keepAliveResponse,
  plainAnswer,
  rawResponse,
  statusText,
} from "../../src/http/response.ts";

const TEXT = "text/plain; charset=utf-8";
const DATE = "Date: [A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT";

/** The expected response with its Date line matched by shape. */
function shape(lines: string[], body = ""): RegExp {
  const escaped = lines.map((line) => (line === "Date" ? DATE : line.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  return new RegExp(`^${escaped.join("\\r\\n")}\\r\\n\\r\\n${body.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
}

test("statusText is net/http's table; effectiveStatus sends 200 for codes Go has no text for and for 1xx", () => {
  assert.equal(statusText(200), "OK");
  assert.equal(statusText(413), "Request Entity Too Large");
  assert.equal(statusText(418), "I'm a teapot");
  assert.equal(statusText(299), undefined);
  assert.equal(statusText(0), undefined);
  for (const [code, sent] of [
    [201, 201],
    [202, 202],
    [418, 418],
    [503, 503],
    [299, 200],
    [600, 200],
    [0, 200],
    [-1, 200],
    [100, 200],
    [103, 200],
  ]) {
    assert.equal(effectiveStatus(code), sent, String(code));
  }
});

test("httpDate is the IMF-fixdate of the second", () => {
  assert.equal(httpDate(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  assert.equal(httpDate(999), "Thu, 01 Jan 1970 00:00:00 GMT");
  assert.equal(httpDate(86_400_000 + 3_723_000), "Fri, 02 Jan 1970 01:02:03 GMT");
});

test("headerList is Header.Set over the list: canonical names, last value, invalid names dropped", () => {
  assert.deepEqual(
    headerList([
      { name: "x-b", value: " 1 " },
      { name: "X-A", value: "a\r\nb" },
      { name: "bad name", value: "x" },
      { name: "", value: "empty" },
      { name: "x-b", value: "2" },
      { name: "X-U", value: "é" },
      { name: "x-c", value: "a\x01b\tc\x7f" },
      { name: "content-type", value: "application/json" },
    ]),
    [
      ["Content-Type", "application/json"],
      ["X-A", "a  b"],
      ["X-B", "2"],
      ["X-C", "ab\tc"],
      // Non-Latin-1 text goes out as its UTF-8 bytes, one character per byte.
      ["X-U", "\u00c3\u00a9"],
    ],
  );
});

test("combineHeaders applies lists in order and sorts by name as Go writes them", () => {
  assert.deepEqual(
    combineHeaders(
      [
        ["X-Global", "g"],
        ["X-Hook", "global"],
      ],
      [
        ["X-Hook", "own"],
        ["Content-Type", "text/csv"],
        ["x-lower", "l"],
      ],
    ),
    [
      ["Content-Type", "text/csv"],
      ["X-Global", "g"],
      ["X-Hook", "own"],
      ["x-lower", "l"],
    ],
  );
});

test("a plain answer: headers, Date, Content-Length, then the sniffed or given Content-Type", () => {
  assert.match(
    keepAliveResponse(200, [["X-Hook", "yes"]], Buffer.from("deploy started")) ?? "",
    shape(
      ["HTTP/1.1 200 OK", "X-Hook: yes", "Date", "Content-Length: 14", `Content-Type: ${TEXT}`],
      "deploy started",
    ),
  );
  assert.match(
    keepAliveResponse(201, [], Buffer.from("<p>x</p>")) ?? "",
    shape(
      ["HTTP/1.1 201 Created", "Date", "Content-Length: 8", "Content-Type: text/html; charset=utf-8"],
      "<p>x</p>",
    ),
  );
  assert.match(
    keepAliveResponse(404, [], Buffer.from("<p>x</p>"), TEXT) ?? "",
    shape(["HTTP/1.1 404 Not Found", "Date", "Content-Length: 8", `Content-Type: ${TEXT}`], "<p>x</p>"),
  );
});

test("no Content-Type for an empty body, a handler's own, or a Content-Encoding", () => {
  assert.match(
    keepAliveResponse(200, [], Buffer.alloc(0)) ?? "",
    shape(["HTTP/1.1 200 OK", "Date", "Content-Length: 0"]),
  );
  assert.match(
    keepAliveResponse(200, [["Content-Type", "application/json"]], Buffer.from("{}")) ?? "",
    shape(["HTTP/1.1 200 OK", "Content-Type: application/json", "Date", "Content-Length: 2"], "{}"),
  );
  assert.match(
    keepAliveResponse(200, [["Content-Encoding", "gzip"]], Buffer.from("\x1f\x8b\x08", "latin1")) ?? "",
    shape(["HTTP/1.1 200 OK", "Content-Encoding: gzip", "Date", "Content-Length: 3"], "\x1f\x8b\x08"),
  );
  // An empty Content-Encoding does not count.
  assert.match(
    keepAliveResponse(200, [["Content-Encoding", ""]], Buffer.from("x")) ?? "",
    shape(
      ["HTTP/1.1 200 OK", "Content-Encoding: ", "Date", "Content-Length: 1", `Content-Type: ${TEXT}`],
      "x",
    ),
  );
});

test("204 and 304 carry neither body nor Content-Length", () => {
  for (const [status, line] of [
    [204, "HTTP/1.1 204 No Content"],
    [304, "HTTP/1.1 304 Not Modified"],
  ] as const) {
    assert.match(keepAliveResponse(status, [], Buffer.from("dropped")) ?? "", shape([line, "Date"]));
  }
});

test("a raw answer closes the connection; the body is written byte for byte", () => {
  assert.match(
    rawResponse(405, [], Buffer.alloc(0)),
    shape(["HTTP/1.1 405 Method Not Allowed", "Date", "Content-Length: 0", "Connection: close"]),
  );
  const body = Buffer.from("é\n", "utf8");
  assert.match(
    rawResponse(500, [["X-Content-Type-Options", "nosniff"]], body, TEXT),
    shape(
      [
        "HTTP/1.1 500 Internal Server Error",
        "X-Content-Type-Options: nosniff",
        "Date",
        "Content-Length: 3",
        `Content-Type: ${TEXT}`,
        "Connection: close",
      ],
      body.toString("latin1"),
    ),
  );
});

test("only plain answers are written by the fast path: no chunked body, no framing headers", () => {
  const fits = Buffer.alloc(2048, "a");
  const chunked = Buffer.alloc(2049, "a");
  assert.equal(plainAnswer([], fits), true);
  assert.equal(plainAnswer([], chunked), false);
  assert.equal(keepAliveResponse(200, [], chunked), undefined);
  for (const name of ["Connection", "Content-Length", "Transfer-Encoding"]) {
    assert.equal(plainAnswer([[name, "x"]], fits), false, name);
    assert.equal(keepAliveResponse(200, [[name, "x"]], Buffer.from("x")), undefined, name);
  }
  assert.equal(plainAnswer([["Keep-Alive", "timeout=5"]], fits), true);
});
