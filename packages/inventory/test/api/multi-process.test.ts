import assert from "node:assert/strict";
import { before, test } from "node:test";
import { forEachDatabase, runAnvil, serviceProcessesOn } from "@anvil/core/testing";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { type ApiAnswer, api, type InventoryClient } from "../support/inventory.ts";
import { created } from "../support/items.ts";

// Several `anvil inventory serve` processes on one database, as behind a load balancer: a claim
// raced through all of them at once still succeeds exactly once, because the database decides
// (claims.ts in core), not anything one process holds in memory.

const PROCESSES = 3;
// One race is over within milliseconds, about as long as the processes take to receive the
// requests; racing for several items at once keeps the processes' transactions overlapping.
const ITEMS = 4;

forEachDatabase("inventory: claims raced over several server processes", (database) => {
  // Started together, the processes also migrate the fresh database together. The throttle is
  // off: these tests are about the claims, not the rate limit.
  const services = serviceProcessesOn(database, "inventory", PROCESSES, ["--api-throttle-per-minute", "0"]);
  let token: string;
  /** The admin's client of process `n` (round-robin). */
  const through = (n: number): InventoryClient => ({ url: services.urls[n % PROCESSES], adminToken: token });
  let admin: InventoryClient;
  let f: AssetFixture;
  let racers: number[];

  before(async () => {
    const cli = async (...args: string[]) => {
      const result = await runAnvil(["inventory", "admin", ...args, ...services.where]);
      assert.equal(result.code, 0, result.stderr);
      return result.stdout;
    };
    await cli(
      "user",
      "create",
      "--username",
      "admin",
      "--password",
      "adminpassword",
      "--email",
      "admin@example.com",
      "--superuser",
    );
    const printed = await cli("token", "create", "--username", "admin", "--name", "race");
    token = printed.trimEnd().split("\n").at(-1) as string;
    admin = through(0);
    f = await assetFixture(admin, "mp");
    racers = await Promise.all(
      Array.from({ length: 4 }, (_, n) =>
        created(through(n), "/users", {
          first_name: `Racer${n}`,
          username: `racer${n}`,
          password: "password123",
          password_confirmation: "password123",
        }),
      ),
    );
    // Every process opens its PostgreSQL connections now, so that the racing requests overlap
    // instead of queueing one behind another's new connection.
    await Promise.all(
      Array.from({ length: PROCESSES * 10 }, (_, n) => api(through(n), "GET", "/hardware?limit=1")),
    );
  });

  /**
   * Fires `clients` requests at every item together, spread round-robin over the processes, and
   * checks that for each item exactly one succeeded and every other one got `refusal`.
   */
  async function race<T>(
    items: T[],
    clients: number,
    request: (client: InventoryClient, item: T, n: number) => Promise<ApiAnswer<Envelope>>,
    refusal: (item: T) => Envelope<unknown>,
  ): Promise<void> {
    const answers = await Promise.all(
      items.flatMap((item, i) =>
        Array.from({ length: clients }, (_, n) => request(through(i * clients + n), item, n)),
      ),
    );
    assert.deepEqual(
      answers.filter((answer) => answer.status !== 200).map((answer) => [answer.status, answer.body]),
      [],
      "no request fails",
    );
    items.forEach((item, i) => {
      const own = answers.slice(i * clients, (i + 1) * clients);
      assert.equal(own.filter((answer) => answer.body.status === "success").length, 1, `one winner for ${i}`);
      for (const loser of own.filter((answer) => answer.body.status !== "success"))
        assert.deepEqual(loser.body, refusal(item));
    });
  }

  test("32 simultaneous check-outs of each asset over 3 processes: exactly one wins, one log entry", async () => {
    const tags = Array.from({ length: ITEMS }, (_, i) => `MP-RACE-${i}`);
    const ids = await Promise.all(tags.map((tag) => createAsset(admin, f, tag)));
    await race(
      tags.map((tag, i) => ({ tag, id: ids[i] })),
      32,
      (client, asset, n) =>
        api<Envelope>(client, "POST", `/hardware/${asset.id}/checkout`, {
          body: { checkout_to_type: "user", assigned_user: racers[n % racers.length] },
        }),
      (asset) => ({
        status: "error",
        messages: "That asset is not available for checkout!",
        payload: { asset: asset.tag },
      }),
    );
    for (const id of ids) {
      const log = await api<List>(admin, "GET", `/reports/activity?item_type=asset&item_id=${id}`);
      const checkouts = log.body.rows.filter((entry) => entry.action_type === "checkout");
      assert.equal(checkouts.length, 1);
      const holder = (checkouts[0].target as { id: number }).id;
      for (let n = 0; n < PROCESSES; n++) {
        const held = (await api<Record<string, unknown>>(through(n), "GET", `/hardware/${id}`)).body;
        assert.equal(held.checkout_counter, 1, `process ${n}`);
        assert.equal((held.assigned_to as { id: number }).id, holder, `process ${n}`);
      }
    }
  });

  test("the last free seat of a license claimed by 16 clients over 3 processes: exactly one wins", async () => {
    const category = await created(admin, "/categories", { name: "mp software", category_type: "license" });
    const licenses: number[] = [];
    for (let i = 0; i < ITEMS; i++) {
      const license = await created(admin, "/licenses", {
        name: `Last seat ${i}`,
        seats: 2,
        category_id: category,
      });
      const first = await api<Envelope>(admin, "POST", `/licenses/${license}/checkout`, {
        body: { assigned_to: f.userId },
      });
      assert.equal(first.body.status, "success", JSON.stringify(first.body));
      licenses.push(license);
    }
    await race(
      licenses,
      16,
      (client, license, n) =>
        api<Envelope>(client, "POST", `/licenses/${license}/checkout`, {
          body: { assigned_to: racers[n % racers.length] },
        }),
      () => ({ status: "error", messages: "Not enough license seats available for checkout", payload: null }),
    );
    for (const license of licenses) {
      const log = await api<List>(admin, "GET", `/reports/activity?item_type=license&item_id=${license}`);
      assert.equal(log.body.rows.filter((entry) => entry.action_type === "checkout").length, 2);
      for (let n = 0; n < PROCESSES; n++) {
        const shown = await api<Record<string, unknown>>(through(n), "GET", `/licenses/${license}`);
        assert.equal(shown.body.free_seats_count, 0, `process ${n}`);
      }
    }
  });
});
