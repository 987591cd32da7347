import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

type Row = Record<string, unknown> & { id: number };

forEachInventory("inventory API: requestable assets and the account's requests", (inventory) => {
  let f: AssetFixture;
  let requester = { id: 0, token: "" };
  const rq: Record<string, number> = {};
  const as = <T = Envelope>(method: string, path: string, token = requester.token) =>
    api<T>(inventory, method, path, { token });
  const database = () => {
    const opened = inventory.server.app.database;
    if (!opened) throw new Error("no database");
    return opened.db;
  };
  const openRequests = (assetId: number) =>
    database()
      .selectFrom("checkout_requests")
      .selectAll()
      .where("requestable_id", "=", assetId)
      .where("canceled_at", "is", null)
      .execute();
  const counterOf = async (assetId: number) =>
    Number((await api<Row>(inventory, "GET", `/hardware/${assetId}`)).body.requests_counter);

  test("fixture: requestable assets under each kind of label, and one not requestable", async () => {
    f = await assetFixture(inventory, "rq");
    rq.ready = await createAsset(inventory, f, "RQ-READY", { requestable: true, name: "Spare laptop" });
    rq.pending = await createAsset(inventory, f, "RQ-PENDING", { requestable: true, status_id: f.pending });
    rq.archived = await createAsset(inventory, f, "RQ-ARCHIVED", {
      requestable: true,
      status_id: f.archived,
    });
    rq.broken = await createAsset(inventory, f, "RQ-BROKEN", {
      requestable: true,
      status_id: f.undeployable,
    });
    rq.mine = await createAsset(inventory, f, "RQ-NOT", {});
    requester = await userWithToken(inventory, "rqrequester", { "assets.view.requestable": "1" });
  });

  test("requestable/hardware lists requestable assets with a deployable or pending label", async () => {
    const list = (await as<List<Row>>("GET", "/account/requestable/hardware?sort=asset_tag&order=asc")).body;
    assert.deepEqual(
      list.rows.map((row) => row.asset_tag),
      ["RQ-PENDING", "RQ-READY"],
    );
    assert.equal(list.total, 2);
    const ready = list.rows[1];
    assert.equal(ready.name, "Spare laptop");
    assert.equal(ready.model, "rq X1");
    assert.equal(ready.status, "deployable");
    assert.equal(ready.assigned_to_self, false);
    assert.deepEqual(ready.available_actions, { cancel: false, request: true });
  });

  test("a request is recorded once, counted, logged, and shown as cancellable", async () => {
    const answer = await as("POST", `/account/request/${rq.ready}`);
    assert.deepEqual(answer.body, {
      status: "success",
      messages: "Request successfully submitted.",
      payload: null,
    });
    assert.equal((await openRequests(rq.ready)).length, 1);
    assert.equal(await counterOf(rq.ready), 1);
    const list = (await as<List<Row>>("GET", "/account/requestable/hardware?search=RQ-READY")).body;
    assert.deepEqual(list.rows[0].available_actions, { cancel: true, request: false });
    const again = await as("POST", `/account/request/${rq.ready}`);
    assert.equal((again.body as Envelope).status, "success");
    assert.equal((await openRequests(rq.ready)).length, 1, "asking twice leaves one request");
    assert.equal(await counterOf(rq.ready), 1);
  });

  test("concurrent requests of one asset by one user make one request", async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => as<Envelope>("POST", `/account/request/${rq.pending}`)),
    );
    for (const answer of answers) assert.equal(answer.body.status, "success", JSON.stringify(answer.body));
    assert.equal((await openRequests(rq.pending)).length, 1);
    assert.equal(await counterOf(rq.pending), 1);
    const logged = await database()
      .selectFrom("action_logs")
      .selectAll()
      .where("action_type", "=", "requested")
      .where("item_id", "=", rq.pending)
      .execute();
    assert.equal(logged.length, 1);
    assert.equal(logged[0].target_id, requester.id);
  });

  test("/account/requests shows the caller's open requests", async () => {
    const mine = (await as<List<Row>>("GET", "/account/requests")).body;
    assert.equal(mine.total, 2);
    assert.deepEqual(mine.rows.map((row) => row.name).sort(), ["RQ-PENDING", "Spare laptop"]);
    const row = mine.rows.find((r) => r.name === "Spare laptop") as Row;
    assert.equal(row.type, "asset");
    assert.equal(row.qty, 1);
    assert.ok(row.request_date && typeof row.request_date === "object");
    const others = (await api<List>(inventory, "GET", "/account/requests")).body;
    assert.deepEqual(others, { total: 0, rows: [] }, "the admin has asked for nothing");
  });

  test("cancel takes the request back; the asset can be asked for again", async () => {
    const answer = await as("POST", `/account/request/${rq.ready}/cancel`);
    assert.deepEqual(answer.body, {
      status: "success",
      messages: "Request successfully canceled.",
      payload: null,
    });
    assert.equal((await openRequests(rq.ready)).length, 0);
    const mine = (await as<List<Row>>("GET", "/account/requests")).body;
    assert.deepEqual(
      mine.rows.map((row) => row.name),
      ["RQ-PENDING"],
    );
    assert.equal(
      ((await as("POST", `/account/request/${rq.ready}/cancel`)).body as Envelope).status,
      "success",
    );
    assert.equal(((await as("POST", `/account/request/${rq.ready}`)).body as Envelope).status, "success");
    assert.equal((await openRequests(rq.ready)).length, 1);
  });

  test("refusals: not requestable (message in the payload), unknown asset, no permission", async () => {
    for (const id of [rq.archived, rq.broken, rq.mine])
      assert.deepEqual((await as("POST", `/account/request/${id}`)).body, {
        status: "error",
        messages: null,
        payload: "Asset is not requestable",
      });
    assert.deepEqual((await as("POST", "/account/request/99999")).body, {
      status: "error",
      messages: "Asset not found",
      payload: null,
    });
    const viewer = await userWithToken(inventory, "rqviewer", { "assets.view": "1" });
    for (const [method, path] of [
      ["GET", "/account/requestable/hardware"],
      ["POST", `/account/request/${rq.ready}`],
      ["POST", `/account/request/${rq.ready}/cancel`],
      ["GET", "/account/requests"],
    ])
      assert.equal((await as(method, path, viewer.token)).status, 403, `${method} ${path}`);
  });
});
