import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Conflict, createHttpServer, createLogger, type HttpServer, Invalid, NotFound } from "@anvil/core";
import { forEachDatabase, listenLocal, type StartedApp, serviceConfig, startApp } from "@anvil/core/testing";
import { Type } from "typebox";
import { mapForgeError } from "../src/errors.ts";
import { createApp } from "../src/index.ts";
import { createUser } from "../src/services/accounts.ts";

const SWAGGER = "https://git.example.com/api/swagger";

forEachDatabase("forge: Gitea's error bodies from the running service", (database) => {
  let forge: StartedApp<ReturnType<typeof createApp>>;
  before(async () => {
    forge = await startApp(({ dataDir }) =>
      createApp(serviceConfig(dataDir, database.url, { rootUrl: "https://git.example.com/" })),
    );
  });
  after(() => forge.close());

  test("an unknown API route is Gitea's 404 with url under the root URL", async () => {
    const res = await fetch(`${forge.url}/api/v1/nothing/here`);
    assert.equal(res.status, 404);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.deepEqual(await res.json(), {
      message: "The target couldn't be found.",
      url: SWAGGER,
      errors: [],
    });
  });

  test("a known path with the wrong method is 405 with Allow", async () => {
    const res = await fetch(`${forge.url}/api/healthz`, { method: "DELETE" });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET, HEAD");
    assert.deepEqual(await res.json(), { message: "Method Not Allowed", url: SWAGGER });
  });

  test("the OpenAPI document is served where Gitea serves its own, and where error bodies point", async () => {
    for (const path of ["/swagger.v1.json", "/api/swagger"]) {
      const res = await fetch(`${forge.url}${path}`);
      assert.equal(res.status, 200);
      const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
      assert.match(doc.openapi, /^3\./);
      assert.ok("/api/healthz" in doc.paths);
      assert.ok("/api/v1/repos/{owner}/{repo}" in doc.paths, "the API's own routes are described");
    }
  });
});

describe("forge: Gitea's error bodies for each kind of failure", () => {
  let app: HttpServer;
  let base: string;
  before(async () => {
    app = await createHttpServer({
      logger: createLogger({ level: "silent" }),
      rootUrl: new URL("https://git.example.com/"),
      mapError: mapForgeError,
      bodyLimit: 256,
    });
    app.get("/missing", async () => {
      throw new NotFound("user does not exist [uid: 0, name: ghost]");
    });
    app.get("/taken", async () => {
      throw new Conflict("The repository with the same name already exists.");
    });
    app.get("/duplicate-user", async () => {
      throw new Invalid("user already exists [name: alice]");
    });
    app.get("/boom", async () => {
      throw new Error('pq: relation "user" does not exist');
    });
    app.post(
      "/orgs",
      { schema: { body: Type.Object({ username: Type.String(), full_name: Type.Optional(Type.String()) }) } },
      async () => ({}),
    );
    base = await listenLocal(app);
  });
  after(() => app.close());

  const cases: Array<[string, RequestInit | undefined, number, unknown]> = [
    [
      "/missing",
      undefined,
      404,
      { message: "user does not exist [uid: 0, name: ghost]", url: SWAGGER, errors: [] },
    ],
    [
      "/taken",
      undefined,
      409,
      { message: "The repository with the same name already exists.", url: SWAGGER },
    ],
    ["/duplicate-user", undefined, 422, { message: "user already exists [name: alice]", url: SWAGGER }],
    ["/boom", undefined, 500, { message: "", url: SWAGGER }],
    [
      "/orgs",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ full_name: "x" }),
      },
      422,
      { message: "[Username]: Required", url: SWAGGER },
    ],
    [
      "/orgs",
      { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" },
      422,
      { message: "Body is not valid JSON but content-type is set to 'application/json'", url: SWAGGER },
    ],
    [
      "/orgs",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "x".repeat(300) }),
      },
      413,
      { message: "Request body is too large", url: SWAGGER },
    ],
  ];
  for (const [path, init, status, body] of cases) {
    test(`${init?.method ?? "GET"} ${path} → ${status}`, async () => {
      const res = await fetch(`${base}${path}`, init);
      assert.equal(res.status, status);
      assert.deepEqual(await res.json(), body);
    });
  }
});

forEachDatabase("forge: page sizes are settings", (database) => {
  test("default and maximum page sizes come from the options and show in /settings/api", async () => {
    const forge = await startApp(({ dataDir }) =>
      createApp(serviceConfig(dataDir, database.url), { paging: { defaultLimit: 2, maxLimit: 3 } }),
    );
    try {
      const db = forge.app.database;
      assert.ok(db);
      for (const name of ["pa", "pb", "pc", "pd", "pe"])
        await createUser(db, { username: name, email: `${name}@example.com`, password: "password123" });
      const settings = (await (await fetch(`${forge.url}/api/v1/settings/api`)).json()) as Record<
        string,
        number
      >;
      assert.equal(settings.default_paging_num, 2);
      assert.equal(settings.max_response_items, 3);
      const byDefault = (await (await fetch(`${forge.url}/api/v1/users/search`)).json()) as {
        data: unknown[];
      };
      assert.equal(byDefault.data.length, 2);
      const clamped = await fetch(`${forge.url}/api/v1/users/search?limit=10`);
      assert.equal(((await clamped.json()) as { data: unknown[] }).data.length, 3);
      assert.equal(clamped.headers.get("x-total-count"), "5");
    } finally {
      await forge.close();
    }
  });
});
