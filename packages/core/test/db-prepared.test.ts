// prepared(): a query built once and kept results on SQLite must never answer from a stale
// snapshot: not after this process writes, not after another connection commits, and inside a
// transaction it reads that transaction's own rows. RowMemo: a value derived from such rows is
// never handed out once one of its rows changed.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Generated, type Kysely, sql } from "kysely";
import type { AnyKysely } from "../src/db/database.ts";
import {
  addIdColumn,
  createDb,
  type Database,
  keptCount,
  keptRows,
  prepared,
  RowMemo,
} from "../src/db/index.ts";
import { KEPT_ROWS } from "../src/db/prepared.ts";
import { sideColumn, sideTable } from "../src/db/read-batch.ts";
import { type SnapshotToken, SnapshotWatch } from "../src/db/snapshot-watch.ts";
import { forEachDatabase } from "../src/testing/index.ts";
import { closeSession, createWebSessionTable, findSession, openSession } from "../src/web/sessions.ts";

interface Tables {
  tool: { id: Generated<number>; name: string; colour: string | null; used_at: string | null };
  tool_log: { id: Generated<number>; line: string };
}

const toolByName = prepared((db: Kysely<Tables>, name: string) =>
  db.selectFrom("tool").select(["name", "colour"]).where("name", "=", name),
);
const colourOf = async (db: Kysely<Tables>, name: string) => (await toolByName(db, name))[0]?.colour;

forEachDatabase("prepared queries", (database) => {
  let handle: Database<Tables>;
  let other: Database<Tables>;
  let db: Kysely<Tables>;
  before(async () => {
    handle = createDb<Tables>(database.url);
    db = handle.db;
    await addIdColumn(db.schema.createTable("tool"), handle.dialect)
      .addColumn("name", "text", (c) => c.notNull().unique())
      .addColumn("colour", "text")
      .addColumn("used_at", "text")
      .execute();
    // A column kept reads may show out of date, as a token's last use.
    sideColumn("tool", "used_at");
    // A table no kept read depends on, as an outbox is.
    sideTable("tool_log");
    await addIdColumn(db.schema.createTable("tool_log"), handle.dialect)
      .addColumn("line", "text", (c) => c.notNull())
      .execute();
    // A second connection to the same database, as another process would hold.
    other = createDb<Tables>(database.url);
  });
  after(async () => {
    await other.close();
    await handle.close();
  });

  test("runs with its arguments, and again with others", async () => {
    await db
      .insertInto("tool")
      .values([
        { name: "hammer", colour: "red" },
        { name: "saw", colour: "blue" },
      ])
      .execute();
    assert.equal(await colourOf(db, "hammer"), "red");
    assert.equal(await colourOf(db, "saw"), "blue");
    assert.equal(await colourOf(db, "drill"), undefined);
  });

  test("a write by this connection is seen by the next read, in the same turn too", async () => {
    assert.equal(await colourOf(db, "hammer"), "red");
    await db.updateTable("tool").set({ colour: "green" }).where("name", "=", "hammer").execute();
    assert.equal(await colourOf(db, "hammer"), "green");
    await db.insertInto("tool").values({ name: "drill", colour: "black" }).execute();
    assert.equal(await colourOf(db, "drill"), "black");
  });

  test("a commit by another connection is seen once the reading turn is over", async () => {
    assert.equal(await colourOf(db, "saw"), "blue");
    await other.db.updateTable("tool").set({ colour: "yellow" }).where("name", "=", "saw").execute();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await colourOf(db, "saw"), "yellow");
  });

  test("inside a transaction it reads that transaction's rows, and nothing of a rolled back one after", async () => {
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.updateTable("tool").set({ colour: "white" }).where("name", "=", "drill").execute();
        assert.equal(await colourOf(trx, "drill"), "white");
        throw new Error("roll back");
      }),
      /roll back/,
    );
    assert.equal(await colourOf(db, "drill"), "black");
  });

  test("reads outside a transaction do not see its rows before it commits", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written = () => {};
    const wrote = new Promise<void>((resolve) => {
      written = resolve;
    });
    const transaction = db.transaction().execute(async (trx) => {
      await trx.updateTable("tool").set({ colour: "grey" }).where("name", "=", "drill").execute();
      written();
      await held;
    });
    await wrote;
    const outside = colourOf(other.db, "drill");
    assert.equal(await outside, "black");
    release();
    await transaction;
    assert.equal(await colourOf(db, "drill"), "grey");
  });

  test("rows come back frozen, so no caller can change what others read", async () => {
    const [row] = await toolByName(db, "hammer");
    assert.ok(Object.isFrozen(row));
  });

  test("a RowMemo value is computed again once one of its rows changed, whoever changed it", async () => {
    const memo = new RowMemo<string>();
    let computed = 0;
    const describe = async (key = "k") => {
      const [hammer] = await toolByName(db, "hammer");
      const [saw] = await toolByName(db, "saw");
      return memo.get([hammer, saw], key, () => {
        computed += 1;
        return `${hammer.colour}/${saw.colour}`;
      });
    };
    const sqlite = handle.dialect === "sqlite";
    const first = await describe();
    assert.equal(await describe(), first);
    // On SQLite the rows are the same objects while nothing changed, so the value is reused;
    // elsewhere every read makes new rows and the value is computed each time.
    assert.equal(computed, sqlite ? 1 : 2);
    assert.equal(await describe("other key"), first);
    assert.equal(computed, sqlite ? 2 : 3);

    await db.updateTable("tool").set({ colour: "orange" }).where("name", "=", "saw").execute();
    assert.equal(await describe(), `${first.split("/")[0]}/orange`);
    await other.db.updateTable("tool").set({ colour: "pink" }).where("name", "=", "hammer").execute();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await describe(), "pink/orange");
  });

  test("writes to a side table leave kept results be; a write that names another table does not", async () => {
    const kept = await toolByName(db, "hammer");
    await db.insertInto("tool_log").values({ line: "sent" }).execute();
    await db.updateTable("tool_log").set({ line: "sent again" }).execute();
    const logged = await db.selectFrom("tool_log").select("line").execute();
    assert.deepEqual(
      logged.map((row) => row.line),
      ["sent again"],
      "the side table's own reads see its writes",
    );
    const again = await toolByName(db, "hammer");
    // On SQLite the kept result is handed out again; elsewhere nothing is kept.
    assert.equal(again === kept, handle.dialect === "sqlite");
    await db
      .updateTable("tool_log")
      .set({ line: "joined" })
      .where("line", "in", db.selectFrom("tool").select("name"))
      .execute();
    assert.notEqual(await toolByName(db, "hammer"), kept);
    await db.updateTable("tool").set({ colour: "grey" }).where("name", "=", "hammer").execute();
    assert.equal(await colourOf(db, "hammer"), "grey");
  });

  test("a web session's sign-in, use and sign-out leave kept results be", async () => {
    const sessions = db as unknown as AnyKysely;
    await createWebSessionTable(sessions);
    const limits = { idleSeconds: 3600, absoluteSeconds: 7200 };
    const kept = await toolByName(db, "hammer");
    const { id } = await openSession(sessions, limits, { userId: 1, persistent: false, csrfSecret: "s" });
    // Two minutes on, a use is recorded (an update of the session's row).
    assert.equal((await findSession(sessions, limits, id, Date.now() + 120_000))?.userId, 1);
    await closeSession(sessions, id);
    assert.equal((await toolByName(db, "hammer")) === kept, handle.dialect === "sqlite");
  });

  test("an update of side columns alone keeps kept results; with any other column it ends them", async () => {
    const kept = await toolByName(db, "hammer");
    await db.updateTable("tool").set({ used_at: "now" }).where("name", "=", "hammer").execute();
    assert.equal((await toolByName(db, "hammer")) === kept, handle.dialect === "sqlite");
    const used = await db.selectFrom("tool").select("used_at").where("name", "=", "hammer").execute();
    assert.deepEqual(used, [{ used_at: "now" }], "the write itself is done and seen by other reads");
    await db
      .updateTable("tool")
      .set({ used_at: "later", colour: "orange" })
      .where("name", "=", "hammer")
      .execute();
    assert.equal(await colourOf(db, "hammer"), "orange");
  });

  test("keptRows and keptCount keep a built query's rows until any write, or another connection's commit", async () => {
    const colours = (name: string) => db.selectFrom("tool").select("colour").where("name", "=", name);
    const kept = await keptRows(db, colours("saw"));
    assert.ok(Object.isFrozen(kept) && Object.isFrozen(kept[0]));
    // On PostgreSQL whatever else commits on the server (other test files) may end them at any time.
    if (handle.dialect === "sqlite") assert.equal(await keptRows(db, colours("saw")), kept);
    else assert.deepEqual(await keptRows(db, colours("saw")), kept);
    assert.notEqual(await keptRows(db, colours("hammer")), kept, "other parameters are another query");
    const all = () => db.selectFrom("tool").selectAll();
    const counted = await keptCount(db, all());
    assert.equal(await keptCount(db, all()), counted, "asked again, unchanged");
    await db.insertInto("tool").values({ name: "plane", colour: "brown" }).execute();
    assert.equal(await keptCount(db, all()), counted + 1);
    await other.db.insertInto("tool").values({ name: "file", colour: null }).execute();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await keptCount(db, all()), counted + 2, "another connection's commit counts");
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom("tool").where("name", "=", "file").execute();
      const inside = trx as Kysely<Tables>;
      assert.equal(await keptCount(inside, inside.selectFrom("tool").selectAll()), counted + 1);
      assert.equal(await keptCount(other.db, other.db.selectFrom("tool").selectAll()), counted + 2);
    });
    assert.equal(await keptCount(db, all()), counted + 1, "a committed transaction counts");
    await other.db.updateTable("tool").set({ colour: "violet" }).where("name", "=", "saw").execute();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(await keptRows(db, colours("saw")), [{ colour: "violet" }]);
    await db.transaction().execute(async (trx) => {
      await trx.updateTable("tool").set({ colour: "white" }).where("name", "=", "saw").execute();
      assert.deepEqual(
        await keptRows(trx, trx.selectFrom("tool").select("colour").where("name", "=", "saw")),
        [{ colour: "white" }],
        "a transaction reads its own rows",
      );
    });
    assert.deepEqual(await keptRows(db, colours("saw")), [{ colour: "white" }]);
  });

  test("PostgreSQL: the snapshot's token stays while nothing commits, and moves with this process's writes and others' commits", async (t) => {
    if (handle.dialect !== "postgres") return t.skip("SQLite's generation is ReadBatch's");
    const watch = new SnapshotWatch(db as AnyKysely);
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    // Other test files commit on the same server: find two checks in a row with nothing between.
    const deadline = Date.now() + 15_000;
    let steady: SnapshotToken | undefined;
    while (steady === undefined && Date.now() < deadline) {
      const first = await watch.current();
      await nextTurn();
      const second = await watch.current();
      if (first !== undefined && first === second) steady = first;
      else await new Promise((resolve) => setTimeout(resolve, first === undefined ? 200 : 5));
    }
    assert.ok(steady, "two checks in a row found the same snapshot, as one token");
    assert.equal(await watch.current(), steady, "a check of the same turn is shared");
    // A check begun before a write of this process completed is not used after it, even within
    // the turn; without a write in between, the turn's reads share one check.
    const begun = watch.current();
    watch.noteWrite();
    const anew = watch.current();
    assert.notEqual(anew, begun);
    assert.equal(watch.current(), anew);
    await Promise.all([begun, anew]);
    const before = watch.current();
    await db.insertInto("tool").values({ name: "chisel", colour: "grey" }).execute();
    watch.noteWrite();
    await before;
    const after = await watch.current();
    assert.ok(after === undefined || after !== steady, "a new check after the write sees it");
    await other.db.deleteFrom("tool").where("name", "=", "chisel").execute();
    await nextTurn();
    const afterOther = await watch.current();
    assert.ok(afterOther === undefined || (afterOther !== steady && afterOther !== after));
  });

  test("past KEPT_ROWS, keptRows lets the least recently used results go, and a write still ends them all", async (t) => {
    // On PostgreSQL whatever else commits on the server ends kept results at any time; the
    // eviction is the same code on both.
    if (handle.dialect !== "sqlite") return t.skip("kept results there depend on other commits");
    // Results of `size` rows each, `numbers(size, n)` one per n: counting from n up.
    const numbers = (size: number, n: number) =>
      db
        .withRecursive("counted(n)", (qb) =>
          qb.selectNoFrom(sql<number>`cast(${n} as integer)`.as("n")).unionAll((more) =>
            more
              .selectFrom("counted")
              .select(sql<number>`n + 1`.as("n"))
              .where("n", "<", n + size - 1),
          ),
        )
        .selectFrom("counted")
        .select("n");
    const size = KEPT_ROWS / 4;
    const sqlite = true;
    const first = await keptRows(db, numbers(size, 0));
    assert.equal(first.length, size);
    const second = await keptRows(db, numbers(size, 1));
    await keptRows(db, numbers(size, 2));
    assert.equal((await keptRows(db, numbers(size, 0))) === first, sqlite, "used again: now the most recent");
    await keptRows(db, numbers(size, 3));
    assert.equal((await keptRows(db, numbers(size, 0))) === first, sqlite, "the most recent stays");
    assert.notEqual(await keptRows(db, numbers(size, 1)), second, "the least recently used went");
    const all = await keptRows(db, numbers(KEPT_ROWS, 4));
    assert.notEqual(
      await keptRows(db, numbers(KEPT_ROWS, 4)),
      all,
      "a result larger than all kept is not kept",
    );
    assert.equal((await keptRows(db, numbers(size, 0))) === first, sqlite, "nor does it push the others out");
    await db.insertInto("tool").values({ name: "chisel", colour: "grey" }).execute();
    assert.notEqual(await keptRows(db, numbers(size, 0)), first, "a write ends them all");
  });
});
