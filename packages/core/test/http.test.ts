import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { Type } from "typebox";
import {
  Conflict,
  createHttpServer,
  createLogger,
  type HttpProblem,
  type HttpServer,
  offsetWindow,
  pageWindow,
  paginationHeaders,
  publicUrl,
  saveUploads,
} from "../src/index.ts";
import { listenLocal, type TempDir, tempDir } from "../src/testing/index.ts";

function jsonPost(body: string, contentType = "application/json"): RequestInit {
  return { method: "POST", headers: { "content-type": contentType }, body };
}

// The mapper hands back what it was given, so each test sees exactly the problem the core passed.
describe("HTTP server factory: what the error mapper is told", () => {
  let app: HttpServer;
  let base: string;
  let uploads: TempDir;
  const logLines: string[] = [];
  before(async () => {
    uploads = await tempDir("anvil-uploads-");
    app = await createHttpServer({
      logger: createLogger({ destination: { write: (line: string) => logLines.push(line) } }),
      bodyLimit: 1024,
      uploads: { fileSize: 2048, files: 2 },
      rootUrl: new URL("https://forge.example.com/sub/"),
      mapError: (problem: HttpProblem, context) => ({
        status: problem.kind === "transport" ? problem.status : 418,
        body: { problem, rootUrl: context.rootUrl.href },
        headers: { "x-problem": problem.kind },
      }),
      openapi: { title: "test API", version: "1.0.0", paths: ["/openapi.json"] },
    });
    app.get("/conflict", async () => {
      throw new Conflict("repository already exists");
    });
    app.get("/boom", async () => {
      throw new Error("SELECT secret_column FROM internals");
    });
    app.post(
      "/typed",
      { schema: { body: Type.Object({ name: Type.String({ minLength: 1 }), size: Type.Integer() }) } },
      async (req) => ({ got: req.body.name }),
    );
    app.delete("/things/:id", async (req) => ({
      deleted: (req.params as { id: string }).id,
      body: req.body ?? null,
    }));
    app.post("/form", async (req) => req.body);
    // Files are kept only where the route's permission is checked before the body: anyone may here.
    app.post("/upload", { config: { authorize: () => undefined } }, async (req) => {
      const saved = await saveUploads(req, uploads.path);
      return { fields: saved.fields, files: saved.files.map(({ path: _path, ...rest }) => rest) };
    });
    base = await listenLocal(app);
  });
  after(async () => {
    await app.close();
    await uploads.remove();
  });

  async function problemOf(res: Response): Promise<HttpProblem> {
    return ((await res.json()) as { problem: HttpProblem }).problem;
  }

  test("a domain error arrives as `domain` with the error and the root URL", async () => {
    const res = await fetch(`${base}/conflict`);
    assert.equal(res.status, 418);
    assert.equal(res.headers.get("x-problem"), "domain");
    const body = (await res.json()) as {
      problem: { error: { kind: string; message: string } };
      rootUrl: string;
    };
    assert.equal(body.problem.error.kind, "conflict");
    assert.equal(body.rootUrl, "https://forge.example.com/sub/");
  });

  test("an unknown route and a known path with another method are told apart", async () => {
    assert.deepEqual(await problemOf(await fetch(`${base}/nope?x=1`)), {
      kind: "route-not-found",
      method: "GET",
      path: "/nope",
      allowedMethods: [],
    });
    const wrongMethod = await problemOf(await fetch(`${base}/conflict`, { method: "POST" }));
    assert.equal(wrongMethod.kind, "route-not-found");
    assert.deepEqual(wrongMethod.kind === "route-not-found" && wrongMethod.allowedMethods, ["GET", "HEAD"]);
  });

  test("schema failures arrive as `validation` with each field and rule", async () => {
    const problem = await problemOf(await fetch(`${base}/typed`, jsonPost(JSON.stringify({ name: "" }))));
    assert.equal(problem.kind, "validation");
    const issues = problem.kind === "validation" ? problem.issues : [];
    assert.ok(
      issues.some((i) => i.field === "name" && i.rule === "minLength"),
      JSON.stringify(issues),
    );
    assert.ok(
      issues.some((i) => i.field === "size" && i.rule === "required"),
      JSON.stringify(issues),
    );
  });

  test("transport failures keep their status: malformed JSON 400, too large 413, wrong media type 415", async () => {
    const bad = await fetch(`${base}/typed`, jsonPost("{nope"));
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { problem: { reason: string } }).problem.reason, "malformed-json");
    const big = await fetch(`${base}/typed`, jsonPost(JSON.stringify({ name: "x".repeat(5000), size: 1 })));
    assert.equal(big.status, 413);
    assert.equal(((await big.json()) as { problem: { reason: string } }).problem.reason, "body-too-large");
    const xml = await fetch(`${base}/typed`, jsonPost("<a/>", "application/xml"));
    assert.equal(xml.status, 415);
    assert.equal(
      ((await xml.json()) as { problem: { reason: string } }).problem.reason,
      "unsupported-media-type",
    );
  });

  test("an unexpected error reaches the mapper as a request id only, and is logged with it", async () => {
    const res = await fetch(`${base}/boom`, { headers: { "x-request-id": "req-boom-1" } });
    const text = await res.text();
    assert.doesNotMatch(text, /secret_column|SELECT|at .*\.ts/);
    assert.deepEqual(JSON.parse(text).problem, { kind: "unexpected", requestId: "req-boom-1" });
    const logged = logLines.map((line) => JSON.parse(line)).find((entry) => entry.msg === "unhandled error");
    assert.equal(logged?.reqId, "req-boom-1");
    assert.match(logged?.err?.message ?? "", /secret_column/);
  });

  test("every answer carries its request id: success, domain error, unknown route, bad body, crash", async () => {
    const answers = [
      await fetch(`${base}/things/1`, { method: "DELETE" }),
      await fetch(`${base}/conflict`),
      await fetch(`${base}/no-such-route`),
      await fetch(`${base}/typed`, jsonPost("{oops")),
      await fetch(`${base}/typed`, jsonPost(JSON.stringify({ name: "x".repeat(5000), size: 1 }))),
      await fetch(`${base}/boom`),
    ];
    const ids = answers.map((res) => res.headers.get("x-request-id"));
    for (const id of ids) assert.match(id ?? "", /^[0-9a-f-]{36}$/);
    assert.equal(new Set(ids).size, answers.length);
    const kept = await fetch(`${base}/conflict`, { headers: { "x-request-id": "client-chosen-7" } });
    assert.equal(kept.headers.get("x-request-id"), "client-chosen-7");
  });

  test("an empty JSON body (DELETE with Content-Type: application/json) is no body, not an error", async () => {
    const res = await fetch(`${base}/things/7`, {
      method: "DELETE",
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { deleted: "7", body: null });
  });

  test("form bodies are parsed as PHP does, nested keys and arrays included", async () => {
    const res = await fetch(
      `${base}/form`,
      jsonPost(
        "name=Laptop+1&ids[]=3&ids[]=4&custom[_snipeit_mac]=aa%3Abb&__proto__[x]=1",
        "application/x-www-form-urlencoded",
      ),
    );
    assert.deepEqual(await res.json(), {
      name: "Laptop 1",
      ids: ["3", "4"],
      custom: { _snipeit_mac: "aa:bb" },
    });
  });

  test("multipart uploads are stored under generated names; over the limit is a 413 that leaves nothing", async () => {
    const form = new FormData();
    form.set("note", "release notes");
    form.set("attachment", new Blob(["hello anvil"]), "../../etc/passwd");
    const res = await fetch(`${base}/upload`, { method: "POST", body: form });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(JSON.stringify(await res.json())), {
      fields: { note: "release notes" },
      files: [{ field: "attachment", filename: "passwd", mimetype: "application/octet-stream", size: 11 }],
    });
    const stored = await readdir(uploads.path);
    assert.equal(stored.length, 1);
    assert.match(stored[0], /^[0-9a-f-]{36}$/);
    assert.equal(await readFile(`${uploads.path}/${stored[0]}`, "utf8"), "hello anvil");

    const tooBig = new FormData();
    tooBig.set("small", new Blob(["ok"]), "small.txt");
    tooBig.set("large", new Blob(["x".repeat(4096)]), "large.bin");
    const refused = await fetch(`${base}/upload`, { method: "POST", body: tooBig });
    assert.equal(refused.status, 413);
    assert.deepEqual(await readdir(uploads.path), stored, "the partial upload was removed");
  });

  test("a truncated multipart body is a 400 malformed-body, not a 500", async () => {
    const res = await fetch(
      `${base}/upload`,
      jsonPost(
        '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nunfinished',
        "multipart/form-data; boundary=XyZ",
      ),
    );
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { problem: { reason: string } }).problem.reason, "malformed-body");
  });

  test("the OpenAPI document lists the routes with their schemas", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      info: { title: string };
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >;
    };
    assert.equal(doc.info.title, "test API");
    const schema = doc.paths["/typed"]?.post?.requestBody?.content["application/json"]?.schema as {
      required: string[];
    };
    assert.deepEqual(schema.required, ["name", "size"]);
    assert.ok(!("/openapi.json" in doc.paths), "the document does not list itself");
  });

  test("secret query parameters never reach the log; the rest of the URL does", async () => {
    logLines.length = 0;
    await fetch(
      `${base}/conflict?token=tok-1111&access_token=tok-2222&password=pw-3333&client_secret=s-4444&sudo=alice`,
    );
    const text = logLines.join("");
    assert.doesNotMatch(text, /tok-1111|tok-2222|pw-3333|s-4444/);
    assert.match(text, /\/conflict\?token=\[redacted\]&access_token=\[redacted\].*&sudo=alice/);
  });
});

describe("HTTP server factory: URLs and proxies", () => {
  test("request.publicUrl and Link headers are built on the root URL, not the Host header", async () => {
    const app = await createHttpServer({
      logger: createLogger({ level: "silent" }),
      rootUrl: new URL("https://git.example.com/gitea/"),
      mapError: () => ({ status: 500, body: {} }),
    });
    app.get("/api/v1/repos/search", async (req, reply) => {
      const window = pageWindow(req.query as Record<string, unknown>, { defaultLimit: 10, maxLimit: 50 });
      reply.headers(paginationHeaders(req.publicUrl, window, 95));
      return { url: req.publicUrl.href };
    });
    const base = await listenLocal(app);
    try {
      const res = await fetch(`${base}/api/v1/repos/search?page=2&limit=10&q=x`, {
        headers: { "x-forwarded-host": "evil.example" },
      });
      assert.deepEqual(await res.json(), {
        url: "https://git.example.com/gitea/api/v1/repos/search?page=2&limit=10&q=x",
      });
      assert.equal(res.headers.get("x-total-count"), "95");
      assert.equal(res.headers.get("access-control-expose-headers"), "X-Total-Count, Link");
      const link = res.headers.get("link") ?? "";
      assert.match(
        link,
        /<https:\/\/git\.example\.com\/gitea\/api\/v1\/repos\/search\?page=3&limit=10&q=x>; rel="next"/,
      );
      assert.match(link, /page=10&limit=10&q=x>; rel="last"/);
      assert.match(link, /page=1&limit=10&q=x>; rel="first"/);
    } finally {
      await app.close();
    }
  });

  test("a request target cannot move a public URL to another host", () => {
    const root = new URL("https://git.example.com/gitea/");
    assert.equal(
      publicUrl(root, "/api/v1/version?x=1").href,
      "https://git.example.com/gitea/api/v1/version?x=1",
    );
    assert.equal(
      publicUrl(root, "http://evil.example/api?x=1").href,
      "https://git.example.com/gitea/api?x=1",
    );
    assert.equal(publicUrl(root, "//evil.example/api").href, "https://git.example.com/gitea/api");
    assert.equal(publicUrl(new URL("http://h:3000"), "/a").href, "http://h:3000/a");
  });

  test("X-Forwarded-For is believed only from a trusted proxy", async () => {
    const ipOf = async (trustProxy: boolean | string[]) => {
      const app = await createHttpServer({
        logger: createLogger({ level: "silent" }),
        rootUrl: new URL("http://localhost/"),
        trustProxy,
        mapError: () => ({ status: 500, body: {} }),
      });
      app.get("/ip", async (req) => ({ ip: req.ip }));
      const base = await listenLocal(app);
      try {
        const res = await fetch(`${base}/ip`, { headers: { "x-forwarded-for": "203.0.113.9" } });
        return ((await res.json()) as { ip: string }).ip;
      } finally {
        await app.close();
      }
    };
    assert.equal(await ipOf(false), "127.0.0.1");
    assert.equal(await ipOf(["10.0.0.0/8"]), "127.0.0.1");
    assert.equal(await ipOf(["127.0.0.1"]), "203.0.113.9");
  });
});

test("page/limit and limit/offset windows", () => {
  assert.deepEqual(pageWindow({ limit: "1000", page: "-3" }, { defaultLimit: 30, maxLimit: 50 }), {
    page: 1,
    limit: 50,
    offset: 0,
  });
  const limits = { defaultLimit: 50, maxLimit: 500 };
  assert.deepEqual(offsetWindow({ limit: "20", offset: "40" }, limits), { page: 3, limit: 20, offset: 40 });
  assert.deepEqual(offsetWindow({ limit: "9999", offset: "-1" }, limits), { page: 1, limit: 500, offset: 0 });
  assert.deepEqual(offsetWindow({}, limits), { page: 1, limit: 50, offset: 0 });
});

test("body types: converted by default, refused with strictBodyTypes; query values always converted", async () => {
  const answer = async (strictBodyTypes: boolean) => {
    const app = await createHttpServer({
      logger: createLogger({ level: "silent" }),
      rootUrl: new URL("http://localhost/"),
      strictBodyTypes,
      mapError: (problem) => ({ status: 422, body: problem }),
    });
    app.post(
      "/items",
      {
        schema: {
          body: Type.Object({ count: Type.Integer() }),
          querystring: Type.Object({ page: Type.Integer() }),
        },
      },
      async (req) => ({ count: req.body.count, page: req.query.page }),
    );
    const base = await listenLocal(app);
    try {
      const res = await fetch(`${base}/items?page=2`, jsonPost(JSON.stringify({ count: "5" })));
      return {
        status: res.status,
        body: (await res.json()) as { kind?: string; issues: Array<{ field: string; rule: string }> },
      };
    } finally {
      await app.close();
    }
  };
  const lax = await answer(false);
  assert.equal(lax.status, 200);
  assert.deepEqual(lax.body, { count: 5, page: 2 });
  const strict = await answer(true);
  assert.equal(strict.status, 422);
  assert.equal(strict.body.kind, "validation");
  assert.deepEqual(
    strict.body.issues.map((i) => [i.field, i.rule]),
    [["count", "type"]],
  );
});
