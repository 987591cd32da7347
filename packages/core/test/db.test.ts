import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import {
  type AnyKysely,
  containsText,
  countRows,
  createDb,
  type Database,
  migrate,
  type NamedMigration,
  parseDatabaseUrl,
  readTime,
  redactUrl,
  toStoredTime,
} from "../src/index.ts";
import { forEachDatabase } from "../src/testing/index.ts";
import { sampleMigrations } from "./fixtures/db-schema.ts";

forEachDatabase("createDb and migrate", (database) => {
  let handle: Database;
  before(() => {
    handle = createDb(database.url);
  });
  after(() => handle.close());

  test("applies the migrations once; a second run is a no-op", async () => {
    const first = await migrate(handle.db as AnyKysely, "sample", sampleMigrations(handle.dialect));
    assert.deepEqual(first.applied, ["0001_widgets", "0002_widget_colour"]);
    const second = await migrate(handle.db as AnyKysely, "sample", sampleMigrations(handle.dialect));
    assert.deepEqual(second.applied, []);
  });

  test("one query set works on the dialect: ids, timestamps, counts, case-insensitive search", async () => {
    const db = handle.db as AnyKysely;
    const when = new Date("2026-01-02T03:04:05.678Z");
    for (const name of ["Hammer", "Anvil", "Tongs 50%"]) {
      await db
        .insertInto("widget")
        .values({ name, created_at: toStoredTime(when, handle.dialect) })
        .execute();
    }
    const rows = await db.selectFrom("widget").selectAll().orderBy("id").execute();
    assert.deepEqual(
      rows.map((r) => [Number(r.id), r.name]),
      [
        [1, "Hammer"],
        [2, "Anvil"],
        [3, "Tongs 50%"],
      ],
    );
    assert.equal(readTime(rows[0].created_at).toISOString(), when.toISOString());
    assert.equal(await countRows(db, db.selectFrom("widget").selectAll()), 3);
    const found = await db
      .selectFrom("widget")
      .select("name")
      .where(containsText(handle.dialect, sql.ref("name"), "ANV"))
      .execute();
    assert.deepEqual(found, [{ name: "Anvil" }]);
    // A % typed by a user is a literal, not a wildcard.
    const literal = await db
      .selectFrom("widget")
      .select("name")
      .where(containsText(handle.dialect, sql.ref("name"), "0%"))
      .execute();
    assert.deepEqual(literal, [{ name: "Tongs 50%" }]);
    await assert.rejects(
      db
        .insertInto("widget")
        .values({ name: "Anvil", created_at: toStoredTime(when, handle.dialect) })
        .execute(),
    );
    assert.equal(await countRows(db, db.selectFrom("widget").selectAll()), 3);
  });

  test("a failing migration names itself and leaves nothing half-applied", async () => {
    const broken: NamedMigration[] = [
      ...sampleMigrations(handle.dialect),
      {
        name: "0003_broken",
        up: async (db: AnyKysely) => {
          await db.schema.createTable("gadget").addColumn("id", "integer").execute();
          await sql`select * from no_such_table`.execute(db);
        },
      },
    ];
    await assert.rejects(migrate(handle.db as AnyKysely, "sample", broken), /sample migration 0003_broken/);
    // Both databases run each migration in a transaction, so the table made before the failure is gone.
    await assert.rejects(sql`select * from gadget`.execute(handle.db as AnyKysely));
  });
});

test("database URLs: accepted forms and clear errors", () => {
  assert.deepEqual(parseDatabaseUrl("sqlite:./data/forge.db"), {
    dialect: "sqlite",
    location: "./data/forge.db",
  });
  assert.deepEqual(parseDatabaseUrl("sqlite::memory:"), { dialect: "sqlite", location: ":memory:" });
  assert.equal(parseDatabaseUrl("postgres://u@h:5432/d").dialect, "postgres");
  assert.throws(
    () => parseDatabaseUrl("mysql://root:hunter2@h/d"),
    (e: Error) => {
      assert.match(e.message, /not supported/);
      assert.doesNotMatch(e.message, /hunter2/);
      return true;
    },
  );
  assert.throws(() => parseDatabaseUrl("sqlite:"), /names no file/);
  assert.equal(redactUrl("postgres://bob:s3cret@db:5432/x"), "postgres://bob:***@db:5432/x");
});

test("SQLite runs in WAL mode with foreign keys on", async () => {
  const { tempDir } = await import("../src/testing/index.ts");
  const dir = await tempDir();
  const handle = createDb(`sqlite:${dir.path}/nested/x.db`);
  try {
    const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(handle.db);
    assert.equal(mode.rows[0].journal_mode, "wal");
    const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(handle.db);
    assert.equal(fk.rows[0].foreign_keys, 1);
  } finally {
    await handle.close();
    await dir.remove();
  }
});
