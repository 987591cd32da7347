import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  Conflict,
  createHttpServer,
  createLogger,
  Forbidden,
  type HttpServer,
  Invalid,
  NotFound,
  Unauthorized,
} from "@anvil/core";
import { forEachDatabase, listenLocal, type StartedApp, serviceConfig, startApp } from "@anvil/core/testing";
import { Type } from "typebox";
import { mapInventoryError } from "../src/errors.ts";
import { createApp } from "../src/index.ts";

const ENDPOINT_NOT_FOUND = {
  status: "error",
  message: "404 endpoint not found. Please check the API reference for the endpoint and method you want.",
  payload: null,
};

forEachDatabase("inventory: Snipe-IT's error bodies from the running service", (database) => {
  let inventory: StartedApp<ReturnType<typeof createApp>>;
  before(async () => {
    inventory = await startApp(({ dataDir }) => createApp(serviceConfig(dataDir, database.url)));
  });
  after(() => inventory.close());

  test("an unknown route is 404 with the fallback route's singular `message`", async () => {
    const res = await fetch(`${inventory.url}/api/v1/hardwares`);
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), ENDPOINT_NOT_FOUND);
  });

  test("a known path with the wrong method is 405 `Method not allowed`", async () => {
    const res = await fetch(`${inventory.url}/health`, { method: "POST" });
    assert.equal(res.status, 405);
    assert.deepEqual(await res.json(), { status: "error", messages: "Method not allowed", payload: null });
  });

  test("the health check answers", async () => {
    const res = await fetch(`${inventory.url}/health`);
    assert.deepEqual(await res.json(), { status: "ok" });
  });
});

describe("inventory: Snipe-IT's error bodies for each kind of failure", () => {
  let app: HttpServer;
  let base: string;
  before(async () => {
    app = await createHttpServer({
      logger: createLogger({ level: "silent" }),
      rootUrl: new URL("http://inventory.example.com/"),
      mapError: mapInventoryError,
    });
    app.get("/hardware/999", async () => {
      throw new NotFound("Asset does not exist.");
    });
    app.post("/hardware/1/checkout", async () => {
      throw new Conflict("That asset is not available for checkout!");
    });
    app.post("/hardware", async () => {
      throw new Invalid("validation failed", { asset_tag: ["The asset tag must be unique."] });
    });
    app.get("/unauthenticated", async () => {
      throw new Unauthorized();
    });
    app.get("/denied", async () => {
      throw new Forbidden("This action is unauthorized.");
    });
    app.get("/boom", async () => {
      throw new Error("SQLSTATE[42S02]: Base table or view not found");
    });
    app.post(
      "/users",
      { schema: { body: Type.Object({ username: Type.String(), first_name: Type.String() }) } },
      async () => ({}),
    );
    base = await listenLocal(app);
  });
  after(() => app.close());

  const json = (body: string): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });

  test("domain errors are HTTP 200 with status:error, as Snipe-IT answers", async () => {
    const missing = await fetch(`${base}/hardware/999`);
    assert.equal(missing.status, 200);
    assert.deepEqual(await missing.json(), {
      status: "error",
      messages: "Asset does not exist.",
      payload: null,
    });
    const taken = await fetch(`${base}/hardware/1/checkout`, { method: "POST" });
    assert.equal(taken.status, 200);
    assert.deepEqual(await taken.json(), {
      status: "error",
      messages: "That asset is not available for checkout!",
      payload: null,
    });
    const invalid = await fetch(`${base}/hardware`, { method: "POST" });
    assert.equal(invalid.status, 200);
    assert.deepEqual(await invalid.json(), {
      status: "error",
      messages: { asset_tag: ["The asset tag must be unique."] },
      payload: null,
    });
  });

  test("X-Api-Strict-Status: 1 turns them into 404, 409 and 422 with the same body", async () => {
    const strict = { headers: { "x-api-strict-status": "1" } };
    assert.equal((await fetch(`${base}/hardware/999`, strict)).status, 404);
    assert.equal((await fetch(`${base}/hardware/1/checkout`, { method: "POST", ...strict })).status, 409);
    const invalid = await fetch(`${base}/hardware`, { method: "POST", ...strict });
    assert.equal(invalid.status, 422);
    assert.deepEqual(((await invalid.json()) as { messages: unknown }).messages, {
      asset_tag: ["The asset tag must be unique."],
    });
  });

  test("schema failures list every field, HTTP 200", async () => {
    const res = await fetch(`${base}/users`, json("{}"));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      status: "error",
      messages: {
        username: ["The username field is required."],
        first_name: ["The first_name field is required."],
      },
      payload: null,
    });
  });

  test("malformed JSON is 422 `Invalid JSON`", async () => {
    const res = await fetch(`${base}/users`, json("{oops"));
    assert.equal(res.status, 422);
    assert.deepEqual(await res.json(), { status: "error", messages: "Invalid JSON", payload: null });
  });

  test("401, 403 and 500 keep Laravel's own bodies; a 500 shows nothing of the cause", async () => {
    const unauthenticated = await fetch(`${base}/unauthenticated`);
    assert.equal(unauthenticated.status, 401);
    assert.deepEqual(await unauthenticated.json(), { error: "Unauthorized or unauthenticated." });
    const denied = await fetch(`${base}/denied`);
    assert.equal(denied.status, 403);
    assert.deepEqual(await denied.json(), { message: "This action is unauthorized." });
    const boom = await fetch(`${base}/boom`);
    assert.equal(boom.status, 500);
    assert.deepEqual(await boom.json(), { message: "Server Error" });
  });
});
