import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import { Type } from "typebox";
import {
  Conflict,
  createHttpServer,
  type DomainError,
  type HttpServer,
  httpStatusOf,
  NotFound,
  offsetWindow,
  pageWindow,
  paginationHeaders,
} from "../src/index.ts";

// A service's error shape: here Gitea's {message, url}; the status follows the error kind.
const STATUS = httpStatusOf;

describe("HTTP server factory", () => {
  let app: HttpServer;
  let base: string;
  const logLines: string[] = [];
  before(async () => {
    const logger = pino({ level: "info" }, { write: (line: string) => logLines.push(line) });
    app = createHttpServer({
      logger,
      bodyLimit: 1024,
      mapError: (error: DomainError) => ({
        status: STATUS[error.kind],
        body: { message: error.message, url: "https://example.invalid/api/swagger", errors: error.details },
      }),
    });
    app.get("/conflict", async () => {
      throw new Conflict("repository already exists");
    });
    app.get("/missing", async () => {
      throw new NotFound("user does not exist [uid: 0, name: ghost]");
    });
    app.get("/boom", async () => {
      throw new Error("internal detail that must not leak");
    });
    app.post(
      "/typed",
      { schema: { body: Type.Object({ name: Type.String({ minLength: 1 }), size: Type.Integer() }) } },
      async (req) => {
        return { got: req.body.name };
      },
    );
    app.get("/page", async (req, reply) => {
      const window = pageWindow(req.query as Record<string, unknown>, { defaultLimit: 10, maxLimit: 50 });
      reply.headers(paginationHeaders(new URL(req.url, "http://forge.test"), window, 95));
      return window;
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  after(() => app.close());

  test("a thrown domain error becomes the configured body and status", async () => {
    const res = await fetch(`${base}/conflict`);
    assert.equal(res.status, 409);
    assert.deepEqual(await res.json(), {
      message: "repository already exists",
      url: "https://example.invalid/api/swagger",
      errors: {},
    });
    const missing = await fetch(`${base}/missing`);
    assert.equal(missing.status, 404);
    assert.equal(
      ((await missing.json()) as { message: string }).message,
      "user does not exist [uid: 0, name: ghost]",
    );
  });

  test("an unknown route answers in the same shape", async () => {
    const res = await fetch(`${base}/nope?x=1`);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { message: string }).message, "GET /nope not found");
  });

  test("schema validation failures become `invalid` with field details", async () => {
    const res = await fetch(`${base}/typed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "" }),
    });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { errors: Record<string, string[]> };
    assert.ok(Object.keys(body.errors).length >= 1, JSON.stringify(body));
  });

  test("malformed JSON and oversized bodies are client errors, not 500s", async () => {
    const bad = await fetch(`${base}/typed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    assert.equal(bad.status, 422);
    const big = await fetch(`${base}/typed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(5000), size: 1 }),
    });
    assert.equal(big.status, 422);
    assert.match(((await big.json()) as { message: string }).message, /too large/i);
  });

  test("an unexpected error is a 500 without internals", async () => {
    const res = await fetch(`${base}/boom`);
    assert.equal(res.status, 500);
    const text = await res.text();
    assert.doesNotMatch(text, /internal detail/);
    assert.ok(
      logLines.some((line) => line.includes("internal detail that must not leak")),
      "the cause is logged for the operator",
    );
  });

  test("request ids: a sane client id is echoed, otherwise one is generated", async () => {
    const kept = await fetch(`${base}/conflict`, { headers: { "x-request-id": "abc-123" } });
    assert.equal(kept.headers.get("x-request-id"), "abc-123");
    const replaced = await fetch(`${base}/conflict`, { headers: { "x-request-id": "bad id\twith spaces" } });
    assert.match(replaced.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  });

  test("page/limit pagination sets Link and X-Total-Count", async () => {
    const res = await fetch(`${base}/page?page=2&limit=10&q=x`);
    assert.deepEqual(await res.json(), { page: 2, limit: 10, offset: 10 });
    assert.equal(res.headers.get("x-total-count"), "95");
    const link = res.headers.get("link") ?? "";
    assert.match(link, /<http:\/\/forge\.test\/page\?page=3&limit=10&q=x>; rel="next"/);
    assert.match(link, /page=10&limit=10&q=x>; rel="last"/);
    assert.match(link, /page=1&limit=10&q=x>; rel="first"/);
    assert.match(link, /page=1&limit=10&q=x>; rel="prev"/);
    const clamped = await fetch(`${base}/page?limit=1000&page=-3`);
    assert.deepEqual(await clamped.json(), { page: 1, limit: 50, offset: 0 });
  });

  test("limit/offset windows, as Snipe-IT pages", () => {
    const limits = { defaultLimit: 50, maxLimit: 500 };
    assert.deepEqual(offsetWindow({ limit: "20", offset: "40" }, limits), { page: 3, limit: 20, offset: 40 });
    assert.deepEqual(offsetWindow({ limit: "9999", offset: "-1" }, limits), {
      page: 1,
      limit: 500,
      offset: 0,
    });
    assert.deepEqual(offsetWindow({}, limits), { page: 1, limit: 50, offset: 0 });
  });
});
