import assert from "node:assert/strict";
import dns from "node:dns";
import net from "node:net";
import { after, before, test } from "node:test";
import { type AnyKysely, createDb, type Database, toStoredTime } from "../../src/db/index.ts";
import { createLogger } from "../../src/log/index.ts";
import {
  createOutboxTable,
  type DeliveryRequest,
  listDeliveries,
  type OutboxWorkerOptions,
  queueDelivery,
  startOutboxWorker,
} from "../../src/outbox/index.ts";
import { forEachDatabase, freePort, tempDir, waitFor } from "../../src/testing/index.ts";
import { quietLogger, type Receiver, settled, sleep, startReceiver } from "./support.ts";

const TOPIC = "thing";

forEachDatabase("outbox worker", (database) => {
  let handle: Database;
  let db: AnyKysely;
  let receiver: Receiver;
  let nextTopicId = 1;

  before(async () => {
    handle = createDb(database.url);
    db = handle.db as AnyKysely;
    await createOutboxTable(db);
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await handle.close();
  });

  function request(path: string, fields: Partial<DeliveryRequest> = {}): DeliveryRequest {
    return {
      topic: TOPIC,
      topicId: nextTopicId,
      event: "changed",
      url: `${receiver.url}${path}`,
      method: "POST",
      headers: { "content-type": "application/json", "x-test-event": "changed" },
      body: JSON.stringify({ path }),
      ...fields,
    };
  }

  async function queue(...requests: DeliveryRequest[]) {
    return db.transaction().execute(async (trx) => {
      const queued = [];
      for (const r of requests) queued.push(await queueDelivery(trx, handle.dialect, r));
      return queued;
    });
  }

  async function withWorker<T>(
    options: Partial<OutboxWorkerOptions>,
    body: (wake: () => void) => Promise<T>,
    on: Database = handle,
  ): Promise<T> {
    const worker = startOutboxWorker({
      database: on,
      allowedHosts: "loopback",
      logger: quietLogger,
      timeoutMs: 2000,
      retries: [],
      pollMs: 25,
      ...options,
    });
    try {
      return await body(worker.wake);
    } finally {
      await worker.stop();
    }
  }

  test("a committed delivery is sent once, with its method, headers and body, and its answer kept", async () => {
    nextTopicId++;
    receiver.on("/once", (_request, response) =>
      response.writeHead(202, { "x-answer": "kept" }).end("accepted,\0 thanks"),
    );
    const [post, put, get] = await queue(
      request("/once", { uuid: "3b0bd7ab-4b8a-4bfa-8d21-1e0a6f3b7e11", headers: { "x-id": "3b0bd7ab" } }),
      request("/once", { method: "PUT" }),
      request("/once?payload=%7B%7D", { method: "GET", body: "" }),
    );
    assert.equal(post.uuid, "3b0bd7ab-4b8a-4bfa-8d21-1e0a6f3b7e11");
    assert.match(put.uuid, /^[0-9a-f-]{36}$/);
    await withWorker({}, async (wake) => {
      wake();
      const delivered = await settled(db, TOPIC, nextTopicId, post.id);
      assert.equal(delivered.status, "delivered");
      assert.equal(delivered.isSucceed, true);
      assert.equal(delivered.attempts, 1);
      assert.equal(delivered.responseStatus, 202);
      assert.equal(delivered.responseBody, "accepted,\uFFFD thanks");
      assert.equal(delivered.responseHeaders?.["x-answer"], "kept");
      assert.equal(delivered.error, null);
      assert.ok(delivered.deliveredAt instanceof Date && delivered.durationMs !== null);
      for (const other of [put, get]) {
        assert.equal((await settled(db, TOPIC, nextTopicId, other.id)).status, "delivered");
      }
      // Several more polls send nothing again.
      await sleep(250);
    });
    const hits = receiver.hitsTo("/once");
    assert.deepEqual(hits.map((hit) => hit.method).sort(), ["GET", "POST", "PUT"]);
    const postHit = hits.find((hit) => hit.method === "POST");
    assert.equal(postHit?.headers["x-id"], "3b0bd7ab");
    assert.equal(postHit?.body, JSON.stringify({ path: "/once" }));
    assert.equal(hits.find((hit) => hit.method === "GET")?.body, "");
  });

  test("a delivery queued in a transaction that rolls back is never sent", async () => {
    nextTopicId++;
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await queueDelivery(trx, handle.dialect, request("/rolled-back"));
        throw new Error("the change failed");
      }),
      /the change failed/,
    );
    const [committed] = await queue(request("/committed"));
    await withWorker({}, async (wake) => {
      wake();
      await settled(db, TOPIC, nextTopicId, committed.id);
      await sleep(150);
    });
    assert.equal(receiver.hitsTo("/rolled-back").length, 0);
    assert.equal(receiver.hitsTo("/committed").length, 1);
  });

  test("an unreachable receiver is retried after each wait, then the delivery fails with the reason", async () => {
    nextTopicId++;
    const port = await freePort();
    const [queued] = await queue(request("", { url: `http://127.0.0.1:${port}/down` }));
    // The first wait is long enough for the test's polls (every 100 ms) to see the row between attempts.
    const failed = await withWorker({ retries: [1000, 200] }, async (wake) => {
      wake();
      // Between attempts the row waits for its time to come, unclaimed.
      const waiting = await waitFor("the first attempt's result", async () => {
        const rows = await db.selectFrom("outbox_delivery").selectAll().where("id", "=", queued.id).execute();
        return rows[0].attempts === 1 && rows[0].error !== null ? rows[0] : undefined;
      });
      assert.equal(waiting.status, "pending");
      assert.equal(waiting.claimed_until, null);
      return settled(db, TOPIC, nextTopicId, queued.id);
    });
    assert.equal(failed.status, "failed");
    assert.equal(failed.isSucceed, false);
    assert.equal(failed.attempts, 3);
    assert.match(failed.error ?? "", /ECONNREFUSED/);
    assert.equal(failed.responseStatus, null);
    assert.ok(Date.now() - failed.createdAt.getTime() >= 1200, "the back-off waits were kept");
  });

  test("a receiver answering 500 is retried until it answers 2xx; one that keeps failing fails", async () => {
    nextTopicId++;
    let answers = 0;
    receiver.on("/flaky", (_request, response) => {
      answers++;
      response.writeHead(answers < 3 ? 500 : 200).end(answers < 3 ? "try later" : "ok now");
    });
    receiver.on("/broken", (_request, response) => response.writeHead(500).end("broken for good"));
    const [flaky, broken] = await queue(request("/flaky"), request("/broken"));
    await withWorker({ retries: [30, 30] }, async (wake) => {
      wake();
      const delivered = await settled(db, TOPIC, nextTopicId, flaky.id);
      assert.equal(delivered.status, "delivered");
      assert.equal(delivered.attempts, 3);
      assert.equal(delivered.responseBody, "ok now");
      const failed = await settled(db, TOPIC, nextTopicId, broken.id);
      assert.equal(failed.status, "failed");
      assert.equal(failed.attempts, 3);
      assert.equal(failed.responseStatus, 500);
      assert.equal(failed.responseBody, "broken for good");
    });
    assert.equal(receiver.hitsTo("/flaky").length, 3);
    assert.equal(receiver.hitsTo("/broken").length, 3);
  });

  test("a receiver that never answers times out without holding up the other deliveries", async () => {
    nextTopicId++;
    receiver.on("/hang", () => {});
    receiver.on("/big", (_request, response) => response.writeHead(200).end("x".repeat(200 * 1024)));
    const [hanging] = await queue(request("/hang"));
    const quick = await queue(request("/quick"), request("/quick"), request("/big"));
    // Long enough for the three quick ones to go through the other slot first on a machine as
    // loaded as CI's (seven took over 4 s there).
    await withWorker({ timeoutMs: 6000, concurrency: 2 }, async (wake) => {
      wake();
      for (const q of quick) assert.equal((await settled(db, TOPIC, nextTopicId, q.id)).status, "delivered");
      const stuck = await db
        .selectFrom("outbox_delivery")
        .select("status")
        .where("id", "=", hanging.id)
        .executeTakeFirstOrThrow();
      assert.equal(stuck.status, "pending", "the others were delivered while the hanging one waited");
      const timedOut = await settled(db, TOPIC, nextTopicId, hanging.id);
      assert.equal(timedOut.status, "failed");
      assert.match(timedOut.error ?? "", /timed out after 6000 ms/);
      assert.ok((timedOut.durationMs ?? 0) >= 5900);
    });
    const big = await settled(db, TOPIC, nextTopicId, quick[quick.length - 1].id);
    assert.equal(big.responseBody?.length, 64 * 1024);
  });

  test("a target outside the allowed hosts is never contacted, and fails at once with the reason", async () => {
    nextTopicId++;
    const [byAddress, byName] = await queue(
      request("/refused"),
      request("", { url: "http://localhost:9/refused" }),
    );
    await withWorker({ allowedHosts: "external", retries: [10, 10] }, async (wake) => {
      wake();
      const refused = await settled(db, TOPIC, nextTopicId, byAddress.id);
      assert.equal(refused.status, "failed");
      assert.equal(refused.attempts, 1);
      assert.equal(refused.responseStatus, null);
      assert.equal(refused.error, "127.0.0.1 is not an allowed host");
      const named = await settled(db, TOPIC, nextTopicId, byName.id);
      assert.equal(named.attempts, 1);
      assert.match(named.error ?? "", /^localhost \((127\.0\.0\.1|::1)\) is not an allowed host$/);
    });
    assert.equal(receiver.hitsTo("/refused").length, 0);
  });

  test("a host name is resolved once: the request goes to the addresses that were checked", async () => {
    nextTopicId++;
    const port = new URL(receiver.url).port;
    // .test names resolve nowhere: only the stub knows them, so a second resolution would fail.
    const answers: Record<string, dns.LookupAddress[]> = {
      "checked.test": [{ address: "127.0.0.1", family: 4 }],
      "mixed.test": [
        { address: "127.0.0.1", family: 4 },
        { address: "10.0.0.1", family: 4 },
      ],
    };
    const lookups: string[] = [];
    const realLookup = dns.promises.lookup;
    dns.promises.lookup = (async (host: string) => {
      lookups.push(host);
      return answers[host] ?? [];
    }) as unknown as typeof dns.promises.lookup;
    try {
      const [checked, mixed] = await queue(
        request("", { url: `http://checked.test:${port}/checked` }),
        request("", { url: `http://mixed.test:${port}/mixed` }),
      );
      // On this thread, where the stubbed resolver applies.
      await withWorker({ inThread: false }, async (wake) => {
        wake();
        assert.equal((await settled(db, TOPIC, nextTopicId, checked.id)).status, "delivered");
        const refused = await settled(db, TOPIC, nextTopicId, mixed.id);
        assert.equal(refused.error, "mixed.test (10.0.0.1) is not an allowed host");
      });
    } finally {
      dns.promises.lookup = realLookup;
    }
    assert.deepEqual(lookups.sort(), ["checked.test", "mixed.test"]);
    assert.equal(receiver.hitsTo("/checked")[0]?.headers.host, `checked.test:${port}`);
    assert.equal(receiver.hitsTo("/mixed").length, 0);
  });

  test("connections are kept alive per host and checked address, never shared between hosts", async () => {
    nextTopicId++;
    const port = new URL(receiver.url).port;
    const realLookup = dns.promises.lookup;
    dns.promises.lookup = (async (host: string) =>
      host === "kept.test"
        ? [{ address: "127.0.0.1", family: 4 }]
        : []) as unknown as typeof dns.promises.lookup;
    try {
      const queued = await queue(
        ...Array.from({ length: 6 }, (_, i) =>
          request("", {
            url: i % 2 === 0 ? `${receiver.url}/by-address` : `http://kept.test:${port}/by-name`,
          }),
        ),
      );
      await withWorker({ concurrency: 1, inThread: false }, async (wake) => {
        wake();
        for (const q of queued)
          assert.equal((await settled(db, TOPIC, nextTopicId, q.id)).status, "delivered");
      });
    } finally {
      dns.promises.lookup = realLookup;
    }
    const byAddress = new Set(receiver.hitsTo("/by-address").map((hit) => hit.connection));
    const byName = new Set(receiver.hitsTo("/by-name").map((hit) => hit.connection));
    assert.equal(byAddress.size, 1, "three deliveries, one after the other, on one connection");
    assert.equal(byName.size, 1);
    assert.notDeepEqual([...byAddress], [...byName], "the other host's connection is not reused");
  });

  test("a kept connection the receiver dropped is tried again once, on a new connection", async () => {
    nextTopicId++;
    let requests = 0;
    const answered = new WeakSet<net.Socket>();
    // Answers the first request of each connection and keeps it open; a second request on one is
    // dropped unanswered, as by a receiver that closed the connection while it was idle.
    const server = net.createServer((socket) => {
      socket.on("data", () => {
        requests++;
        if (answered.has(socket)) return socket.destroy();
        answered.add(socket);
        socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const queued = await queue(
        request("", { url: `http://127.0.0.1:${port}/first` }),
        request("", { url: `http://127.0.0.1:${port}/second` }),
      );
      await withWorker({ concurrency: 1, inThread: false }, async (wake) => {
        wake();
        for (const q of queued) {
          const delivery = await settled(db, TOPIC, nextTopicId, q.id);
          assert.equal(delivery.status, "delivered");
          assert.equal(delivery.attempts, 1);
        }
      });
    } finally {
      server.close();
    }
    assert.equal(requests, 3, "the second delivery went on the kept connection, then on a new one");
  });

  test("a redirect is not followed: it is a failed answer", async () => {
    nextTopicId++;
    receiver.on("/moved", (_request, response) =>
      response.writeHead(302, { location: `${receiver.url}/moved-here` }).end(),
    );
    const [moved] = await queue(request("/moved"));
    await withWorker({}, async (wake) => {
      wake();
      const failed = await settled(db, TOPIC, nextTopicId, moved.id);
      assert.equal(failed.status, "failed");
      assert.equal(failed.responseStatus, 302);
      assert.equal(failed.error, "redirects are not followed");
      assert.equal(failed.responseHeaders?.location, `${receiver.url}/moved-here`);
    });
    assert.equal(receiver.hitsTo("/moved").length, 1);
    assert.equal(receiver.hitsTo("/moved-here").length, 0);
  });

  test("two workers on two connections deliver each of 100 rows exactly once", async () => {
    nextTopicId++;
    receiver.on("/shared", (_request, response) => {
      setTimeout(() => response.writeHead(200).end("ok"), 10);
    });
    const queued = await queue(
      ...Array.from({ length: 100 }, (_, i) => request("/shared", { headers: { "x-row": String(i) } })),
    );
    const second = createDb(database.url);
    try {
      await withWorker({ concurrency: 4 }, (wakeFirst) =>
        withWorker(
          { concurrency: 4 },
          async (wakeSecond) => {
            wakeFirst();
            wakeSecond();
            for (const q of queued) {
              assert.equal((await settled(db, TOPIC, nextTopicId, q.id)).status, "delivered");
            }
            await sleep(200);
          },
          second,
        ),
      );
    } finally {
      await second.close();
    }
    const rows = receiver.hitsTo("/shared").map((hit) => hit.headers["x-row"]);
    assert.equal(rows.length, 100);
    assert.equal(new Set(rows).size, 100);
    const workers = await db
      .selectFrom("outbox_delivery")
      .select("claimed_by")
      .distinct()
      .where("topic_id", "=", nextTopicId)
      .execute();
    assert.equal(workers.length, 2, "both workers delivered some");
  });

  test("a delivery claimed by a process that died is sent once its claim lapses; a live claim is left alone", async () => {
    nextTopicId++;
    const [abandoned, held] = await queue(request("/abandoned"), request("/held"));
    const claim = async (id: number, until: Date) =>
      db
        .updateTable("outbox_delivery")
        .set({ claimed_until: toStoredTime(until, handle.dialect), claimed_by: "dead:1:x", attempts: 1 })
        .where("id", "=", id)
        .execute();
    await claim(abandoned.id, new Date(Date.now() - 1000));
    await claim(held.id, new Date(Date.now() + 60_000));
    await withWorker({ retries: [10] }, async (wake) => {
      wake();
      const delivered = await settled(db, TOPIC, nextTopicId, abandoned.id);
      assert.equal(delivered.status, "delivered");
      assert.equal(delivered.attempts, 2);
      await sleep(200);
      assert.equal(receiver.hitsTo("/held").length, 0);
      await claim(held.id, new Date(Date.now() - 1));
      wake();
      assert.equal((await settled(db, TOPIC, nextTopicId, held.id)).status, "delivered");
    });
    assert.equal(receiver.hitsTo("/abandoned").length, 1);
    assert.equal(receiver.hitsTo("/held").length, 1);
  });

  test("a result whose claim another worker took meanwhile is not written over that claim", async () => {
    nextTopicId++;
    let answer: (() => void) | undefined;
    receiver.on("/taken", (_request, response) => {
      answer = () => response.writeHead(200).end("late");
    });
    const [taken, kept] = await queue(request("/taken"), request("/kept"));
    await withWorker({ concurrency: 2 }, async (wake) => {
      wake();
      assert.equal((await settled(db, TOPIC, nextTopicId, kept.id)).status, "delivered");
      // The claim lapsed while the receiver sat on the request, and another process took it.
      await db
        .updateTable("outbox_delivery")
        .set({
          claimed_by: "other:1:x",
          claimed_until: toStoredTime(new Date(Date.now() + 60_000), handle.dialect),
        })
        .where("id", "=", taken.id)
        .execute();
      const respond = await waitFor("the receiver to hold the request", async () => answer, 10_000);
      respond();
      // Another delivery after it, so the late result has surely been settled beside it.
      const [after] = await queue(request("/kept"));
      wake();
      assert.equal((await settled(db, TOPIC, nextTopicId, after.id)).status, "delivered");
    });
    const row = await db
      .selectFrom("outbox_delivery")
      .select(["status", "claimed_by", "response_status"])
      .where("id", "=", taken.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: "pending", claimed_by: "other:1:x", response_status: null });
  });

  test("sent and failed deliveries older than the history's span are swept; pending ones stay", async () => {
    nextTopicId++;
    const [sent, failed, pending, recent] = await queue(
      request("/old-sent"),
      request("/old-failed"),
      request("/old-pending"),
      request("/recent"),
    );
    const longAgo = toStoredTime(new Date(Date.now() - 3_600_000), handle.dialect);
    await db
      .updateTable("outbox_delivery")
      .set({ status: "delivered", created_at: longAgo })
      .where("id", "=", sent.id)
      .execute();
    await db
      .updateTable("outbox_delivery")
      .set({ status: "failed", created_at: longAgo })
      .where("id", "=", failed.id)
      .execute();
    await db
      .updateTable("outbox_delivery")
      .set({ created_at: longAgo })
      .where("id", "=", pending.id)
      .execute();
    await withWorker({ keepMs: 60_000 }, async (wake) => {
      wake();
      assert.equal((await settled(db, TOPIC, nextTopicId, pending.id)).status, "delivered");
      assert.equal((await settled(db, TOPIC, nextTopicId, recent.id)).status, "delivered");
    });
    const left = await listDeliveries(db, TOPIC, nextTopicId, { limit: 10, offset: 0 });
    assert.deepEqual(
      left.rows.map((d) => d.id),
      [recent.id, pending.id],
    );
  });
});

test("a database that fails is logged, never an unhandled rejection, and stop still resolves", async () => {
  const lines: string[] = [];
  const logger = createLogger({ level: "error", destination: { write: (line: string) => lines.push(line) } });
  const dir = await tempDir("anvil-outbox-");
  // A database without the outbox table: every poll fails.
  const broken = createDb(`sqlite:${dir.path}/empty.db`);
  try {
    const worker = startOutboxWorker({ database: broken, allowedHosts: "loopback", logger, pollMs: 10 });
    await sleep(100);
    worker.wake();
    await worker.stop();
  } finally {
    await broken.close();
    await dir.remove();
  }
  assert.ok(lines.length > 1, "every poll failed and was logged");
  assert.match(JSON.parse(lines[0]).msg, /polling for deliveries failed/);
});
