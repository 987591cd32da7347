// Where posix_spawn cannot be loaded from the C library (musl, macOS), anvil starts commands with
// Node's child_process. ANVIL_HOOKS_LIBC names a library that does not exist, which forces that
// path here; commands must still see and answer exactly what webhook's do.
import path from "node:path";
import { type Case, sideBySide, type Want } from "./harness/harness.ts";
import { fixturesDir } from "./harness/pair.ts";
import type { HttpRequest } from "./harness/raw-http.ts";
import { get, postJson } from "./harness/requests.ts";

const commandFailed =
  "Error occurred while executing the hook's command. Please check your logs for more details.";
const payload = { amount: 1.5, head_commit: { id: "abc123", message: "fix it" } };

/** Cases of responses.test.ts and sources.test.ts, now with commands started by child_process. */
const cases: [string, HttpRequest, Want][] = [
  ["async: the command runs after the answer", get("/hooks/message"), { status: 200, runs: 1 }],
  [
    "capture: arguments and output",
    get("/hooks/capture?two=2"),
    { status: 200, body: "arg: one\narg: 2\n", runs: 1, record: { args: ["one", "2"] } },
  ],
  [
    "capture: stdout and stderr share one channel, order kept",
    get("/hooks/capture-stderr"),
    { status: 200, body: "arg: first\nto stderr\nafter stderr\n", runs: 1 },
  ],
  [
    "capture: non-zero exit is a 500",
    get("/hooks/capture-fail"),
    { status: 500, body: commandFailed, runs: 1 },
  ],
  [
    "capture on error: the output of a failing command",
    get("/hooks/capture-fail-on-error"),
    { status: 500, body: "arg: failing\noops\nafter stderr\n", runs: 1 },
  ],
  [
    "capture on error: a command that cannot be found",
    get("/hooks/capture-not-found-on-error"),
    { status: 500, body: "" },
  ],
  [
    "a relative command in its working directory",
    get("/hooks/relative-command"),
    { status: 200, runs: 1, record: { cwd: "@FIXTURES@" } },
  ],
  [
    "environment variables",
    postJson("/hooks/env-args?ref=main", payload, { "x-env": "from header" }),
    {
      status: 200,
      runs: 1,
      record: {
        env: { CONSTANT: "constant", CUSTOM_REF: "main", HOOK_AMOUNT: "1.5", "HOOK_X-Env": "from header" },
      },
    },
  ],
  [
    "files passed to the command, in its working directory, removed afterwards",
    postJson("/hooks/file-args-workdir", payload),
    {
      status: 200,
      runs: 1,
      record: {
        env: { MESSAGE_FILE: "@WORK@/<tempfile>" },
        files: { MESSAGE_FILE: "fix it" },
        leftFiles: [],
      },
    },
  ],
];

sideBySide(
  "commands started with child_process where posix_spawn is missing",
  {
    hooks: ["responses.json", "sources.yaml"],
    recordEnv: ["CUSTOM_REF", "CONSTANT", "MESSAGE_FILE"],
    env: {
      ANVIL_HOOKS_LIBC: "/nonexistent/libc.so.6",
      PATH: `${fixturesDir}:${path.dirname(process.execPath)}:${process.env.PATH}`,
    },
  },
  cases.map(([name, req, want]): Case => ({ name, req, want })),
);
