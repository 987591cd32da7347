// Bad input and unusual clients, side by side: bytes that are not UTF-8 reach the command as
// sent, a client that half-closes still gets its answer, a quoted YAML scalar continued at its
// mapping's indentation, more than 2,000 header fields, a body above anvil's old 32 MiB default,
// and the cases where anvil refuses on purpose what webhook runs (a malformed chunked body, a
// body cut short, obs-fold and bare-LF headers).
import { sideBySide } from "./harness/harness.ts";
import { boundary, get, multipartBody, post, request } from "./harness/requests.ts";

const hooks = `
- id: raw
  execute-command: "@RECORDER@"
  response-message: recorded
  pass-arguments-to-command:
    - { source: url, name: v }
    - { source: header, name: X-V }
    - { source: payload, name: v }
    - { source: raw-request-body }
    - { source: entire-query }
    - { source: entire-headers }
  pass-environment-to-command:
    - { source: header, name: X-V, envname: HOOK_HEADER }
  pass-file-to-command:
    - { source: url, name: v, envname: HOOK_FILE }
- id: capture
  execute-command: "@RECORDER@"
  include-command-output-in-response: true
  pass-arguments-to-command:
    - { source: url, name: v }
- id: last-header
  execute-command: "@RECORDER@"
  response-message: fired
  pass-arguments-to-command:
    - { source: header, name: X-Last }
`;

// Written here rather than as a fixture file: no YAML linter would accept it. A file of its own, so
// that a server which cannot read it still serves the other cases.
const quoted = `
- id: quoted
  execute-command: "@RECORDER@"
  response-message: 'first
  second'
`;

const recorded = { status: 200, body: "recorded", runs: 1 };
const fired = { status: 200, body: "fired", runs: 1 };
/** Node's parser refuses these requests before any hook sees them; webhook runs the hook. */
const refused = { status: 400, body: "400 Bad Request", runs: 0 };

const formType = "application/x-www-form-urlencoded";
const form = Buffer.from("v=%FF\xff\xc3\xa9+x", "latin1");
const multipart = Buffer.from(multipartBody([{ name: "v", value: "\xfe\xff" }]), "latin1");
const multipartType = `multipart/form-data; boundary=${boundary}`;

/** The `raw` hook's arguments for a POST with neither query nor X-V header. */
function postedArgs(value: string, rawBody: string, contentType: string, body: Buffer): string[] {
  const headers = `{"Connection":"close","Content-Length":"${body.length}","Content-Type":"${contentType}"}`;
  return ["", "", value, rawBody, "{}", headers];
}

const manyHeaders: [string, string][] = [];
for (let i = 0; i < 2100; i++) manyHeaders.push([`X-Field-${i}`, String(i)]);

const fixture = {
  hooks: [
    { name: "faults.yaml", text: hooks },
    { name: "quoted.yaml", text: quoted },
  ],
};

sideBySide("faults and bad input", fixture, [
  {
    name: "query and header values that are not UTF-8 reach the command as their bytes",
    req: get("/hooks/raw?v=%FF%C3%28ok", [["X-V", "a\xff\xfeb"]]),
    want: {
      ...recorded,
      record: {
        args: [
          "bytes:ffc3286f6b",
          "bytes:61fffe62",
          "",
          "",
          '{"v":"\\ufffd\\ufffd(ok"}',
          '{"Connection":"close","X-V":"a\\ufffd\\ufffdb"}',
        ],
        env: { HOOK_FILE: "<server>/tmp/<tempfile>", HOOK_HEADER: "bytes:61fffe62" },
        files: { HOOK_FILE: "bytes:ffc3286f6b" },
      },
    },
  },
  {
    name: "form values and the raw body that are not UTF-8 reach the command as their bytes",
    req: post("/hooks/raw", formType, form),
    want: {
      ...recorded,
      record: { args: postedArgs("bytes:ffffc3a92078", "bytes:763d254646ffc3a92b78", formType, form) },
    },
  },
  {
    name: "multipart values that are not UTF-8 reach the command as their bytes",
    req: post("/hooks/raw", multipartType, multipart),
    want: { ...recorded, record: { args: postedArgs("bytes:feff", "", multipartType, multipart) } },
  },
  {
    name: "a client that half-closes after its request gets the command's output",
    req: { ...get("/hooks/capture?v=half"), halfClose: true },
    want: { status: 200, body: "arg: half\n", runs: 1 },
  },
  {
    name: "a client that half-closes after a request with a body gets its answer",
    req: { ...request("POST", "/hooks/capture?v=posted", {}, "some body"), halfClose: true },
    want: { status: 200, body: "arg: posted\n", runs: 1 },
  },
  {
    name: "a single-quoted scalar continued at its mapping's indentation loads as yaml.v2 loads it",
    req: get("/hooks/quoted"),
    want: { status: 200, body: "first second", runs: 1 },
  },
  {
    name: "more than 2,000 header fields are read, the last one included",
    req: get("/hooks/last-header", [...manyHeaders, ["X-Last", "last"]]),
    want: { ...fired, record: { args: ["last"] } },
  },
  {
    name: "a 33 MiB body, above anvil's old default limit, fires the hook",
    req: post("/hooks/last-header", "application/octet-stream", Buffer.alloc(33 * 1024 * 1024, "a"), {
      "X-Last": "large",
    }),
    want: { ...fired, record: { args: ["large"] } },
  },
  {
    name: "a malformed chunked body: webhook runs the hook with what it read, anvil runs nothing",
    req: request(
      "POST",
      "/hooks/last-header",
      [
        ["Transfer-Encoding", "chunked"],
        ["X-Last", "chunked"],
      ],
      "5\r\nhello\r\nZZ\r\nxx\r\n0\r\n\r\n",
    ),
    want: { ...fired, record: { args: ["chunked"] } },
    anvil: refused,
  },
  {
    name: "a body cut short by the client: webhook runs the hook with what it read, anvil runs nothing",
    req: {
      ...request(
        "POST",
        "/hooks/last-header",
        [
          ["Content-Length", "100"],
          ["X-Last", "short"],
        ],
        "abc",
      ),
      halfClose: true,
    },
    want: { ...fired, record: { args: ["short"] } },
    anvil: refused,
  },
  {
    name: "an obs-fold header: webhook joins the lines, Node's parser refuses it",
    req: get("/hooks/last-header", [["X-Last", "folded\r\n  line"]]),
    want: { ...fired, record: { args: ["folded line"] } },
    anvil: refused,
  },
  {
    name: "raw bytes above 0x7F in the request line: webhook reads them, Node's parser refuses them",
    req: get("/hooks/last-header?v=\xc3\xa9", [["X-Last", "raw"]]),
    want: { ...fired, record: { args: ["raw"] } },
    anvil: refused,
  },
  {
    name: "a header line ended by a bare LF: webhook reads it, Node's parser refuses it",
    req: get("/hooks/last-header", [["X-Last", "bare\nX-Other: lf"]]),
    want: { ...fired, record: { args: ["bare"] } },
    anvil: refused,
  },
]);
