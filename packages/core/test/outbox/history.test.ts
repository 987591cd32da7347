import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type AnyKysely, createDb, type Database } from "../../src/db/index.ts";
import {
  createOutboxTable,
  type DeliveryRequest,
  deleteDeliveries,
  getDelivery,
  listDeliveries,
  queueDelivery,
  redeliver,
  signHmacSha1Hex,
  signHmacSha256Hex,
  startOutboxWorker,
} from "../../src/outbox/index.ts";
import { forEachDatabase } from "../../src/testing/index.ts";
import { quietLogger, type Receiver, settled, startReceiver } from "./support.ts";

test("signatures are hex HMACs of the body", () => {
  const body = "The quick brown fox jumps over the lazy dog";
  assert.equal(
    signHmacSha256Hex("key", body),
    "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
  );
  assert.equal(signHmacSha1Hex("key", body), "de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9");
  assert.equal(signHmacSha256Hex("", ""), "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
});

forEachDatabase("outbox history", (database) => {
  let handle: Database;
  let db: AnyKysely;
  let receiver: Receiver;

  before(async () => {
    handle = createDb(database.url);
    db = handle.db as AnyKysely;
    await createOutboxTable(db);
    // Each service's migration calls it; calling it again changes nothing.
    await createOutboxTable(db);
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await handle.close();
  });

  const request = (
    topicId: number,
    event: string,
    fields: Partial<DeliveryRequest> = {},
  ): DeliveryRequest => ({
    topic: "thing",
    topicId,
    event,
    url: `${receiver.url}/history`,
    method: "POST",
    headers: {},
    body: `{"event":"${event}"}`,
    ...fields,
  });

  const queue = (r: DeliveryRequest) =>
    db.transaction().execute((trx) => queueDelivery(trx, handle.dialect, r));

  test("a topic's deliveries list newest first, a page at a time, and no other topic's", async () => {
    const ids = [];
    for (const event of ["one", "two", "three"]) ids.push((await queue(request(7, event))).id);
    await queue(request(8, "elsewhere"));
    await queue(request(7, "other topic", { topic: "other" }));
    const first = await listDeliveries(db, "thing", 7, { limit: 2, offset: 0 });
    assert.equal(first.total, 3);
    assert.deepEqual(
      first.rows.map((d) => d.event),
      ["three", "two"],
    );
    const second = await listDeliveries(db, "thing", 7, { limit: 2, offset: 2 });
    assert.deepEqual(
      second.rows.map((d) => [d.id, d.event, d.status, d.attempts]),
      [[ids[0], "one", "pending", 0]],
    );
    const [one] = second.rows;
    assert.equal(one.method, "POST");
    assert.equal(one.requestBody, '{"event":"one"}');
    assert.deepEqual(one.requestHeaders, {});
    assert.equal(one.responseStatus, null);
    assert.ok(one.createdAt instanceof Date);
    assert.equal((await getDelivery(db, "thing", 7, ids[1]))?.event, "two");
    // A delivery is found only under its own topic.
    assert.equal(await getDelivery(db, "thing", 8, ids[1]), undefined);
    assert.equal(await getDelivery(db, "other", 7, ids[1]), undefined);
    await db.transaction().execute((trx) => deleteDeliveries(trx, "thing", 7));
    assert.equal((await listDeliveries(db, "thing", 7, { limit: 10, offset: 0 })).total, 0);
    assert.equal((await listDeliveries(db, "thing", 8, { limit: 10, offset: 0 })).total, 1);
    await db.transaction().execute(async (trx) => {
      await deleteDeliveries(trx, "thing", 8);
      await deleteDeliveries(trx, "other", 7);
    });
  });

  test("a redelivery is a new delivery with a new UUID in its delivery headers; the original keeps its history", async () => {
    const uuid = "0d9e5a34-6a59-4e69-9a8c-2c1d2f8b8f10";
    const original = await queue(
      request(9, "push", { uuid, headers: { "x-thing-delivery": uuid, "x-thing-event": "push" } }),
    );
    const worker = startOutboxWorker({
      database: handle,
      allowedHosts: "loopback",
      logger: quietLogger,
      pollMs: 25,
    });
    try {
      worker.wake();
      const sent = await settled(db, "thing", 9, original.id);
      const again = await db
        .transaction()
        .execute((trx) => redeliver(trx, handle.dialect, { topic: "thing", topicId: 9, id: original.id }));
      assert.ok(again !== undefined && again.id !== original.id && again.uuid !== uuid);
      worker.wake();
      const resent = await settled(db, "thing", 9, again.id);
      assert.equal(resent.status, "delivered");
      assert.deepEqual(resent.requestHeaders, { "x-thing-delivery": again.uuid, "x-thing-event": "push" });
      assert.equal(resent.requestBody, sent.requestBody);
      assert.deepEqual(await getDelivery(db, "thing", 9, original.id), sent);
    } finally {
      await worker.stop();
    }
    assert.deepEqual(
      receiver.hitsTo("/history").map((hit) => hit.headers["x-thing-delivery"]),
      [uuid, (await listDeliveries(db, "thing", 9, { limit: 1, offset: 0 })).rows[0].uuid],
    );
    const missing = await db
      .transaction()
      .execute((trx) => redeliver(trx, handle.dialect, { topic: "thing", topicId: 10, id: original.id }));
    assert.equal(missing, undefined);
  });

  test("a request that could never be sent is refused when queued", async () => {
    await assert.rejects(queue(request(11, "get", { method: "GET" })), /GET delivery has no body/);
    await assert.rejects(
      queue(request(11, "bad", { method: "DELETE" as DeliveryRequest["method"] })),
      /method must be one of POST, GET, PUT/,
    );
    await assert.rejects(
      queue(request(11, "bad", { headers: { "x-bad": "line\r\nbreak" } })),
      /Invalid character/,
    );
    await assert.rejects(queue(request(11, "bad", { headers: { "bad name": "x" } })), /Header name must be/);
    assert.equal((await listDeliveries(db, "thing", 11, { limit: 10, offset: 0 })).total, 0);
  });
});
