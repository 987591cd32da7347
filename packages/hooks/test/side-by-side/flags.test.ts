// Command-line flags: -urlprefix (multi-segment and empty), -header, -http-methods, -x-request-id,
// -max-multipart-mem, -logfile, -debug, -nopanic, and the Go flag syntaxes (--flag, -flag=value).
import { hookNotFound, mismatch, ruleError } from "./harness/answers.ts";
import { sideBySide } from "./harness/harness.ts";
import { get, postMultipart, request } from "./harness/requests.ts";

const routerNotFound = { status: 404, body: "404 page not found\n" };
const globals = { "x-global": "g", "x-multi": "a=b" };
const post = (path: string, headers: Record<string, string> = {}) => request("POST", path, headers, "body");

sideBySide(
  "flags: multi-segment prefix, global headers and methods",
  {
    hooks: ["flags.json"],
    flags: [
      "--urlprefix=api/v2",
      "-header=X-Global=g",
      "--header",
      "X-Multi=a=b",
      "-http-methods",
      "post, put",
      "-x-request-id",
    ],
  },
  [
    {
      name: "hook under the multi-segment prefix",
      req: post("/api/v2/plain"),
      want: { status: 200, body: "plain", headers: globals, runs: 1 },
    },
    {
      name: "PUT is allowed by -http-methods",
      req: request("PUT", "/api/v2/plain"),
      want: { status: 200, runs: 1 },
    },
    {
      name: "GET is refused by -http-methods, without global headers",
      req: get("/api/v2/plain"),
      want: { status: 405, body: "" },
    },
    {
      name: "a hook's own http-methods override the flag",
      req: get("/api/v2/own-methods"),
      want: { status: 200, body: "own methods", runs: 1 },
    },
    { name: "own http-methods refuse POST", req: post("/api/v2/own-methods"), want: { status: 405 } },
    { name: "the default prefix is gone", req: post("/hooks/plain"), want: routerNotFound },
    { name: "the prefix alone", req: post("/api/v2"), want: routerNotFound },
    { name: "half the prefix", req: post("/api/plain"), want: routerNotFound },
    { name: "unknown hook: no global headers", req: post("/api/v2/nope"), want: hookNotFound },
    { name: "GET / has no global headers in 2.8.0", req: get("/"), want: { status: 200, body: "OK" } },
    {
      name: "global headers on a mismatch",
      req: get("/api/v2/rule?go=no"),
      want: { ...mismatch, headers: globals },
    },
    {
      name: "global headers on success",
      req: get("/api/v2/rule?go=yes"),
      want: { status: 200, body: "fired", headers: globals, runs: 1 },
    },
    {
      name: "global headers on a rule error",
      req: get("/api/v2/rule-error?go=x"),
      want: { ...ruleError, headers: globals },
    },
    {
      name: "response-headers override a global header",
      req: get("/api/v2/override"),
      want: { status: 200, headers: { "x-global": "from the hook", "x-multi": "a=b" }, runs: 1 },
    },
    {
      name: "global headers on a command failure",
      req: get("/api/v2/capture-fail"),
      want: { status: 500, headers: globals },
    },
    {
      name: "X-Request-Id is used for logs, not echoed",
      req: post("/api/v2/plain", { "X-Request-Id": "abc-123" }),
      want: { status: 200, body: "plain", runs: 1 },
    },
  ],
);

sideBySide(
  "flags: empty prefix, request id limit, multipart memory, logfile, debug",
  {
    hooks: ["flags.json"],
    flags: [
      "-urlprefix",
      "",
      "-x-request-id",
      "-x-request-id-limit",
      "4",
      "-max-multipart-mem",
      "16",
      "-logfile",
      "@WORK@/hooks.log",
      "-debug",
      "-nopanic",
    ],
  },
  [
    {
      name: "hook at /{id} with an empty prefix",
      req: get("/plain"),
      want: { status: 200, body: "plain", runs: 1 },
    },
    { name: "GET / with an empty prefix", req: get("/"), want: { status: 200, body: "OK" } },
    { name: "unknown id with an empty prefix", req: get("/nope"), want: hookNotFound },
    { name: "the old prefix becomes part of the id", req: get("/hooks/plain"), want: hookNotFound },
    {
      name: "a long X-Request-Id is accepted",
      req: get("/plain", { "X-Request-Id": "a-very-long-request-id" }),
      want: { status: 200, runs: 1 },
    },
    {
      name: "multipart larger than -max-multipart-mem still parses",
      req: postMultipart("/multipart", [
        { name: "big", value: "x".repeat(4000) },
        { name: "small", value: "s" },
      ]),
      want: { status: 200, body: "multipart", runs: 1, record: { args: ["x".repeat(4000), "s"] } },
    },
  ],
);
