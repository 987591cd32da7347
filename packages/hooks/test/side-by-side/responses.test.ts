// Responses: messages, headers, status codes, capture mode and how commands are found and fail.
import path from "node:path";
import { mismatch } from "./harness/answers.ts";
import { sideBySide } from "./harness/harness.ts";
import { fixturesDir } from "./harness/pair.ts";
import { get, request } from "./harness/requests.ts";

const commandFailed =
  "Error occurred while executing the hook's command. Please check your logs for more details.";
const textPlain = "text/plain; charset=utf-8";

sideBySide(
  "responses and command execution",
  {
    hooks: ["responses.json"],
    // The fixture folder on PATH lets a bare execute-command name be found there.
    env: { PATH: `${fixturesDir}:${path.dirname(process.execPath)}:${process.env.PATH}` },
  },
  [
    {
      name: "response-message and response-headers (Content-Type overridden)",
      req: get("/hooks/message"),
      want: {
        status: 200,
        body: "custom message\n",
        headers: { "x-hook": "from the hook", "content-type": "application/json" },
        runs: 1,
      },
    },
    {
      name: "response-headers when the rule passes",
      req: get("/hooks/message-headers-on-mismatch?go=yes"),
      want: { status: 200, body: "fired", headers: { "x-hook": "only when the rule passed" }, runs: 1 },
    },
    {
      name: "no response-headers on a mismatch",
      req: get("/hooks/message-headers-on-mismatch?go=no"),
      want: mismatch,
    },
    {
      name: "no response-message: empty body",
      req: get("/hooks/no-message"),
      want: { status: 200, body: "", runs: 1 },
    },
    {
      name: "success-http-response-code",
      req: get("/hooks/success-code"),
      want: { status: 201, body: "created", runs: 1 },
    },
    {
      name: "success code 204 sends no body",
      req: get("/hooks/success-204"),
      want: { status: 204, body: "", runs: 1 },
    },
    {
      name: "success code without a status text answers 200",
      req: get("/hooks/success-999"),
      want: { status: 200, body: "odd code", runs: 1 },
    },
    {
      name: "success code 418 and its reason phrase",
      req: get("/hooks/success-418"),
      want: { status: 418, runs: 1 },
    },
    {
      name: "capture: combined output, response-message ignored",
      req: get("/hooks/capture?two=2"),
      want: {
        status: 200,
        body: "arg: one\narg: 2\n",
        headers: { "content-type": textPlain },
        runs: 1,
        record: { args: ["one", "2"] },
      },
    },
    {
      name: "capture: unresolvable argument stays as an empty argument",
      req: get("/hooks/capture"),
      want: { status: 200, body: "arg: one\narg: \n", runs: 1, record: { args: ["one", ""] } },
    },
    {
      name: "capture: stdout and stderr share one pipe, order kept",
      req: get("/hooks/capture-stderr"),
      want: { status: 200, body: "arg: first\nto stderr\nafter stderr\n", runs: 1 },
    },
    {
      name: "capture: HTML output is sniffed as text/html",
      req: get("/hooks/capture-stdout?out=%3Chtml%3E%3Cbody%3Ehi%3C%2Fbody%3E%3C%2Fhtml%3E"),
      want: {
        status: 200,
        body: "<html><body>hi</body></html>",
        headers: { "content-type": "text/html; charset=utf-8" },
        runs: 1,
      },
    },
    {
      name: "capture: JSON output is sniffed as text/plain",
      req: get("/hooks/capture-stdout?out=%7B%22a%22%3A1%7D"),
      want: { status: 200, body: '{"a":1}', headers: { "content-type": textPlain }, runs: 1 },
    },
    {
      name: "capture: PDF magic is sniffed",
      req: get("/hooks/capture-stdout?out=%25PDF-1.4%20x"),
      want: { status: 200, headers: { "content-type": "application/pdf" }, runs: 1 },
    },
    {
      name: "capture: empty output",
      req: get("/hooks/capture-stdout?out="),
      want: { status: 200, body: "", runs: 1 },
    },
    {
      name: "capture: non-zero exit is a 500 with the generic text",
      req: get("/hooks/capture-fail"),
      want: { status: 500, body: commandFailed, headers: { "content-type": textPlain }, runs: 1 },
    },
    {
      name: "capture on error: non-zero exit returns the output",
      req: get("/hooks/capture-fail-on-error"),
      want: { status: 500, body: "arg: failing\noops\nafter stderr\n", runs: 1 },
    },
    {
      name: "on-error flag without capture changes nothing",
      req: get("/hooks/on-error-alone"),
      want: { status: 200, body: "on-error needs capture", runs: 1 },
    },
    {
      name: "capture: command not found",
      req: get("/hooks/capture-not-found"),
      want: { status: 500, body: commandFailed },
    },
    {
      name: "capture on error: command not found gives an empty 500",
      req: get("/hooks/capture-not-found-on-error"),
      want: { status: 500, body: "" },
    },
    {
      name: "capture with success-http-response-code",
      req: get("/hooks/capture-success-code"),
      want: { status: 202, body: "arg: accepted\n", runs: 1 },
    },
    {
      name: "capture: response-headers Content-Type wins over sniffing",
      req: get("/hooks/capture-content-type"),
      want: { status: 200, body: '{"ok": true}', headers: { "content-type": "application/json" }, runs: 1 },
    },
    {
      name: "async: command not found is only logged",
      req: get("/hooks/async-not-found"),
      want: { status: 200, body: "started anyway" },
    },
    {
      name: "execute-command is not split at spaces",
      req: get("/hooks/command-with-space"),
      want: { status: 200, body: "not split" },
    },
    {
      name: "relative execute-command is joined with the working directory",
      req: get("/hooks/relative-command"),
      want: {
        status: 200,
        body: "joined with the working directory",
        runs: 1,
        record: { cwd: "@FIXTURES@" },
      },
    },
    {
      name: "bare execute-command is searched on PATH",
      req: get("/hooks/path-command"),
      want: { status: 200, body: "found on PATH", runs: 1, record: { cwd: "@WORK@" } },
    },
    { name: "empty trigger-rule never fires (kept quirk)", req: get("/hooks/empty-rule"), want: mismatch },
    {
      name: "POST with a body to a capture hook",
      req: request("POST", "/hooks/capture?two=b", {}, "ignored"),
      want: { status: 200, body: "arg: one\narg: b\n", runs: 1 },
    },
  ],
);
