// Text indexes: words and word prefixes match on both databases alike, an entry follows its
// document's writes and deletion (also by a cascade), and whatever a user types is a search for
// words, never engine syntax: quotes, operators and huge queries neither fail nor match wrongly.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Generated, type Kysely, sql } from "kysely";
import {
  addIdColumn,
  createDb,
  createTextIndex,
  type Database,
  idType,
  indexText,
  indexTexts,
  matchingDocs,
  removeText,
  textMatch,
} from "../src/db/index.ts";
import { forEachDatabase } from "../src/testing/index.ts";

interface Tables {
  shelf: { id: Generated<number> };
  note: { id: Generated<number>; shelf_id: number; text: string };
}

const NOTES = [
  "Crash when saving a file",
  "The parser crashes on empty input",
  'Quoted "NEAR" operators and a-b-c dashes * stars',
  "Ünïcödé café naïve 東京 résumé",
  "Unrelated: colour of the buttons",
];

forEachDatabase("text search", (database) => {
  let handle: Database<Tables>;
  let db: Kysely<Tables>;
  const ids: number[] = [];
  before(async () => {
    handle = createDb<Tables>(database.url);
    db = handle.db;
    await addIdColumn(db.schema.createTable("shelf"), handle.dialect).execute();
    await addIdColumn(db.schema.createTable("note"), handle.dialect)
      .addColumn("shelf_id", idType(handle.dialect), (c) =>
        c.notNull().references("shelf.id").onDelete("cascade"),
      )
      .addColumn("text", "text", (c) => c.notNull())
      .execute();
    await createTextIndex(db, "note_search", { documents: "note" });
    const shelf = await db.insertInto("shelf").defaultValues().returning("id").executeTakeFirstOrThrow();
    await db.transaction().execute(async (trx) => {
      for (const text of NOTES) {
        const note = await trx
          .insertInto("note")
          .values({ shelf_id: shelf.id, text })
          .returning("id")
          .executeTakeFirstOrThrow();
        await indexText(trx, "note_search", note.id, text);
        ids.push(note.id);
      }
    });
  });
  after(() => handle.close());

  /** The indexes (into NOTES) of the notes a query finds, through textMatch. */
  const find = async (query: string): Promise<number[]> => {
    const rows = await db
      .selectFrom("note")
      .select("id")
      .where(textMatch(db, "note_search", sql.ref("note.id"), query))
      .orderBy("id")
      .execute();
    return rows.map((row) => ids.indexOf(row.id));
  };

  test("finds words and word prefixes, whatever the case, every word required", async () => {
    assert.deepEqual(await find("crash"), [0, 1]);
    assert.deepEqual(await find("CRASHES"), [1]);
    assert.deepEqual(await find("parser crash"), [1]);
    assert.deepEqual(await find("parser colour"), []);
    assert.deepEqual(await find("butt"), [4]);
    // Not from the middle of a word.
    assert.deepEqual(await find("rash"), []);
  });

  test("unicode words match with their case folded, not with accents dropped", async () => {
    assert.deepEqual(await find("ÜNÏCÖDÉ"), [3]);
    assert.deepEqual(await find("café"), [3]);
    assert.deepEqual(await find("cafe"), []);
    assert.deepEqual(await find("東京"), [3]);
  });

  test("operators, quotes and punctuation are searched as words, never as syntax", async () => {
    assert.deepEqual(await find("near"), [2]);
    assert.deepEqual(await find("NEAR(crash parser)"), []);
    assert.deepEqual(await find('"quoted'), [2]);
    assert.deepEqual(await find('"'), []);
    assert.deepEqual(await find("*"), []);
    assert.deepEqual(await find("crash*"), [0, 1]);
    assert.deepEqual(await find("-crash"), [0, 1]);
    assert.deepEqual(await find("a-b-c"), [2]);
    assert.deepEqual(await find("crash OR colour"), []);
    assert.deepEqual(await find("crash AND NOT parser"), []);
    assert.deepEqual(await find("of:colour"), [4]);
    assert.deepEqual(await find("'; drop table note; --"), []);
    assert.deepEqual(await find("'crash':* | colour"), []);
    assert.deepEqual(await find("\\crash\\"), [0, 1]);
    assert.deepEqual(await find("^crash"), [0, 1]);
  });

  test("an empty query, or one without a word, matches nothing", async () => {
    assert.deepEqual(await find(""), []);
    assert.deepEqual(await find("   "), []);
    assert.deepEqual(await find('*** --- "" ()'), []);
  });

  test("a 10 KB query or a huge word is cut down, not refused", async () => {
    assert.deepEqual(await find(`crash ${"x".repeat(10_000)}`), []);
    assert.deepEqual(await find("crash ".repeat(2000)), [0, 1]);
    assert.deepEqual(await find("a ".repeat(5000)), [0, 2]);
    const word = "w".repeat(5000);
    await indexText(db, "note_search", ids[4], `colour ${word}`);
    assert.deepEqual(await find(word), [4]);
    assert.deepEqual(await find(`${word}zzz`), [4]);
    await indexText(db, "note_search", ids[4], NOTES[4]);
  });

  test("the matches as rows: a join, and where id in (…)", async () => {
    const rows = await db
      .selectFrom("note")
      .innerJoin(matchingDocs(db, "note_search", "crash").as("hit"), "hit.doc_id", "note.id")
      .select("note.id")
      .orderBy("note.id")
      .execute();
    assert.deepEqual(
      rows.map((row) => row.id),
      [ids[0], ids[1]],
    );
  });

  test("an entry follows its document: replaced, removed, forgotten with it", async () => {
    await db.transaction().execute((trx) => indexText(trx, "note_search", ids[0], "Renamed: a hang on save"));
    assert.deepEqual(await find("crash"), [1]);
    assert.deepEqual(await find("hang"), [0]);
    // A transaction that fails leaves the index as it was.
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await indexText(trx, "note_search", ids[0], "something else");
        throw new Error("rolled back");
      }),
      /rolled back/,
    );
    assert.deepEqual(await find("hang"), [0]);
    await removeText(db, "note_search", ids[0]);
    assert.deepEqual(await find("hang"), []);
    await db.deleteFrom("note").where("id", "=", ids[1]).execute();
    assert.deepEqual(await find("parser"), []);
    // Deleting the shelf cascades to its notes, and from them to their entries.
    await db.deleteFrom("shelf").execute();
    assert.deepEqual(await find("colour"), []);
  });

  test("indexes many documents in one call", async () => {
    const shelf = await db.insertInto("shelf").defaultValues().returning("id").executeTakeFirstOrThrow();
    const texts = Array.from({ length: 2500 }, (_, i) => `bulk item ${i} ${i % 2 === 0 ? "even" : "odd"}`);
    await db.transaction().execute(async (trx) => {
      const notes = await trx
        .insertInto("note")
        .values(texts.map((text) => ({ shelf_id: shelf.id, text })))
        .returning("id")
        .execute();
      await indexTexts(
        trx,
        "note_search",
        notes.map((note, i) => ({ docId: note.id, text: texts[i] })),
      );
    });
    const count = async (query: string) =>
      (
        await db
          .selectFrom("note")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("id", "in", matchingDocs(db, "note_search", query))
          .executeTakeFirstOrThrow()
      ).n;
    assert.equal(Number(await count("bulk even")), 1250);
    assert.equal(Number(await count("item 2499")), 1);
  });
});
