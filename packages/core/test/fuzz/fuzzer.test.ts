import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { operationsOf } from "./openapi.ts";
import { requestRandom } from "./random.ts";
import { fuzzRequest, type Target } from "./requests.ts";
import { describeFindings, fuzzService } from "./run.ts";
import type { FuzzSettings } from "./settings.ts";

// The fuzzer itself, against small real HTTP servers with known faults: it must find them, say how
// to replay them, and find nothing on a server without faults.

const DOCUMENT = {
  openapi: "3.0.3",
  paths: {
    "/health": { get: { responses: {} } },
    "/items/{id}": {
      get: { parameters: [{ in: "path", name: "id", schema: { type: "string" } }], responses: {} },
      patch: {
        parameters: [{ in: "path", name: "id", schema: { type: "string" } }],
        requestBody: {
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { name: { type: "string" }, count: { type: "integer" } },
              },
            },
          },
        },
        responses: {},
      },
    },
  },
};

const target: Target = { adminAuthorization: "Bearer admin", validValues: () => ["1"] };

function settings(extra: Partial<FuzzSettings> = {}): FuzzSettings {
  return { seed: 42, perRoute: 40, boundMs: 1000, only: undefined, ...extra };
}

/** A status to answer, "drop" to close the connection without an answer, or nothing: no fault. */
type Fault = (
  path: string,
  body: Buffer,
  method: string,
) => number | "drop" | undefined | Promise<number | undefined>;

/** A server that reads the whole request, then does what `fault` says, or answers 404/200. */
async function serverWith(fault: Fault): Promise<{ url: string; server: Server }> {
  const server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = request.url ?? "";
    const status =
      (await fault(path, body, request.method ?? "")) ??
      (path === "/health" || path.startsWith("/items/1") ? 200 : 404);
    if (status === "drop") return void request.socket.destroy();
    response.writeHead(status, { "content-type": "application/json" }).end('{"message":"x"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`, server };
}

function run(url: string, extra: Partial<FuzzSettings> = {}) {
  return fuzzService({ url, document: DOCUMENT, target, settings: settings(extra), healthPath: "/health" });
}

function hasNul(path: string, body: Buffer): boolean {
  return path.includes("%00") || body.includes(0) || body.includes("\\u0000");
}

describe("fuzzer", () => {
  const servers: Server[] = [];
  const start = async (fault: Fault) => {
    const started = await serverWith(fault);
    servers.push(started.server);
    return started.url;
  };
  after(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

  test("the same seed gives the same requests, another seed others", () => {
    const [get, patch] = operationsOf(DOCUMENT).slice(1);
    const draw = (seed: number) =>
      Array.from({ length: 50 }, (_, index) =>
        fuzzRequest(requestRandom(seed, index), index % 2 ? get : patch, target),
      );
    assert.deepEqual(draw(42), draw(42));
    assert.notDeepEqual(draw(42), draw(43));
  });

  test("a sound server gives no finding", async () => {
    const url = await start(() => undefined);
    const result = await run(url);
    assert.equal(result.sent, 120);
    assert.deepEqual(result.findings, []);
  });

  test("a 500 on a NUL byte is found, and the report says how to send that request again", async () => {
    const url = await start((path, body) => (hasNul(path, body) ? 500 : undefined));
    const result = await run(url);
    assert.ok(result.findings.length > 0, "no NUL byte made it into a request");
    for (const finding of result.findings) {
      assert.match(finding.problem, /^answered 500/);
      assert.ok(hasNul(finding.request.path, finding.request.body ?? Buffer.alloc(0)));
    }
    const report = describeFindings(result, settings(), "some.test.ts");
    const first = result.findings[0];
    assert.ok(report.includes(`${first.operation}: answered 500 (`), report);
    assert.ok(report.includes(`#${first.index} answered 500`), report);
    assert.match(report, /ANVIL_FUZZ_SEED=42 ANVIL_FUZZ_PER_ROUTE=40 ANVIL_FUZZ_ONLY=\d+/);

    const again = await run(url, { only: new Set([first.index]) });
    assert.equal(again.sent, 1);
    assert.deepEqual(
      again.findings.map((finding) => finding.index),
      [first.index],
    );
  });

  test("a report shows a request of any size by its start, runs of a unit counted", () => {
    const body = Buffer.alloc(11 * 1024 * 1024, "a");
    const path = `/items/${"%00".repeat(400_000)}x`;
    const report = describeFindings(
      {
        sent: 1,
        findings: [
          {
            index: 7,
            operation: "PATCH /items/{id}",
            request: { method: "PATCH", path, headers: { sudo: "ab".repeat(40) }, body, auth: "admin" },
            problem: "answered 500 in 3 ms: {}",
          },
        ],
      },
      settings(),
      "some.test.ts",
    );
    assert.ok(report.includes(`PATCH /items/[%00×400000]x (${path.length} chars) [admin]`), report);
    assert.ok(report.includes(`sudo: "[ab×40] (80 chars)"`), report);
    assert.ok(
      report.includes(`body (${body.length} bytes): "[a×${body.length}] (${body.length} chars)"`),
      report,
    );
  });

  test("a handler that blocks the event loop is found", async () => {
    const url = await start((_path, body) => {
      if (body.length < 1_000_000) return undefined;
      const until = Date.now() + 1200;
      while (Date.now() < until);
      return 400;
    });
    const result = await run(url);
    assert.ok(result.findings.length > 0, "no long body was sent");
    for (const finding of result.findings) {
      assert.match(finding.problem, /no answer within 1000 ms|only after|health check/);
      assert.ok((finding.request.body?.length ?? 0) >= 1_000_000 || finding.problem.startsWith("health"));
    }
  });

  test("one slow answer alone is not a finding: the request is sent again", async () => {
    let slowOnce = true;
    const url = await start(async (_path, _body, method) => {
      if (method !== "PATCH" || !slowOnce) return undefined;
      slowOnce = false;
      await sleep(1500);
      return 400;
    });
    const result = await run(url);
    assert.equal(slowOnce, false, "no PATCH was sent");
    assert.deepEqual(result.findings, []);
  });

  test("an error answer out of the API's shape is found, when the target says what its shape is", async () => {
    const url = await start((_path, _body, method) => (method === "PATCH" ? 422 : undefined));
    const seen: string[] = [];
    const shaped = (required: string) => ({
      ...target,
      errorShape: (answer: { method: string; status: number; contentType: string; body: string }) => {
        // Node's own refusals (431 for headers over its limit) come without a body.
        if (answer.body === "") return undefined;
        seen.push(`${answer.status} ${answer.contentType} ${answer.body}`);
        return required in JSON.parse(answer.body) ? undefined : `no ${required}`;
      },
    });
    const fuzz = (required: string) =>
      fuzzService({
        url,
        document: DOCUMENT,
        target: shaped(required),
        settings: settings(),
        healthPath: "/health",
      });
    assert.deepEqual((await fuzz("message")).findings, []);
    assert.ok(seen.includes('422 application/json {"message":"x"}'), seen.join("\n"));
    const result = await fuzz("url");
    assert.ok(result.findings.length > 0);
    for (const finding of result.findings)
      assert.match(finding.problem, /^answered (404|405|422) out of shape \(no url\): \{"message":"x"\}$/);
    assert.match(
      describeFindings(result, settings(), "some.test.ts"),
      /: answered 422 out of shape \(\d+×\)/,
    );
  });

  test("a connection the server drops is found", async () => {
    const url = await start((_path, _body, method) => (method === "PATCH" ? "drop" : undefined));
    const result = await run(url);
    assert.ok(result.findings.length > 0);
    for (const finding of result.findings) {
      assert.equal(finding.request.method, "PATCH");
      assert.match(finding.problem, /^connection failed/);
    }
  });
});
