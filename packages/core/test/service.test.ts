import assert from "node:assert/strict";
import { connect } from "node:net";
import { test } from "node:test";
import { sql } from "kysely";
import {
  createHttpService,
  type Database,
  type HttpServer,
  type HttpService,
  type ServiceConfig,
} from "../src/index.ts";
import { forEachDatabase, freePort, serviceConfig, startApp } from "../src/testing/index.ts";

function sampleService(
  config: ServiceConfig,
  routes: (app: HttpServer, database: Database) => void,
): HttpService {
  return createHttpService({
    name: "sample",
    config,
    migrationOwner: "sample",
    migrations: [],
    mapError: (problem) => ({ status: 500, body: { kind: problem.kind } }),
    register: routes,
  });
}

/** Sends headers announcing a body it never finishes, so the request stays in flight. */
function stuckRequest(url: string): Promise<"closed"> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.write(
    "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
  );
  return new Promise((resolve) => {
    socket.on("close", () => resolve("closed"));
    socket.on("error", () => {});
  });
}

forEachDatabase("a database-backed HTTP service", (database) => {
  test("close() lets a quick request finish but cuts one that outlives the grace period", {
    timeout: 30_000,
  }, async () => {
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const handlerEntered = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const started = await startApp(({ dataDir }) =>
      sampleService(serviceConfig(dataDir, database.url, { shutdownGraceMs: 2_000 }), (app) => {
        app.post("/slow", async () => ({ ok: true }));
        app.get("/quick", async () => {
          const finish = new Promise<void>((resolve) => {
            release = resolve;
          });
          entered();
          await finish;
          return { finished: true };
        });
      }),
    );
    const stuck = stuckRequest(started.url);
    const quick = fetch(`${started.url}/quick`);
    await handlerEntered;
    const closing = started.close();
    release();
    assert.deepEqual(await (await quick).json(), { finished: true }, "an in-flight request finishes");
    assert.equal(await stuck, "closed", "the stuck connection is closed");
    await closing;
  });

  test("close() cuts a request stuck in a database transaction once the grace period is over", {
    timeout: 30_000,
  }, async () => {
    const handlerEntered = Promise.withResolvers<void>();
    const started = await startApp(({ dataDir }) =>
      sampleService(serviceConfig(dataDir, database.url, { shutdownGraceMs: 500 }), (app, db) => {
        app.get("/stuck", async () => {
          await db.db.transaction().execute(async (trx) => {
            await sql`select 1`.execute(trx);
            handlerEntered.resolve();
            // Never ends, and never gives its database connection back.
            await new Promise(() => {});
          });
        });
      }),
    );
    fetch(`${started.url}/stuck`).catch(() => {});
    await handlerEntered.promise;
    const outcome = await Promise.race([
      started.close().then(() => "closed"),
      new Promise((resolve) => setTimeout(resolve, 10_000, "still waiting after 10 s").unref()),
    ]);
    assert.equal(outcome, "closed");
  });

  test("the root URL defaults to the listening address; a configured one wins", async () => {
    const routes = (app: HttpServer) => app.get("/where", async (req) => ({ url: req.publicUrl.href }));
    const plain = await startApp(({ dataDir }) =>
      sampleService(serviceConfig(dataDir, database.url), routes),
    );
    try {
      const res = await fetch(`${plain.url}/where?a=1`);
      assert.deepEqual(await res.json(), { url: `${plain.url}/where?a=1` });
    } finally {
      await plain.close();
    }
    const proxied = await startApp(({ dataDir }) =>
      sampleService(
        serviceConfig(dataDir, database.url, { rootUrl: "https://inventory.example.com/" }),
        routes,
      ),
    );
    try {
      const res = await fetch(`${proxied.url}/where`);
      assert.deepEqual(await res.json(), { url: "https://inventory.example.com/where" });
    } finally {
      await proxied.close();
    }
  });

  test("a request answered while the companions still start gets the listening root URL", async () => {
    const port = await freePort();
    let answered: unknown;
    const started = await startApp(({ dataDir }) =>
      createHttpService({
        name: "sample",
        config: serviceConfig(dataDir, database.url, { port }),
        migrationOwner: "sample",
        migrations: [],
        mapError: (problem) => ({ status: 500, body: { kind: problem.kind } }),
        register: (app) => {
          app.get("/where", async (req) => ({ url: req.publicUrl.href }));
        },
        // HTTP already listens here, as with the forge's SSH server starting.
        companions: [
          async () => {
            const res = await fetch(`http://127.0.0.1:${port}/where`);
            answered = { status: res.status, body: await res.json() };
            return { close: async () => {} };
          },
        ],
      }),
    );
    try {
      assert.deepEqual(answered, { status: 200, body: { url: `${started.url}/where` } });
    } finally {
      await started.close();
    }
  });
});

test("a database that refuses the connection is named in the error, password hidden", async () => {
  const service = sampleService(
    serviceConfig("/nonexistent", "postgres://anvil:hunter2@127.0.0.1:1/forge"),
    () => {},
  );
  await assert.rejects(service.listen(), (error: Error) => {
    assert.match(error.message, /^cannot connect to postgres:\/\/anvil:\*\*\*@127\.0\.0\.1:1\/forge/);
    assert.doesNotMatch(error.message, /hunter2|migration/);
    return true;
  });
});
