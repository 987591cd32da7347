// The HTTP surface of spec §6 against a real listening server, real hooks files and real commands.
// Header order is asserted too: responses are laid out as Go's net/http writes them.
import assert from "node:assert/strict";
import { access, chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { ServiceApp } from "@anvil/core";
import { createApp } from "../../src/app.ts";
import type { HooksConfig } from "../../src/cli/flags.ts";

let dir: string;
const agent = new http.Agent({ keepAlive: true });
const apps: ServiceApp[] = [];

interface Answer {
  status: number;
  statusMessage: string;
  headers: [string, string][];
  body: string;
  trailers: [string, string][];
  /** Milliseconds from the request to each body chunk. */
  chunkTimes: number[];
}

function pairs(raw: string[]): [string, string][] {
  const list: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) list.push([raw[i], raw[i + 1]]);
  return list;
}

function header(answer: Answer, name: string): string | undefined {
  return answer.headers.find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
}

/** Header names and values without Date, whose value changes. */
function stableHeaders(answer: Answer): [string, string][] {
  return answer.headers.map(([name, value]) => [name, name === "Date" ? "<date>" : value]);
}

function send(
  base: string,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Answer> {
  const url = new URL(base);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: options.method ?? "GET",
        path: target,
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        const chunkTimes: number[] = [];
        res.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          chunkTimes.push(Date.now() - started);
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            statusMessage: res.statusMessage ?? "",
            headers: pairs(res.rawHeaders),
            body: Buffer.concat(chunks).toString("utf8"),
            trailers: pairs(res.rawTrailers),
            chunkTimes,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** The exact bytes the server writes for a request sent as is (the connection is closed after). */
function raw(base: string, request: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", reject);
  });
}

async function script(name: string, body: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

async function start(hooks: unknown[] | undefined, config: Partial<HooksConfig> = {}): Promise<string> {
  const files: string[] = [];
  if (hooks !== undefined) {
    const file = path.join(dir, `hooks-${apps.length}.json`);
    await writeFile(file, JSON.stringify(hooks));
    files.push(file);
  }
  const app = createApp({ ip: "127.0.0.1", port: 0, hooks: files, ...config });
  apps.push(app);
  return app.listen();
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

const TEXT = "text/plain; charset=utf-8";
let base: string;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "anvil-server-"));
  const big = await script("big.sh", 'head -c "$1" /dev/zero | tr "\\0" a');
  const touch = await script("touch.sh", 'touch "$1"');
  base = await start(
    [
      {
        id: "echo",
        "execute-command": "/bin/echo",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [{ source: "string", name: "hello" }],
      },
      {
        id: "html",
        "execute-command": "/bin/echo",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [{ source: "string", name: "<html><body>hi" }],
      },
      {
        id: "binary",
        "execute-command": "/usr/bin/printf",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [{ source: "string", name: "\\001\\002\\003" }],
      },
      {
        id: "big",
        "execute-command": big,
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [{ source: "url", name: "n" }],
      },
      {
        id: "async",
        "execute-command": touch,
        "response-message": "started",
        "success-http-response-code": 201,
        "response-headers": [
          { name: "x-global", value: "from-hook" },
          { name: "X-Hook", value: "yes" },
        ],
        "pass-arguments-to-command": [{ source: "url", name: "file" }],
      },
      {
        id: "nocontent",
        "execute-command": "/bin/true",
        "success-http-response-code": 204,
        "response-message": "ignored",
      },
      {
        id: "oddcode",
        "execute-command": "/bin/true",
        "success-http-response-code": 999,
        "response-message": "x",
      },
      {
        id: "guarded",
        "execute-command": "/bin/true",
        "response-headers": [{ name: "X-Hook", value: "yes" }],
        "trigger-rule": {
          match: { type: "value", value: "secret", parameter: { source: "url", name: "token" } },
        },
      },
      {
        id: "guarded-403",
        "execute-command": "/bin/true",
        "trigger-rule-mismatch-http-response-code": 403,
        "trigger-rule": {
          match: { type: "value", value: "secret", parameter: { source: "url", name: "token" } },
        },
      },
      {
        id: "guarded-999",
        "execute-command": "/bin/true",
        "trigger-rule-mismatch-http-response-code": 999,
        "trigger-rule": {
          match: { type: "value", value: "secret", parameter: { source: "url", name: "token" } },
        },
      },
      {
        id: "bad-regex",
        "execute-command": "/bin/true",
        "trigger-rule": { match: { type: "regex", regex: "(", parameter: { source: "url", name: "q" } } },
      },
      { id: "post-only", "execute-command": "/bin/true", "http-methods": ["post "] },
      {
        id: "fails",
        "execute-command": "/bin/sh",
        "include-command-output-in-response": true,
        "pass-arguments-to-command": [
          { source: "string", name: "-c" },
          { source: "string", name: "echo oops; exit 1" },
        ],
      },
      {
        id: "fails-verbose",
        "execute-command": "/bin/sh",
        "include-command-output-in-response": true,
        "include-command-output-in-response-on-error": true,
        "pass-arguments-to-command": [
          { source: "string", name: "-c" },
          { source: "string", name: "echo oops; exit 1" },
        ],
      },
      {
        id: "missing",
        "execute-command": "no-such-command-anvil",
        "include-command-output-in-response": true,
        "include-command-output-in-response-on-error": true,
      },
      {
        id: "missing-plain",
        "execute-command": "no-such-command-anvil",
        "include-command-output-in-response": true,
      },
      { id: "ci/deploy", "execute-command": "/bin/true", "response-message": "deploying" },
      {
        id: "dotted",
        "execute-command": "/bin/true",
        "parse-parameters-as-json": [{ source: "payload", name: "payload.inner" }],
      },
      {
        id: "ci",
        "execute-command": "/bin/echo",
        "include-command-output-in-response": true,
        "parse-parameters-as-json": [{ source: "payload", name: "payload" }],
        "pass-arguments-to-command": [
          { source: "payload", name: "payload.number" },
          { source: "payload", name: "payload.branch" },
        ],
        "trigger-rule": {
          match: { type: "value", value: "passed", parameter: { source: "payload", name: "payload.state" } },
        },
      },
      {
        id: "slow",
        "execute-command": "/bin/sleep",
        "include-command-output-in-response": true,
        "command-timeout": "300ms",
        "pass-arguments-to-command": [{ source: "string", name: "30" }],
      },
      {
        id: "serial",
        "execute-command": "/bin/sleep",
        "max-concurrency": 1,
        "response-message": "queued or running",
        "response-headers": [{ name: "X-Hook", value: "yes" }],
        "pass-arguments-to-command": [{ source: "string", name: "0.5" }],
      },
      {
        id: "stream",
        "execute-command": "/bin/sh",
        "stream-command-output": true,
        "pass-arguments-to-command": [
          { source: "string", name: "-c" },
          { source: "string", name: "echo first; sleep 0.6; echo second; exit 3" },
        ],
      },
    ],
    { headers: [{ name: "x-global", value: "global" }], maxRequestBody: 256 },
  );
});

after(async () => {
  agent.destroy();
  await Promise.all(apps.map((app) => app.close()));
  await rm(dir, { recursive: true, force: true });
});

describe("routing", () => {
  test("GET / answers OK without the global headers (webhook 2.8.0)", async () => {
    const answer = await send(base, "/");
    assert.equal(answer.status, 200);
    assert.equal(answer.body, "OK");
    assert.deepEqual(stableHeaders(answer), [
      ["Date", "<date>"],
      ["Content-Length", "2"],
      ["Content-Type", TEXT],
    ]);
    assert.match(
      header(answer, "Date") ?? "",
      /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
    );
    assert.equal((await send(base, "/", { method: "DELETE" })).body, "OK");
  });

  test("an unknown id, and the bare prefix, answer Hook not found. without global headers", async () => {
    for (const target of ["/hooks/nope", "/hooks/", "/hooks/echo/"]) {
      const answer = await send(base, target);
      assert.equal(answer.status, 404);
      assert.equal(answer.body, "Hook not found.");
      assert.deepEqual(stableHeaders(answer), [
        ["Date", "<date>"],
        ["Content-Length", "15"],
        ["Content-Type", TEXT],
      ]);
    }
  });

  test("paths outside the prefix get the router's 404 page not found", async () => {
    for (const target of ["/hooks", "/other", "/hooksx/echo"]) {
      const answer = await send(base, target);
      assert.equal(answer.status, 404);
      assert.equal(answer.body, "404 page not found\n");
      assert.deepEqual(stableHeaders(answer), [
        ["Content-Type", TEXT],
        ["X-Content-Type-Options", "nosniff"],
        ["Date", "<date>"],
        ["Content-Length", "19"],
      ]);
    }
  });

  test("paths that are not clean are redirected (301) to their cleaned, re-escaped form", async () => {
    const cases: [string, string][] = [
      ["//hooks/echo", "/hooks/echo"],
      ["/hooks/./echo?x=1", "/hooks/echo?x=1"],
      ["/hooks/../x", "/x"],
      ["/hooks/a%2F..%2Fb", "/hooks/b"],
      ["/hooks/./a(b)%20c", "/hooks/a%28b%29%20c"],
      ["/hooks/a/..//", "/hooks/"],
    ];
    for (const [target, location] of cases) {
      const answer = await send(base, target);
      assert.equal(answer.status, 301, target);
      assert.deepEqual(stableHeaders(answer), [
        ["Location", location],
        ["Date", "<date>"],
        ["Content-Length", "0"],
      ]);
      assert.equal(answer.body, "");
    }
  });

  test("a malformed percent-escape is refused by the HTTP layer, as net/http does", async () => {
    const answer = await raw(base, "GET /hooks/%zz HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.equal(
      answer,
      "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request",
    );
  });

  test("percent-encoded ids are decoded (`ci%2Fdeploy` is `ci/deploy`); the query is not part of the id", async () => {
    for (const target of ["/hooks/ci%2Fdeploy", "/hooks/ci/deploy?x=1"]) {
      const answer = await send(base, target);
      assert.equal(answer.status, 200);
      assert.equal(answer.body, "deploying");
    }
  });

  test("the exact bytes of a keep-alive answer: no Connection or Keep-Alive header, as Go", async () => {
    const answer = await raw(base, "GET /hooks/nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert.match(
      answer,
      /^HTTP\/1\.1 404 Not Found\r\nDate: [^\r]+\r\nContent-Length: 15\r\nContent-Type: text\/plain; charset=utf-8\r\nConnection: close\r\n\r\nHook not found\.$/,
    );
    const keepAlive = await send(base, "/hooks/nope");
    assert.equal(header(keepAlive, "Connection"), undefined);
    assert.equal(header(keepAlive, "Keep-Alive"), undefined);
  });
});

describe("methods", () => {
  test("a method the hook does not allow: 405, empty, no Content-Type, no global headers", async () => {
    const answer = await send(base, "/hooks/post-only");
    assert.equal(answer.status, 405);
    assert.equal(answer.statusMessage, "Method Not Allowed");
    assert.equal(answer.body, "");
    assert.deepEqual(stableHeaders(answer), [
      ["Date", "<date>"],
      ["Content-Length", "0"],
    ]);
    const head = await send(base, "/hooks/post-only", { method: "HEAD" });
    assert.deepEqual(stableHeaders(head), [["Date", "<date>"]]);
    assert.equal((await send(base, "/hooks/post-only", { method: "POST" })).status, 200);
  });

  test("a method Node's parser refuses (lower-case `post`) still gets webhook's 405 or 404", async () => {
    const refused = await raw(base, "post /hooks/post-only HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.match(
      refused,
      /^HTTP\/1\.1 405 Method Not Allowed\r\nDate: [^\r]+\r\nContent-Length: 0\r\nConnection: close\r\n\r\n$/,
    );
    const unknown = await raw(base, "post /hooks/nope HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.match(
      unknown,
      /^HTTP\/1\.1 404 Not Found\r\nDate: [^\r]+\r\nContent-Length: 15\r\nContent-Type: text\/plain; charset=utf-8\r\nConnection: close\r\n\r\nHook not found\.$/,
    );
  });

  test("-http-methods is the default for hooks without their own list", async () => {
    const url = await start(
      [
        { id: "default", "execute-command": "/bin/true" },
        { id: "own", "execute-command": "/bin/true", "http-methods": ["GET"] },
      ],
      { httpMethods: ["POST", "PUT"] },
    );
    assert.equal((await send(url, "/hooks/default")).status, 405);
    assert.equal((await send(url, "/hooks/default", { method: "PUT" })).status, 200);
    assert.equal((await send(url, "/hooks/own")).status, 200);
    assert.equal((await send(url, "/hooks/own", { method: "POST" })).status, 405);
  });

  test("HEAD runs the hook and answers like GET without a body", async () => {
    const marker = path.join(dir, "head-marker");
    const answer = await send(base, `/hooks/async?file=${encodeURIComponent(marker)}`, { method: "HEAD" });
    assert.equal(answer.status, 201);
    assert.equal(answer.body, "");
    assert.equal(header(answer, "Content-Length"), "7");
    await eventually(() => exists(marker), "the HEAD request's command");
  });
});

describe("trigger rules", () => {
  test("rule not satisfied: 200 with global headers, without the hook's", async () => {
    const answer = await send(base, "/hooks/guarded?token=wrong");
    assert.equal(answer.status, 200);
    assert.equal(answer.body, "Hook rules were not satisfied.");
    assert.deepEqual(stableHeaders(answer), [
      ["X-Global", "global"],
      ["Date", "<date>"],
      ["Content-Length", "30"],
      ["Content-Type", TEXT],
    ]);
    assert.equal((await send(base, "/hooks/guarded")).body, "Hook rules were not satisfied.");
  });

  test("trigger-rule-mismatch-http-response-code, and an unknown code falls back to 200", async () => {
    const forbidden = await send(base, "/hooks/guarded-403?token=wrong");
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body, "Hook rules were not satisfied.");
    assert.equal((await send(base, "/hooks/guarded-999?token=wrong")).status, 200);
  });

  test("rule satisfied: the hook's response-headers are added", async () => {
    const answer = await send(base, "/hooks/guarded?token=secret");
    assert.equal(answer.status, 200);
    assert.equal(answer.body, "");
    assert.equal(header(answer, "X-Hook"), "yes");
  });

  test("a rule error answers 500 with the global headers", async () => {
    const answer = await send(base, "/hooks/bad-regex?q=x");
    assert.equal(answer.status, 500);
    assert.equal(answer.body, "Error occurred while evaluating hook rules.");
    assert.equal(header(answer, "X-Global"), "global");
    assert.equal(header(answer, "X-Hook"), undefined);
  });

  test("the CI case: a form field holding JSON, fired only when state is passed", async () => {
    const form = (state: string) =>
      `payload=${encodeURIComponent(JSON.stringify({ id: 7, number: 1.5, branch: "main", state }))}`;
    const headers = { "Content-Type": "application/x-www-form-urlencoded" };
    const failed = await send(base, "/hooks/ci", { method: "POST", headers, body: form("failed") });
    assert.equal(failed.body, "Hook rules were not satisfied.");
    const passed = await send(base, "/hooks/ci", { method: "POST", headers, body: form("passed") });
    assert.equal(passed.status, 200);
    assert.equal(passed.body, "1.5 main\n");
  });
});

describe("answers when the hook fires", () => {
  test("no capture: response-message and success code at once; hook headers override global ones", async () => {
    const marker = path.join(dir, "async-marker");
    const answer = await send(base, `/hooks/async?file=${encodeURIComponent(marker)}`);
    assert.equal(answer.status, 201);
    assert.equal(answer.statusMessage, "Created");
    assert.equal(answer.body, "started");
    assert.deepEqual(stableHeaders(answer), [
      ["X-Global", "from-hook"],
      ["X-Hook", "yes"],
      ["Date", "<date>"],
      ["Content-Length", "7"],
      ["Content-Type", TEXT],
    ]);
    await eventually(() => exists(marker), "the command's side effect");
  });

  test("success code 204 sends no body; an unknown success code sends 200", async () => {
    const empty = await send(base, "/hooks/nocontent");
    assert.equal(empty.status, 204);
    assert.equal(empty.body, "");
    assert.deepEqual(stableHeaders(empty), [
      ["X-Global", "global"],
      ["Date", "<date>"],
    ]);
    const odd = await send(base, "/hooks/oddcode");
    assert.equal(odd.status, 200);
    assert.equal(odd.body, "x");
  });

  test("capture: the output with a sniffed Content-Type, as Go's DetectContentType", async () => {
    const text = await send(base, "/hooks/echo");
    assert.equal(text.body, "hello\n");
    assert.equal(header(text, "Content-Type"), TEXT);
    const html = await send(base, "/hooks/html");
    assert.equal(html.body, "<html><body>hi\n");
    assert.equal(header(html, "Content-Type"), "text/html; charset=utf-8");
    const binary = await send(base, "/hooks/binary");
    assert.equal(header(binary, "Content-Type"), "application/octet-stream");
  });

  test("Content-Length up to 2048 bytes, chunked above, as Go's response buffer decides", async () => {
    const small = await send(base, "/hooks/big?n=2048");
    assert.equal(header(small, "Content-Length"), "2048");
    assert.equal(small.body.length, 2048);
    const large = await send(base, "/hooks/big?n=2049");
    assert.equal(header(large, "Content-Length"), undefined);
    assert.equal(header(large, "Transfer-Encoding"), "chunked");
    assert.equal(large.body, "a".repeat(2049));
  });

  test("capture, command fails: 500 with webhook's message, or the output with the on-error flag", async () => {
    const plain = await send(base, "/hooks/fails");
    assert.equal(plain.status, 500);
    assert.equal(
      plain.body,
      "Error occurred while executing the hook's command. Please check your logs for more details.",
    );
    assert.equal(header(plain, "Content-Type"), TEXT);
    const verbose = await send(base, "/hooks/fails-verbose");
    assert.equal(verbose.status, 500);
    assert.equal(verbose.body, "oops\n");
  });

  test("capture, command not found: 500 (empty with the on-error flag)", async () => {
    const withOutput = await send(base, "/hooks/missing");
    assert.equal(withOutput.status, 500);
    assert.equal(withOutput.body, "");
    assert.equal(header(withOutput, "Content-Type"), undefined);
    const plain = await send(base, "/hooks/missing-plain");
    assert.equal(plain.status, 500);
    assert.match(plain.body, /^Error occurred while executing the hook's command/);
  });

  test("a dotted parse-parameters-as-json name: a clear 500 instead of webhook's panic", async () => {
    const answer = await send(base, "/hooks/dotted", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ payload: { inner: "{}" } }),
    });
    assert.equal(answer.status, 500);
    assert.match(answer.body, /^Error occurred while parsing JSON parameters: .*"payload\.inner"/);
  });

  test("a multipart body that cannot be parsed answers 500", async () => {
    const answer = await send(base, "/hooks/echo", {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=xyz" },
      body: "not multipart at all",
    });
    assert.equal(answer.status, 500);
    assert.equal(answer.body, "Error occurred while parsing multipart form.");
  });

  test("a body over -max-request-body answers 413, also when it arrives chunked", async () => {
    const answer = await send(base, "/hooks/echo", { method: "POST", body: "x".repeat(257) });
    assert.equal(answer.status, 413);
    assert.equal(answer.statusMessage, "Request Entity Too Large");
    assert.equal(answer.body, "Request body too large: the limit is 256 bytes.\n");
    assert.equal((await send(base, "/hooks/echo", { method: "POST", body: "x".repeat(256) })).status, 200);
    const chunked = await send(base, "/hooks/echo", {
      method: "POST",
      headers: { "Transfer-Encoding": "chunked" },
      body: "y".repeat(300),
    });
    assert.equal(chunked.status, 413);
  });
});

describe("beyond webhook", () => {
  test("command-timeout: the capture answer is 504 with a clear text", async () => {
    const started = Date.now();
    const answer = await send(base, "/hooks/slow");
    assert.equal(answer.status, 504);
    assert.equal(answer.body, "The hook's command timed out after 0.3s and was stopped.\n");
    assert.ok(Date.now() - started < 5000);
  });

  test("max-concurrency: beyond the limit (and an empty queue) 429 with Retry-After", async () => {
    const [first, second] = await Promise.all([send(base, "/hooks/serial"), send(base, "/hooks/serial")]);
    const statuses = [first.status, second.status].sort();
    assert.deepEqual(statuses, [200, 429]);
    const refused = first.status === 429 ? first : second;
    assert.equal(header(refused, "Retry-After"), "1");
    assert.equal(header(refused, "X-Hook"), "yes");
    assert.equal(refused.body, 'Too many concurrent requests for hook "serial"; retry later.\n');
    // The slot frees when the running command (sleep 0.5) ends; on a busy machine that can take
    // longer than its half second, so ask again until then, within a bound.
    const deadline = Date.now() + 10_000;
    let again = await send(base, "/hooks/serial");
    while (again.status === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await send(base, "/hooks/serial");
    }
    assert.equal(again.status, 200);
  });

  test("stream-command-output: chunked text as produced, exit status in a trailer", async () => {
    const answer = await send(base, "/hooks/stream");
    assert.equal(answer.status, 200);
    assert.equal(answer.body, "first\nsecond\n");
    assert.equal(header(answer, "Content-Type"), TEXT);
    assert.equal(header(answer, "X-Content-Type-Options"), "nosniff");
    assert.equal(header(answer, "Transfer-Encoding"), "chunked");
    assert.deepEqual(answer.trailers, [["X-Hook-Exit-Code", "3"]]);
    assert.ok(answer.chunkTimes[0] < 500, `first output after ${answer.chunkTimes[0]} ms`);
    assert.ok(answer.chunkTimes[answer.chunkTimes.length - 1] >= 500);
  });
});

describe("flags that change answers", () => {
  test("an empty -urlprefix serves /{id}; a multi-segment prefix works", async () => {
    const hooks = [{ id: "x", "execute-command": "/bin/true", "response-message": "fired" }];
    const bare = await start(hooks, { urlprefix: "" });
    assert.equal((await send(bare, "/x")).body, "fired");
    assert.equal((await send(bare, "/")).body, "OK");
    assert.equal((await send(bare, "/y")).body, "Hook not found.");
    const nested = await start(hooks, { urlprefix: "api/v2" });
    assert.equal((await send(nested, "/api/v2/x")).body, "fired");
    assert.equal((await send(nested, "/hooks/x")).body, "404 page not found\n");
  });

  test("without hooks files the server still starts", async () => {
    const url = await start(undefined);
    assert.equal((await send(url, "/")).body, "OK");
    assert.equal((await send(url, "/hooks/anything")).body, "Hook not found.");
  });

  test("-header names are canonicalised; values with CR/LF are flattened, as Go writes them", async () => {
    const url = await start([{ id: "x", "execute-command": "/bin/true" }], {
      headers: [
        { name: "x-lower", value: "v" },
        { name: "X-Multi", value: "a=b" },
        { name: "X-Lines", value: " one\ntwo " },
      ],
    });
    const answer = await send(url, "/hooks/x");
    assert.deepEqual(stableHeaders(answer).slice(0, 3), [
      ["X-Lines", "one two"],
      ["X-Lower", "v"],
      ["X-Multi", "a=b"],
    ]);
  });

  test("-debug dumps requests and answers with secrets redacted", async () => {
    const logfile = path.join(dir, "debug.log");
    const url = await start([{ id: "x", "execute-command": "/bin/true", "response-message": "done" }], {
      logfile,
      debug: true,
    });
    await send(url, "/hooks/x?api_key=k1&page=2", {
      method: "POST",
      headers: {
        Authorization: "Bearer t0k3n",
        "X-Hub-Signature-256": "sha256=abc",
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ password: "hunter2", nested: { secret_value: 42, ok: "visible" } }),
    });
    await eventually(
      async () => (await readFile(logfile, "utf8").catch(() => "")).includes("| POST /hooks/x"),
      "the log",
    );
    const log = await readFile(logfile, "utf8");
    assert.match(log, /^> \[[0-9a-f]{6}\] POST \/hooks\/x\?api_key=\[REDACTED\]&page=2 HTTP\/1\.1$/m);
    assert.match(log, /^> \[[0-9a-f]{6}\] Authorization: \[REDACTED\]$/m);
    assert.match(log, /^> \[[0-9a-f]{6}\] X-Hub-Signature-256: \[REDACTED\]$/m);
    assert.match(
      log,
      /^> \[[0-9a-f]{6}\] \{"password":"\[REDACTED\]","nested":\{"secret_value":"\[REDACTED\]","ok":"visible"\}\}$/m,
    );
    assert.match(log, /^< \[[0-9a-f]{6}\] 200 OK$/m);
    assert.match(log, /^< \[[0-9a-f]{6}\] done$/m);
    for (const secret of ["t0k3n", "hunter2", "k1", "sha256=abc"]) assert.ok(!log.includes(secret), secret);
  });

  test("-logfile, -x-request-id and -x-request-id-limit: the access line, no secrets", async () => {
    const logfile = path.join(dir, "access.log");
    const url = await start(
      [
        {
          id: "x",
          "execute-command": "/bin/true",
          "trigger-rule": {
            match: { type: "value", value: "s3cr3t", parameter: { source: "url", name: "token" } },
          },
        },
      ],
      { logfile, xRequestId: true, xRequestIdLimit: 8 },
    );
    await send(url, "/hooks/x?token=s3cr3t&b=1", { headers: { "X-Request-Id": "req-1234567890" } });
    await send(url, "/hooks/x?token=wrong");
    await eventually(
      async () => (await readFile(logfile, "utf8").catch(() => "")).includes("token=[REDACTED]&b=1"),
      "the log",
    );
    const log = await readFile(logfile, "utf8");
    assert.match(
      log,
      /^\[webhook\] \d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} \[req-1234\] incoming HTTP GET request from 127\.0\.0\.1:\d+$/m,
    );
    assert.match(log, /\[req-1234\] x hook triggered successfully/);
    assert.match(
      log,
      /\[req-1234\] 200 \| 0 B \| [\d.]+[µm]?s \| 127\.0\.0\.1:\d+ \| GET \/hooks\/x\?token=\[REDACTED\]&b=1$/m,
    );
    assert.match(
      log,
      /\[[0-9a-f]{6}\] x got matched, but didn't get triggered because the trigger rules were not satisfied/,
    );
    assert.ok(!log.includes("s3cr3t"));
  });
});
