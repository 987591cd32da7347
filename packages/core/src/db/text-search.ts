/**
 * Text search through the database's own index instead of a LIKE scan: an FTS5 table on SQLite, a
 * GIN-indexed tsvector on PostgreSQL. An index holds one entry per document (a row of another
 * table, by id); services keep it in step by calling `indexText` in the transaction that writes
 * the document, and query it with `textMatch`.
 *
 * Matching is by words and word prefixes: every word of the query must begin a word of the
 * document, whatever the case ("crash" finds "Crashes", "Crashing"). That is the issue search of
 * Gitea's default (bleve) indexer, which matches words, plus prefixes for a query typed
 * half-way. A trigram index (FTS5's trigram tokenizer, pg_trgm) would also find words from their
 * middle, but it cannot use its index for one- and two-letter words and costs about three
 * entries per character instead of one per word, on every write.
 *
 * Words are cut here, not by either engine, so that both see the same ones: the text is
 * NFKC-normalized and lowercased and split at everything but letters, digits and combining
 * marks. SQLite's `ascii` tokenizer then only splits at the spaces between them, and PostgreSQL
 * takes them as lexemes as they are (`array_to_tsvector`, no parser, no locale).
 *
 * `textMatch` is the filter to use (`where(textMatch(…))`); `matchingDocs` the matches as rows,
 * for a join.
 */
import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import type { AnyKysely } from "./database.ts";
import { dialectOf } from "./dialect.ts";

/** Longer words are indexed and searched by their first this many characters. */
const MAX_WORD_CHARS = 64;
/** A document's distinct words are indexed up to this many characters in all (PostgreSQL's tsvector stops at 1 MB). */
const MAX_INDEXED_CHARS = 200_000;
/** Only the start of a query is read, and only its first distinct words are searched for. */
const MAX_QUERY_CHARS = 1000;
const MAX_QUERY_WORDS = 10;

const NOT_WORD = /[^\p{L}\p{N}\p{M}]+/u;
const INDEX_NAME = /^[a-z_][a-z0-9_]*$/;
/** Rows a multi-row insert carries: PostgreSQL takes at most 65,535 parameters a statement. */
const INSERT_BATCH = 1000;

export interface TextIndexOptions {
  /**
   * The table whose rows (by `id`) are the documents. Deleting such a row, also by a cascade,
   * then deletes its entry, so that no service has to remember every way a document goes away.
   */
  documents?: string;
}

function checkName(name: string): string {
  if (!INDEX_NAME.test(name))
    throw new Error(`text index name "${name}" is not a plain lowercase identifier`);
  return name;
}

/** The distinct words of a text as both indexes store and match them, the first `limit` characters' worth. */
function wordsOf(text: string, limit: number): string[] {
  const words = new Set<string>();
  let length = 0;
  for (const piece of text.normalize("NFKC").toLowerCase().split(NOT_WORD)) {
    if (piece === "") continue;
    // By code points, so that a word is never cut inside a surrogate pair.
    const word = piece.length > MAX_WORD_CHARS ? [...piece].slice(0, MAX_WORD_CHARS).join("") : piece;
    if (words.has(word)) continue;
    length += word.length + 1;
    if (length > limit) break;
    words.add(word);
  }
  return [...words];
}

/** Creates an empty index named `name` (a migration step). */
export async function createTextIndex(
  db: AnyKysely,
  name: string,
  options: TextIndexOptions = {},
): Promise<void> {
  const table = sql.table(checkName(name));
  const documents = options.documents === undefined ? undefined : checkName(options.documents);
  if (dialectOf(db) === "sqlite") {
    // Contentless (the words are not stored twice), the document id as rowid; contentless_delete
    // lets an entry be replaced and deleted.
    await sql`create virtual table ${table} using fts5(words, tokenize = 'ascii', content = '', contentless_delete = 1)`.execute(
      db,
    );
    // A virtual table takes no foreign key: a trigger forgets a deleted document (cascades fire it too).
    if (documents !== undefined)
      await sql`create trigger ${sql.id(`${name}_forget`)} after delete on ${sql.table(documents)}
        begin delete from ${table} where rowid = old.id; end`.execute(db);
    return;
  }
  // Only the lexemes are kept (as SQLite keeps only its index): a row is read for each match, so
  // the smaller the rows, the fewer pages a search reads.
  await db.schema
    .createTable(name)
    .addColumn("doc_id", "bigint", (c) => {
      const key = c.primaryKey();
      return documents === undefined ? key : key.references(`${documents}.id`).onDelete("cascade");
    })
    .addColumn("tsv", sql`tsvector`, (c) => c.notNull())
    .execute();
  // Without fastupdate every write goes straight into the index: with it, writes collect in a
  // pending list that every search reads through until a vacuum merges it (after 100,000 issues
  // were indexed, a one-word search read 499 index pages for 4).
  await sql`create index ${sql.id(`${name}_tsv`)} on ${table} using gin (tsv) with (fastupdate = off)`.execute(
    db,
  );
}

/**
 * Sets the text of documents (adding or replacing their entries); call it in the transaction
 * that writes them. Takes many at once for bulk loads.
 */
export async function indexTexts(
  db: AnyKysely,
  name: string,
  documents: readonly { docId: number; text: string }[],
): Promise<void> {
  checkName(name);
  const sqlite = dialectOf(db) === "sqlite";
  for (let start = 0; start < documents.length; start += INSERT_BATCH) {
    const batch = documents.slice(start, start + INSERT_BATCH);
    if (sqlite)
      await db
        .replaceInto(name)
        .values(
          batch.map(({ docId, text }) => ({
            rowid: docId,
            words: wordsOf(text, MAX_INDEXED_CHARS).join(" "),
          })),
        )
        .execute();
    else
      await db
        .insertInto(name)
        .values(
          batch.map(({ docId, text }) => ({
            doc_id: docId,
            tsv: sql`array_to_tsvector(${wordsOf(text, MAX_INDEXED_CHARS)}::text[])`,
          })),
        )
        .onConflict((conflict) => conflict.column("doc_id").doUpdateSet({ tsv: sql`excluded.tsv` }))
        .execute();
  }
}

/** Sets the text of one document; call it in the transaction that writes it. */
export function indexText(db: AnyKysely, name: string, docId: number, text: string): Promise<void> {
  return indexTexts(db, name, [{ docId, text }]);
}

/** Removes a document's entry; call it in the transaction that deletes it. */
export async function removeText(db: AnyKysely, name: string, docId: number): Promise<void> {
  checkName(name);
  if (dialectOf(db) === "sqlite") await db.deleteFrom(name).where(sql.ref("rowid"), "=", docId).execute();
  else await db.deleteFrom(name).where("doc_id", "=", docId).execute();
}

/**
 * The ids (`doc_id`) of the documents matching a query typed by a user, for
 * `where("id", "in", matchingDocs(…))` or a join. The query is never handed to the engine as
 * syntax: its words are cut as the documents' were and each is quoted, so operators, quotes and
 * stray punctuation are plain text. A query without a word matches nothing.
 */
export function matchingDocs(
  db: AnyKysely,
  name: string,
  query: string,
  // biome-ignore lint/suspicious/noExplicitAny: the index tables are not in any service's table interface.
): SelectQueryBuilder<any, any, { doc_id: number }> {
  checkName(name);
  const words = wordsOf(query.slice(0, MAX_QUERY_CHARS), MAX_QUERY_CHARS).slice(0, MAX_QUERY_WORDS);
  const sqlite = dialectOf(db) === "sqlite";
  const docs = sqlite
    ? db.selectFrom(name).select(sql<number>`rowid`.as("doc_id"))
    : db.selectFrom(name).select(sql<number>`doc_id`.as("doc_id"));
  if (words.length === 0) return docs.where(sql<SqlBool>`1 = 0`);
  // Words hold no quote, space or operator character (see NOT_WORD), so quoting each is enough.
  if (sqlite)
    return docs.where(sql<SqlBool>`${sql.table(name)} match ${words.map((word) => `"${word}"*`).join(" ")}`);
  return docs.where(sql<SqlBool>`tsv @@ ${words.map((word) => `'${word}':*`).join(" & ")}::tsquery`);
}

/**
 * Whether `column` (a document id) is the id of a document matching `query`, as a filter. On
 * PostgreSQL the matches are read first, once, and the documents then by their ids
 * (`= any(array(…))`): given `in (…)` with an order and a limit, the planner would rather sort
 * every candidate row and probe the index for each, which on 100,000 issues took 58 ms instead of 7.
 */
export function textMatch(
  db: AnyKysely,
  name: string,
  column: Expression<unknown>,
  query: string,
): Expression<SqlBool> {
  const docs = matchingDocs(db, name, query);
  return dialectOf(db) === "sqlite"
    ? sql<SqlBool>`${column} in (${docs})`
    : sql<SqlBool>`${column} = any(array(${docs}))`;
}
