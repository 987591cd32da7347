// Routing, hooks files (JSON, YAML, several -hooks, case-insensitive keys) and methods.
import { sideBySide } from "./harness/harness.ts";
import { get, request } from "./harness/requests.ts";

// webhook reads every hooks file as YAML, so JSON with trailing commas loads.
const lenientJson =
  '[{"id": "lenient", "execute-command": "@RECORDER@", "response-message": "trailing commas are fine",},]';

const notFound = { status: 404, body: "Hook not found." };
const routerNotFound = { status: 404, body: "404 page not found\n" };

sideBySide(
  "routing and hooks files",
  {
    hooks: [
      "routing.json",
      "routing-more.yaml",
      { name: "lenient.json", text: lenientJson },
      // A file that fails to load is dropped; the others still serve.
      { name: "broken.json", text: '[{"id": "broken",' },
    ],
  },
  [
    { name: "GET / answers OK", req: get("/"), want: { status: 200, body: "OK" } },
    { name: "POST / answers OK too", req: request("POST", "/", {}, "x"), want: { status: 200, body: "OK" } },
    {
      name: "a hook without trigger-rule fires",
      req: get("/hooks/simple"),
      want: {
        status: 200,
        body: "simple ran",
        headers: { "content-type": "text/plain; charset=utf-8" },
        runs: 1,
        record: { args: [], cwd: "@WORK@", env: {} },
      },
    },
    {
      name: "POST fires the same hook",
      req: request("POST", "/hooks/simple"),
      want: { status: 200, runs: 1 },
    },
    { name: "unknown id", req: get("/hooks/no-such-hook"), want: notFound },
    { name: "empty id", req: get("/hooks/"), want: notFound },
    { name: "prefix without slash", req: get("/hooks"), want: routerNotFound },
    { name: "path outside the prefix", req: get("/foo/simple"), want: routerNotFound },
    { name: "double slash is redirected", req: get("//hooks/simple"), want: { status: 301 } },
    { name: "dot-dot segment is redirected", req: get("/hooks/../hooks/simple"), want: { status: 301 } },
    {
      name: "id containing a slash",
      req: get("/hooks/ci/deploy"),
      want: { status: 200, body: "id with a slash", runs: 1 },
    },
    {
      name: "percent-encoded slash in the id",
      req: get("/hooks/ci%2Fdeploy"),
      want: { status: 200, runs: 1 },
    },
    {
      name: "lower-case percent escape in the id",
      req: get("/hooks/ci%2fdeploy"),
      want: { status: 200, runs: 1 },
    },
    {
      name: "query string is not part of the id",
      req: get("/hooks/simple?id=other&x=1"),
      want: { status: 200, runs: 1 },
    },
    { name: "ids are case-sensitive", req: get("/hooks/SIMPLE"), want: notFound },
    { name: "extra path segment is another id", req: get("/hooks/simple/extra"), want: notFound },
    {
      name: "case-insensitive keys in a hooks file",
      req: get("/hooks/upper-keys"),
      want: {
        status: 200,
        body: "keys are case-insensitive",
        runs: 1,
        record: { args: ["from-upper-keys"] },
      },
    },
    {
      name: "hook from the second -hooks file (YAML)",
      req: get("/hooks/from-yaml"),
      want: { status: 200, body: "from the yaml file", runs: 1, record: { args: ["yaml argument"] } },
    },
    {
      name: "JSON with trailing commas is read as YAML",
      req: get("/hooks/lenient"),
      want: { status: 200, body: "trailing commas are fine", runs: 1 },
    },
    {
      name: "duplicate id in one file: first wins",
      req: get("/hooks/dup"),
      want: { status: 200, body: "first definition", runs: 1 },
    },
    {
      name: "unknown keys are ignored",
      req: get("/hooks/unknown-keys"),
      want: { status: 200, body: "unknown keys are ignored", runs: 1 },
    },
    {
      name: "http-methods refuses GET with 405",
      req: get("/hooks/methods"),
      want: { status: 405, body: "" },
    },
    {
      name: "http-methods entries are trimmed and upper-cased",
      req: request("POST", "/hooks/methods"),
      want: { status: 200, body: "method allowed", runs: 1 },
    },
    {
      name: "second http-methods entry",
      req: request("PUT", "/hooks/methods"),
      want: { status: 200, runs: 1 },
    },
    {
      name: "request method is compared as sent",
      req: request("post", "/hooks/methods"),
      want: { status: 405 },
    },
    {
      name: "DELETE refused by http-methods",
      req: request("DELETE", "/hooks/methods"),
      want: { status: 405 },
    },
    {
      name: "HEAD on a hook runs it and sends no body",
      req: request("HEAD", "/hooks/simple"),
      want: { status: 200, body: "", runs: 1 },
    },
    { name: "HEAD on an unknown hook", req: request("HEAD", "/hooks/nope"), want: { status: 404, body: "" } },
    {
      name: "405 before the hook is looked at further",
      req: request("PATCH", "/hooks/methods"),
      want: { status: 405 },
    },
  ],
);
