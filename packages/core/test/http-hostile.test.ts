import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { request } from "node:http";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { Type } from "typebox";
import {
  createHttpServer,
  createLogger,
  Forbidden,
  type HttpProblem,
  type HttpServer,
  saveUploads,
} from "../src/index.ts";
import {
  listenLocal,
  type RawAnswer,
  rawBody,
  rawExchange,
  type TempDir,
  tempDir,
} from "../src/testing/index.ts";

function bodyOf(answer: RawAnswer): { problem: HttpProblem } {
  return rawBody(answer);
}

const mapProblem = (problem: HttpProblem) => ({
  status:
    problem.kind === "transport"
      ? problem.status
      : problem.kind === "route-not-found"
        ? problem.allowedMethods.length > 0
          ? 405
          : 404
        : problem.kind === "validation"
          ? 422
          : problem.kind === "domain"
            ? 403
            : 500,
  body: { problem },
});

describe("HTTP server factory: hostile requests", () => {
  let app: HttpServer;
  let base: string;
  let uploads: TempDir;
  let handled = 0;
  before(async () => {
    uploads = await tempDir("anvil-hostile-");
    app = await createHttpServer({
      logger: createLogger({ level: "silent" }),
      bodyLimit: 64 * 1024,
      uploads: { fileSize: 1024 * 1024, files: 2, fieldsSize: 4096 },
      rootUrl: new URL("http://api.test/"),
      mapError: mapProblem,
    });
    const refuse = () => {
      throw new Forbidden("no permission");
    };
    app.post("/guarded", { config: { authorize: refuse } }, async (req) => {
      handled += 1;
      return req.body;
    });
    app.post("/upload", { config: { authorize: () => undefined } }, async (req) => {
      const saved = await saveUploads(req, uploads.path);
      return { fields: saved.fields, files: saved.files.length };
    });
    app.post("/unchecked-upload", async (req) => {
      const saved = await saveUploads(req, uploads.path);
      return { fields: saved.fields, files: saved.files.length };
    });
    app.post("/echo", async (req) => ({ body: req.body ?? "absent" }));
    app.get("/users/:name", async (req) => ({ name: (req.params as { name: string }).name }));
    app.get("/search", async (req) => req.query);
    app.get("/read", async (req) => ({ body: req.body ?? "absent" }));
    app.delete("/things/:id", async (req) => ({ body: req.body ?? "absent" }));
    app.delete(
      "/emails",
      { schema: { body: Type.Object({ emails: Type.Array(Type.String()) }) } },
      async (req) => req.body,
    );
    base = await listenLocal(app);
  });
  after(async () => {
    await app.close();
    await uploads.remove();
  });

  test("a route's authorize runs before its body is read: a refused caller is answered mid-upload", async () => {
    // Headers announce a body within the limit and only its first bytes come: were the body read
    // first, no answer would come until all of it had arrived.
    const answer = await rawExchange(
      base,
      [
        "POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n",
        '{"name":"',
      ],
      2_000,
    );
    assert.match(answer.text, /^HTTP\/1\.1 403 /);
    assert.equal(bodyOf(answer).problem.kind, "domain");
    assert.equal(handled, 0);

    const form = new FormData();
    form.set("file", new Blob(["x".repeat(1000)]), "a.txt");
    const multipart = await fetch(`${base}/guarded`, { method: "POST", body: form });
    assert.equal(multipart.status, 403);
    assert.deepEqual(await readdir(uploads.path).catch(() => []), [], "no file was staged");
  });

  test("multipart text fields are limited together, not each: many small fields are a 413", async () => {
    const form = new FormData();
    for (let i = 0; i < 20; i += 1) form.set(`field${i}`, "y".repeat(1000));
    form.set("file", new Blob(["content"]), "a.txt");
    const res = await fetch(`${base}/upload`, { method: "POST", body: form });
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { problem: HttpProblem }).problem.kind, "transport");
    assert.deepEqual(await readdir(uploads.path).catch(() => []), [], "nothing was kept");

    const small = new FormData();
    small.set("a", "y".repeat(1000));
    small.set("b", "y".repeat(1000));
    const accepted = await fetch(`${base}/upload`, { method: "POST", body: small });
    assert.equal(accepted.status, 200);
  });

  test("files are staged only on a route whose permission was checked before the body", async () => {
    const form = new FormData();
    form.set("note", "kept");
    form.set("file", new Blob(["content"]), "a.txt");
    const res = await fetch(`${base}/unchecked-upload`, { method: "POST", body: form });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { fields: { note: "kept" }, files: 0 });
    assert.deepEqual(await readdir(uploads.path).catch(() => []), []);
  });

  test("a JSON body nested 10,000 deep is a malformed body, not a stack overflow", async () => {
    for (const text of [
      `{"checkout_to_type":${"[".repeat(10_000)}${"]".repeat(10_000)}}`,
      `${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`,
    ]) {
      const res = await fetch(`${base}/echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
      });
      assert.equal(res.status, 400);
      const { problem } = (await res.json()) as { problem: HttpProblem };
      assert.equal(problem.kind === "transport" && problem.reason, "malformed-json");
    }
    const shallow = await fetch(`${base}/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ a: { b: [[1, 2]] } }),
    });
    assert.deepEqual(await shallow.json(), { body: { a: { b: [[1, 2]] } } });
  });

  test("a NUL character in a path parameter names nothing; in a query or a body it is an invalid field", async () => {
    const path = await fetch(`${base}/users/root%00`);
    assert.equal(path.status, 404);
    assert.equal(((await path.json()) as { problem: HttpProblem }).problem.kind, "route-not-found");

    const invalidField = async (res: Response, field: string) => {
      assert.equal(res.status, 422);
      const { problem } = (await res.json()) as { problem: HttpProblem };
      assert.equal(problem.kind, "validation");
      assert.equal(problem.kind === "validation" && problem.issues[0].field, field);
    };
    await invalidField(await fetch(`${base}/search?q=%00`), "q");
    const post = (body: string, contentType?: string) =>
      fetch(`${base}/echo`, {
        method: "POST",
        headers: contentType ? { "content-type": contentType } : {},
        body,
      });
    await invalidField(await post('{"description":"a\\u0000b"}', "application/json"), "description");
    await invalidField(await post('{"tags":["ok","\\u0000"]}', "application/json"), "tags.1");
    await invalidField(await post('{"owner":{"a\\u0000":1}}', "application/json"), "owner");
    await invalidField(await post("name=a%00b", "application/x-www-form-urlencoded"), "name");
    const form = new FormData();
    form.set("notes", "a\u0000b");
    await invalidField(await fetch(`${base}/upload`, { method: "POST", body: form }), "notes");
  });

  test("a body on GET or DELETE is not read, whatever it holds, unless the route declares one", async () => {
    const read = await fetch(`${base}/read`, {
      method: "GET",
      headers: { "content-type": "application/json", "content-length": "9" },
    });
    assert.deepEqual(await read.json(), { body: "absent" });
    for (const [contentType, body] of [
      ["application/json", "null"],
      ["application/json", "{}"],
      ["application/json", "{not json"],
      ["text/plain", "hello"],
      ["multipart/form-data; boundary=XyZ", "--XyZ\r\nbroken"],
    ]) {
      const res = await fetch(`${base}/things/1`, {
        method: "DELETE",
        headers: { "content-type": contentType },
        body,
      });
      assert.equal(res.status, 200, `${contentType} ${body}`);
      assert.deepEqual(await res.json(), { body: "absent" });
    }
    const declared = await fetch(`${base}/emails`, {
      method: "DELETE",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ emails: ["a@example.com"] }),
    });
    assert.deepEqual(await declared.json(), { emails: ["a@example.com"] });
    // The connection that carried an ignored body still serves the next request.
    const again = await rawExchange(base, [
      'DELETE /things/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n{"a":1}\n',
      "GET /users/alice HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]);
    assert.match(again.text, /"body":"absent"[\s\S]*"name":"alice"/);
  });

  test("CONNECT is answered like any method no route has, and the connection closes after the answer", async () => {
    const known = await rawExchange(base, ["CONNECT /users/alice HTTP/1.1\r\nHost: x\r\n\r\n"]);
    assert.match(known.text, /^HTTP\/1\.1 405 /);
    assert.deepEqual(bodyOf(known).problem, {
      kind: "route-not-found",
      method: "CONNECT",
      path: "/users/alice",
      allowedMethods: ["GET", "HEAD"],
    });
    assert.equal(known.ending, "closed");

    const authority = await rawExchange(base, [
      "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    ]);
    assert.match(authority.text, /^HTTP\/1\.1 (400|404) /);
    assert.equal(authority.ending, "closed");
  });

  test("a client resetting a CONNECT it sent cannot crash the process", async () => {
    const { port } = new URL(base);
    for (let i = 0; i < 50; i += 1) {
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          socket.write("CONNECT /users/alice HTTP/1.1\r\nHost: x\r\n\r\n");
          setImmediate(() => {
            socket.resetAndDestroy();
            resolve();
          });
        });
        socket.on("error", () => {});
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await fetch(`${base}/users/alice`)).status, 200);
  });

  test("a method Node cannot parse is a 400 in the API's shape", async () => {
    const answer = await rawExchange(base, ["FOO /users/alice HTTP/1.1\r\nHost: x\r\n\r\n"]);
    assert.match(answer.text, /^HTTP\/1\.1 400 /);
    const { problem } = bodyOf(answer);
    assert.equal(problem.kind === "transport" && problem.status, 400);
    assert.equal(answer.ending, "closed");
  });

  test("a 1 MB URL on a request with a body gets its 431, and the connection closes only after it", async () => {
    const answer = await rawExchange(base, [
      `POST /echo?q=${"a".repeat(1024 * 1024)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    ]);
    assert.match(answer.text, /^HTTP\/1\.1 431 /);
    assert.equal(bodyOf(answer).problem.kind, "transport");
    assert.equal(answer.ending, "closed", "the connection ends cleanly, not with a reset");
  });

  test("HEAD with a URL over the header limit gets its 431 without a body, which would break its framing", async () => {
    const url = `${base}/users/alice?limit=${"9".repeat(34_755)}`;
    // node:http, as the fuzz suites send: it reports bytes after a HEAD answer as a parse error.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const outgoing = request(url, { method: "HEAD" }, (incoming) => {
        incoming.resume();
        incoming.on("end", () => resolve(incoming.statusCode));
      });
      outgoing.on("error", reject);
      outgoing.end();
    });
    assert.equal(status, 431);
    const get = await fetch(url);
    assert.equal(get.status, 431);
    assert.equal(
      ((await get.json()) as { problem: HttpProblem }).problem.kind,
      "transport",
      "other methods keep the API's body",
    );
  });

  test("a long URL sent in two parts, the method in the first, gets its 431 without a body", async () => {
    const { port } = new URL(base);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(`HEAD /users/alice?q=${"a".repeat(1000)}`);
        setTimeout(() => socket.write(`${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 100);
      });
      let received = "";
      socket.on("data", (data) => {
        received += data.toString("latin1");
      });
      socket.on("end", () => resolve(received));
      socket.on("error", reject);
    });
    assert.match(text, /^HTTP\/1\.1 431 /);
    assert.ok(text.endsWith("\r\n\r\n"), `no body after the head: ${text}`);
  });
});

test("with nullMeansAbsent, null members of a JSON body are not given, and a null body is {}", async () => {
  const app = await createHttpServer({
    logger: createLogger({ level: "silent" }),
    rootUrl: new URL("http://api.test/"),
    mapError: mapProblem,
    strictBodyTypes: true,
    nullMeansAbsent: true,
  });
  app.post(
    "/repos",
    {
      schema: {
        body: Type.Object({
          name: Type.String(),
          description: Type.Optional(Type.String()),
          owner: Type.Optional(Type.Object({ login: Type.Optional(Type.String()) })),
        }),
      },
    },
    async (req) => ({ body: req.body }),
  );
  app.patch(
    "/repos/:id",
    { schema: { body: Type.Object({ description: Type.Optional(Type.String()) }) } },
    async (req) => ({ body: req.body }),
  );
  const base = await listenLocal(app);
  try {
    const send = (method: string, path: string, body: string) =>
      fetch(`${base}${path}`, { method, headers: { "content-type": "application/json" }, body });
    const created = await send(
      "POST",
      "/repos",
      '{"name":"x","description":null,"owner":{"login":null},"unknown_field":1,"other":null}',
    );
    assert.equal(created.status, 200);
    assert.deepEqual(await created.json(), { body: { name: "x", owner: {}, unknown_field: 1 } });
    const required = await send("POST", "/repos", '{"name":null}');
    assert.equal(required.status, 422, "null for a required field is as if it were missing");
    const edited = await send("PATCH", "/repos/1", "null");
    assert.equal(edited.status, 200);
    assert.deepEqual(await edited.json(), { body: {} });
  } finally {
    await app.close();
  }
});
