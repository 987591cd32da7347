// The fast path (fast-path.ts): answers without a command written straight on the socket, every
// other request handed to node:http with the connection. Real sockets throughout: first the
// mechanism on a plain node:http server, then the hook runner, whose direct answers must be the
// bytes its node:http path sends.
import assert from "node:assert/strict";
import { access, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { closeRuntime, completeConfig, createRuntime, type HooksRuntime } from "../../src/app.ts";
import type { HooksConfig } from "../../src/cli/flags.ts";
import { FastPath, parsePlainRequest } from "../../src/http/fast-path.ts";
import { openListener } from "../../src/http/listen.ts";
import { createLogger } from "../../src/log/logger.ts";

/** Writes each request in turn on one connection (waiting `gapMs` between), then reads until the end. */
function exchange(port: number, requests: string[], options: { gapMs?: number; end?: boolean } = {}) {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.once("connect", async () => {
      for (const request of requests) {
        socket.write(Buffer.from(request, "latin1"));
        await sleep(options.gapMs ?? 50);
      }
      if (options.end ?? true) socket.end();
    });
  });
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** Go's and Node's Date changes by the second; everything else must be identical. */
const withoutDate = (text: string) => text.replaceAll(/\r\nDate: [^\r]*/g, "\r\nDate: <date>");

describe("parsePlainRequest", () => {
  const parse = (text: string) => parsePlainRequest(Buffer.from(text, "latin1"));

  test("a whole GET or POST without a body: method, target and raw headers as Node gives them", () => {
    assert.deepEqual(parse("GET /hooks/x?a=1 HTTP/1.1\r\nHost: h\r\nX-Token:  a b \t\r\n\r\n"), {
      method: "GET",
      target: "/hooks/x?a=1",
      rawHeaders: ["Host", "h", "X-Token", "a b"],
    });
    assert.deepEqual(
      parse("POST /a HTTP/1.1\r\nhost: h\r\nContent-Length: 0\r\nConnection: Keep-Alive\r\n\r\n"),
      {
        method: "POST",
        target: "/a",
        rawHeaders: ["host", "h", "Content-Length", "0", "Connection", "Keep-Alive"],
      },
    );
  });

  test("anything else is left to node:http", () => {
    const refused = [
      "GET /a HTTP/1.1\r\nHost: h\r\n", // not whole yet
      "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n", // two requests
      "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nab", // a body
      "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
      "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n",
      "HEAD /a HTTP/1.1\r\nHost: h\r\n\r\n",
      "get /a HTTP/1.1\r\nHost: h\r\n\r\n",
      "GET /a HTTP/1.0\r\nHost: h\r\n\r\n",
      "GET http://h/a HTTP/1.1\r\nHost: h\r\n\r\n",
      "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
      "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n",
      'GET /a"b HTTP/1.1\r\nHost: h\r\n\r\n',
      "GET /a HTTP/1.1\r\n\r\n", // no Host
      "GET /a HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n",
      "GET /a HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
      "GET /a HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n",
      "GET /a HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n",
      "GET /a HTTP/1.1\r\nHost: h\r\nX-A: \xe9\r\n\r\n", // obs-text
      "GET /a HTTP/1.1\r\nHost: h\r\nX-A: a\nX-B: b\r\n\r\n", // bare LF
      "GET /a HTTP/1.1\r\nHost: h\r\nX-A: a\r\n folded\r\n\r\n", // obs-fold
      "GET /a HTTP/1.1\r\nHost: h\r\nX A: a\r\n\r\n",
      "GET /a HTTP/1.1\r\nHost: h\r\nno colon\r\n\r\n",
    ];
    for (const text of refused) assert.equal(parse(text), undefined, JSON.stringify(text));
  });
});

describe("FastPath on a plain node:http server", () => {
  let server: http.Server;
  let fast: FastPath;
  let port: number;
  let nodeRequests = 0;

  before(async () => {
    server = http.createServer((req, res) => {
      nodeRequests++;
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("latin1")));
      req.on("end", () => {
        res.setHeader("Content-Length", String(4 + body.length));
        res.end(`node${body}`);
      });
    });
    server.keepAliveTimeout = 0;
    fast = new FastPath(server, (request) =>
      request.target === "/fast" ? "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfast" : undefined,
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as net.AddressInfo).port;
  });

  after(async () => {
    fast.closeAll();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (target: string) => `GET ${target} HTTP/1.1\r\nHost: h\r\n\r\n`;
  const bodiesOf = (text: string) => [...text.matchAll(/\r\n\r\n(fast|node)/g)].map((found) => found[1]);

  test("a request it may answer never reaches node:http; the others do, in order, on the same connection", async () => {
    nodeRequests = 0;
    const text = await exchange(port, [get("/fast"), get("/fast"), get("/other"), get("/fast")]);
    // After the hand-over node:http answers everything on that connection, /fast included.
    assert.deepEqual(bodiesOf(text), ["fast", "fast", "node", "node"]);
    assert.equal(nodeRequests, 2);
  });

  test("a request split over two reads, pipelined requests and a body go to node:http whole", async () => {
    nodeRequests = 0;
    const split = await exchange(port, ["GET /fast HTTP/1.1\r\nHo", "st: h\r\n\r\n"]);
    assert.deepEqual(bodiesOf(split), ["node"]);
    const pipelined = await exchange(port, [get("/fast") + get("/fast")]);
    assert.deepEqual(bodiesOf(pipelined), ["node", "node"]);
    const body = await exchange(port, ["POST /fast HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"]);
    assert.match(body, /\r\n\r\nnodeabc$/);
    assert.equal(nodeRequests, 4);
  });

  test("a client that half-closes after its request gets the answer, then the connection ends", async () => {
    const text = await exchange(port, [get("/fast")], { gapMs: 0 });
    assert.equal(text, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfast");
  });

  test("closeAll ends the idle connections it still holds, so that the server can close", async () => {
    const ended = exchange(port, [get("/fast")], { end: false });
    await sleep(150);
    fast.closeAll();
    assert.equal(await ended, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfast");
  });
});

describe("the hook runner's direct answers", () => {
  let dir: string;
  let hooks: string;
  let runner: Runner;
  const runtimes: HooksRuntime[] = [];

  interface Runner {
    port: number;
    /** Requests node:http's path has answered. */
    nodeRequests: number;
  }

  async function startRunner(config: Partial<HooksConfig>): Promise<Runner> {
    const complete = completeConfig({ ip: "127.0.0.1", port: 0, hooks: [hooks], ...config });
    const listener = await openListener(complete);
    const runtime = createRuntime(complete, listener, await createLogger(complete));
    runtimes.push(runtime);
    await runtime.registry.load();
    await runtime.server.start();
    const started = { port: (listener.socket.address() as net.AddressInfo).port, nodeRequests: 0 };
    listener.http.on("request", () => started.nodeRequests++);
    return started;
  }

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "anvil-fast-path-"));
    hooks = path.join(dir, "hooks.json");
    const token = { source: "url", name: "token" };
    await writeFile(
      hooks,
      JSON.stringify([
        {
          id: "guarded",
          "execute-command": "/bin/true",
          "response-headers": [{ name: "X-Hook", value: "yes" }],
          "trigger-rule": { match: { type: "value", value: "secret", parameter: token } },
        },
        {
          id: "guarded-403",
          "execute-command": "/bin/true",
          "trigger-rule-mismatch-http-response-code": 403,
          "trigger-rule": { match: { type: "value", value: "secret", parameter: token } },
        },
        {
          id: "guarded-999",
          "execute-command": "/bin/true",
          "trigger-rule-mismatch-http-response-code": 999,
          "trigger-rule": { match: { type: "value", value: "secret", parameter: token } },
        },
        {
          id: "by-header",
          "execute-command": "/bin/true",
          "trigger-rule": {
            and: [
              { match: { type: "value", value: "json", parameter: { source: "payload", name: "kind" } } },
              { match: { type: "regex", regex: "^a", parameter: { source: "header", name: "X-Kind" } } },
            ],
          },
        },
        {
          id: "bad-regex",
          "execute-command": "/bin/true",
          "trigger-rule": { match: { type: "regex", regex: "(", parameter: { source: "url", name: "q" } } },
        },
        { id: "post-only", "execute-command": "/bin/true", "http-methods": ["POST"] },
        {
          id: "touch",
          "execute-command": "/usr/bin/touch",
          "response-message": "started",
          "success-http-response-code": 201,
          "response-headers": [{ name: "X-Hook", value: "yes" }],
          "pass-arguments-to-command": [{ source: "url", name: "file" }],
        },
        { id: "capture", "execute-command": "/bin/true", "include-command-output-in-response": true },
        { id: "limited", "execute-command": "/bin/true", "max-concurrency": 1 },
        {
          id: "closing",
          "execute-command": "/bin/true",
          "response-headers": [{ name: "Connection", value: "close" }],
        },
      ]),
    );
    runner = await startRunner({ headers: [{ name: "x-global", value: "global" }] });
  });

  after(async () => {
    await Promise.all(runtimes.map(closeRuntime));
    await rm(dir, { recursive: true, force: true });
  });

  /** The same request on the fast path and, with a header only node:http reads, on node:http's path. */
  async function bothPaths(requestLine: string, headers = ""): Promise<{ direct: string; node: string }> {
    const request = `${requestLine}\r\nHost: h\r\n${headers}`;
    const before = runner.nodeRequests;
    const direct = await exchange(runner.port, [`${request}\r\n`]);
    assert.equal(runner.nodeRequests, before, `${requestLine} was answered by node:http`);
    const node = await exchange(runner.port, [`${request}X-Latin1: \xe9\r\n\r\n`]);
    assert.equal(
      runner.nodeRequests,
      before + 1,
      `${requestLine} with a non-ASCII header did not reach node:http`,
    );
    return { direct: withoutDate(direct), node: withoutDate(node) };
  }

  test("answers without a command are the bytes node:http's path sends", async () => {
    const requests: [string, string?][] = [
      ["GET /hooks/no-such-hook HTTP/1.1"],
      ["GET /elsewhere HTTP/1.1"],
      ["GET /hooks/guarded?token=wrong HTTP/1.1"],
      ["POST /hooks/guarded HTTP/1.1", "Content-Length: 0\r\n"],
      ["GET /hooks/guarded-403 HTTP/1.1"],
      ["GET /hooks/guarded-999?token=nope HTTP/1.1"],
      ["GET /hooks/by-header HTTP/1.1", "Content-Type: application/json\r\nX-Kind: abc\r\n"],
      ["GET /hooks/bad-regex?q=1 HTTP/1.1"],
      ["GET /hooks/post-only HTTP/1.1"],
      ["GET /hooks/gu%61rded?token=x HTTP/1.1"],
    ];
    for (const [line, headers] of requests) {
      const { direct, node } = await bothPaths(line, headers);
      assert.equal(direct, node, line);
    }
    const mismatch = await bothPaths("GET /hooks/guarded?token=wrong HTTP/1.1");
    assert.equal(
      mismatch.direct,
      "HTTP/1.1 200 OK\r\nX-Global: global\r\nDate: <date>\r\nContent-Length: 30\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHook rules were not satisfied.",
    );
  });

  test("a hook whose command runs in the background fires on the fast path, with node:http's answer", async () => {
    const { direct, node } = await bothPaths(`GET /hooks/touch?file=${path.join(dir, "either")} HTTP/1.1`);
    assert.equal(direct, node);
    assert.match(
      direct,
      /^HTTP\/1\.1 201 Created\r\nX-Global: global\r\nX-Hook: yes\r\n[\s\S]*\r\n\r\nstarted$/,
    );
    const file = path.join(dir, "direct");
    const before = runner.nodeRequests;
    await exchange(runner.port, [`GET /hooks/touch?file=${file} HTTP/1.1\r\nHost: h\r\n\r\n`]);
    assert.equal(runner.nodeRequests, before);
    for (let i = 0; i < 100 && !(await exists(file)); i++) await sleep(20);
    assert.ok(await exists(file), "the command did not run");
  });

  test("hooks whose answer waits for the command, or that limit it, take node:http's path", async () => {
    for (const id of ["capture", "limited", "closing"]) {
      const before = runner.nodeRequests;
      const answer = await exchange(runner.port, [`GET /hooks/${id} HTTP/1.1\r\nHost: h\r\n\r\n`]);
      assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/, id);
      assert.equal(runner.nodeRequests, before + 1, `${id} was answered on the fast path`);
    }
  });

  test("with a log (-verbose, -debug, -logfile) every request takes node:http's path and is logged", async () => {
    const logfile = path.join(dir, "hooks.log");
    const logged = await startRunner({ logfile });
    const answer = await exchange(logged.port, [
      "GET /hooks/guarded?token=wrong HTTP/1.1\r\nHost: h\r\n\r\n",
    ]);
    assert.match(answer, /\r\n\r\nHook rules were not satisfied\.$/);
    assert.equal(logged.nodeRequests, 1);
    // The log file is written asynchronously.
    const line = /guarded got matched, but didn't get triggered/;
    for (let i = 0; i < 100 && !line.test(await readFile(logfile, "utf8")); i++) await sleep(20);
    assert.match(await readFile(logfile, "utf8"), line);
  });
});
