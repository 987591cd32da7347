import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import BetterSqlite3 from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { type AnyKysely, createDb, type Database, isUniqueViolation } from "../src/db/index.ts";
import { forEachDatabase, tempDir } from "../src/testing/index.ts";
import { addAssets, type ClaimPattern, claimPatterns, createAssetTables } from "./fixtures/db-schema.ts";
import { raceInProcesses } from "./fixtures/processes.ts";

interface Claim {
  asset: number;
  claimant: number;
}

interface ClaimOutcome {
  won: Claim[];
  errors: string[];
}

interface MigrateOutcome {
  applied: Record<string, string[]>;
  error?: string;
}

const numbers = (first: number, count: number) => Array.from({ length: count }, (_, i) => first + i);

// One race is over in well under a millisecond, sooner than two processes told to go together
// both wake up; racing for several assets keeps them overlapping. Whether a broken lock shows in a
// race still depends on timing, so the last test checks SQLite's write lock directly.
const ASSETS = 8;

forEachDatabase("claims", (database) => {
  let handle: Database;
  let db: AnyKysely;
  before(async () => {
    handle = createDb(database.url);
    db = handle.db as AnyKysely;
    await createAssetTables(handle);
  });
  after(() => handle.close());

  async function assertOneWinnerEach(assets: number[], won: Claim[]): Promise<void> {
    const rows = await db
      .selectFrom("asset")
      .select(["id", "assigned_to"])
      .where("id", "in", assets)
      .orderBy("id")
      .execute();
    const log = await db
      .selectFrom("asset_log")
      .select(["asset_id", "claimant"])
      .where("asset_id", "in", assets)
      .orderBy("asset_id")
      .execute();
    const winners = [...won].sort((a, b) => a.asset - b.asset);
    assert.deepEqual(
      winners.map((w) => w.asset),
      assets,
      "one winner per asset",
    );
    assert.deepEqual(
      rows.map((r) => ({ asset: Number(r.id), claimant: Number(r.assigned_to) })),
      winners,
    );
    assert.deepEqual(
      log.map((r) => ({ asset: Number(r.asset_id), claimant: Number(r.claimant) })),
      winners,
    );
  }

  for (const pattern of Object.keys(claimPatterns) as ClaimPattern[]) {
    test(`${pattern}: 32 concurrent claims of each asset, exactly one wins`, async () => {
      const assets = await addAssets(handle, `one process, ${pattern}`, ASSETS);
      const attempts = assets.flatMap((asset) => numbers(1, 32).map((claimant) => ({ asset, claimant })));
      const results = await Promise.all(
        attempts.map((a) => claimPatterns[pattern](handle, a.asset, a.claimant)),
      );
      await assertOneWinnerEach(
        assets,
        attempts.filter((_, i) => results[i]),
      );
    });

    test(`${pattern}: 32 claims of each asset from two processes at once, exactly one wins, none fails`, async () => {
      const assets = await addAssets(handle, `two processes, ${pattern}`, ASSETS);
      const outcomes = (await raceInProcesses([
        [database.url, "claim", pattern, "1", "16", ...assets.map(String)],
        [database.url, "claim", pattern, "17", "16", ...assets.map(String)],
      ])) as ClaimOutcome[];
      assert.deepEqual(
        outcomes.flatMap((o) => o.errors),
        [],
      );
      await assertOneWinnerEach(
        assets,
        outcomes.flatMap((o) => o.won),
      );
    });
  }

  test("a unique name is taken once; the other inserts fail as unique violations", async () => {
    const results = await Promise.allSettled(
      numbers(1, 32).map(() => db.insertInto("asset").values({ name: "wanted name" }).execute()),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    for (const result of results) {
      if (result.status === "rejected") assert.ok(isUniqueViolation(result.reason), String(result.reason));
    }
  });

  test("insert-or-increment through onConflict is atomic and returns each new value", async () => {
    await db.schema
      .createTable("counter")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("hits", "integer", (c) => c.notNull())
      .execute();
    const counters = db as Kysely<{ counter: { name: string; hits: number } }>;
    const hit = () =>
      counters
        .insertInto("counter")
        .values({ name: "downloads", hits: 1 })
        .onConflict((oc) => oc.column("name").doUpdateSet({ hits: (eb) => eb("counter.hits", "+", 1) }))
        .returning("hits")
        .executeTakeFirstOrThrow();
    const returned = await Promise.all(numbers(1, 32).map(hit));
    assert.deepEqual(
      returned.map((r) => Number(r.hits)).sort((a, b) => a - b),
      numbers(1, 32),
    );
    const final = await counters.selectFrom("counter").select("hits").executeTakeFirstOrThrow();
    assert.equal(Number(final.hits), 32);
  });
});

forEachDatabase("migrations from two processes at once", (database) => {
  test("both processes succeed and each migration is applied once", async () => {
    const rounds = 8;
    const outcomes = (await raceInProcesses([
      [database.url, "migrate", String(rounds)],
      [database.url, "migrate", String(rounds)],
    ])) as MigrateOutcome[];
    assert.deepEqual(
      outcomes.map((o) => o.error),
      [undefined, undefined],
    );
    const handle = createDb(database.url);
    try {
      const db = handle.db as AnyKysely;
      for (const round of numbers(1, rounds)) {
        const owner = `sample_${round}`;
        assert.deepEqual(
          outcomes.flatMap((o) => o.applied[owner]).sort(),
          ["0001_widgets", "0002_widget_colour"],
          owner,
        );
        const history = await db.selectFrom(`${owner}_migrations`).select("name").orderBy("name").execute();
        assert.deepEqual(
          history.map((r) => r.name),
          ["0001_widgets", "0002_widget_colour"],
        );
        await db
          .insertInto(`widget_${round}`)
          .values({ name: "w", created_at: "2026-01-01T00:00:00.000Z", colour: "red" })
          .execute();
      }
    } finally {
      await handle.close();
    }
  });
});

test("a SQLite transaction holds the write lock from its first statement, even a read", async () => {
  const dir = await tempDir();
  const handle = createDb(`sqlite:${dir.path}/lock.db`);
  // Another connection is another process as far as SQLite's locks go; with no busy timeout it
  // reports a held lock at once instead of waiting for it.
  const other = new BetterSqlite3(`${dir.path}/lock.db`, { timeout: 0 });
  try {
    await handle.db.transaction().execute(async (trx) => {
      await sql`select count(*) from sqlite_schema`.execute(trx);
      assert.throws(() => other.exec("begin immediate"), { code: "SQLITE_BUSY" });
    });
    other.exec("begin immediate");
    other.exec("rollback");
  } finally {
    other.close();
    await handle.close();
    await dir.remove();
  }
});
