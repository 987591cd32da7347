import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  type AnyKysely,
  addIdColumn,
  countRows,
  createDb,
  type Database,
  dateType,
  dialectOf,
  isForeignKeyViolation,
  isUniqueViolation,
  readBool,
} from "../src/db/index.ts";
import { forEachDatabase } from "../src/testing/index.ts";

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("the statement succeeded");
}

forEachDatabase("dialect helpers", (database) => {
  let handle: Database;
  let db: AnyKysely;
  before(async () => {
    handle = createDb(database.url);
    db = handle.db as AnyKysely;
    await addIdColumn(db.schema.createTable("tool"), handle.dialect)
      .addColumn("name", "text", (c) => c.notNull().unique())
      .addColumn("colour", "text")
      .addColumn("in_stock", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("bought_on", dateType(handle.dialect))
      .addColumn("part_of", "integer", (c) => c.references("tool.id"))
      .execute();
  });
  after(() => handle.close());

  test("booleans bind as parameters and read back as booleans", async () => {
    await db
      .insertInto("tool")
      .values([
        { name: "bool yes", in_stock: true },
        { name: "bool no", in_stock: false },
      ])
      .execute();
    // On its own: in a multi-row insert kysely fills a missing column with NULL on SQLite (which has
    // no DEFAULT in VALUES), not with the column's default.
    await db.insertInto("tool").values({ name: "bool default" }).execute();
    const inStock = await db.selectFrom("tool").select("name").where("in_stock", "=", true).execute();
    assert.deepEqual(inStock, [{ name: "bool yes" }]);
    const rows = await db
      .selectFrom("tool")
      .select(["name", "in_stock"])
      .where("name", "like", "bool %")
      .orderBy("id")
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.name, readBool(r.in_stock)]),
      [
        ["bool yes", true],
        ["bool no", false],
        ["bool default", false],
      ],
    );
  });

  // UTC+14 and UTC-10: a date turned into local midnight and back shows up a day off in one of them.
  for (const zone of ["Pacific/Kiritimati", "America/Adak"]) {
    test(`a date column reads back as the same YYYY-MM-DD with TZ=${zone}`, async () => {
      const saved = process.env.TZ;
      process.env.TZ = zone;
      try {
        const name = `dated in ${zone}`;
        await db.insertInto("tool").values({ name, bought_on: "2026-03-01" }).execute();
        const row = await db
          .selectFrom("tool")
          .select("bought_on")
          .where("bought_on", "=", "2026-03-01")
          .where("name", "=", name)
          .executeTakeFirstOrThrow();
        assert.equal(row.bought_on, "2026-03-01");
      } finally {
        if (saved === undefined) delete process.env.TZ;
        else process.env.TZ = saved;
      }
    });
  }

  test("unique, primary-key and foreign-key violations are told apart from other failures", async () => {
    const parent = await db
      .insertInto("tool")
      .values({ name: "violations parent" })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db.insertInto("tool").values({ name: "violations child", part_of: parent.id }).execute();

    const duplicateName = await rejection(
      db.insertInto("tool").values({ name: "violations parent" }).execute(),
    );
    const duplicateId = await rejection(
      db.insertInto("tool").values({ id: parent.id, name: "other" }).execute(),
    );
    const missingParent = await rejection(
      db.insertInto("tool").values({ name: "violations orphan", part_of: 1_000_000 }).execute(),
    );
    const stillReferenced = await rejection(db.deleteFrom("tool").where("id", "=", parent.id).execute());
    const missingName = await rejection(db.insertInto("tool").values({ name: null }).execute());
    const noSuchTable = await rejection(db.selectFrom("no_such_table").selectAll().execute());

    for (const error of [duplicateName, duplicateId]) {
      assert.equal(isUniqueViolation(error), true, String(error));
      assert.equal(isForeignKeyViolation(error), false, String(error));
    }
    for (const error of [missingParent, stillReferenced]) {
      assert.equal(isForeignKeyViolation(error), true, String(error));
      assert.equal(isUniqueViolation(error), false, String(error));
    }
    for (const error of [missingName, noSuchTable, new Error("not from a database"), undefined]) {
      assert.equal(isUniqueViolation(error), false, String(error));
      assert.equal(isForeignKeyViolation(error), false, String(error));
    }
  });

  test("countRows counts what a query matches, whatever its limit, offset, grouping or distinct", async () => {
    const colours = ["red", "red", "blue", "green", "blue"];
    await db
      .insertInto("tool")
      .values(colours.map((colour, i) => ({ name: `counted ${i}`, colour })))
      .execute();
    const counted = () => db.selectFrom("tool").where("name", "like", "counted %");
    assert.equal(await countRows(db, counted().selectAll()), 5);
    assert.equal(await countRows(db, counted().selectAll().orderBy("id").limit(2).offset(1)), 5);
    assert.equal(await countRows(db, counted().selectAll().limit(10).offset(10)), 5);
    assert.equal(await countRows(db, counted().select("colour").groupBy("colour")), 3);
    assert.equal(await countRows(db, counted().select("colour").distinct().orderBy("colour").limit(1)), 3);
    assert.equal(await countRows(db, counted().selectAll().where("colour", "=", "blue")), 2);
    assert.equal(await countRows(db, counted().selectAll().where("colour", "=", "mauve")), 0);
  });
});

forEachDatabase("dialectOf", (database) => {
  test("tells which database a Kysely instance talks to", async () => {
    const handle = createDb(database.url);
    try {
      assert.equal(dialectOf(handle.db), database.dialect);
    } finally {
      await handle.close();
    }
  });
});
