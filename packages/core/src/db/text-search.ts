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
 *
 * A substring index (`substringOf`) is the other kind, for a search that must keep a LIKE
 * '%term%' scan's answers exactly (Snipe-IT's search): a trigram index (FTS5's `trigram`
 * tokenizer, pg_trgm's GIN operator class) of some columns of the documents, which the database
 * itself keeps from triggers on the documents' table, so that no write path can forget it. It only
 * narrows: `substringMatch` reads the candidates from the index and checks each with the very
 * `containsText` a scan would use, so case folding and the columns' boundaries stay the scan's.
 */
import { type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import type { AnyKysely } from "./database.ts";
import { containsText, dialectOf } from "./dialect.ts";

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
  /**
   * Makes it a substring index of these columns of `documents` (which it then requires), kept by
   * triggers on that table: no `indexText` calls; `substringMatch` queries it.
   */
  substringOf?: readonly string[];
}

/** A substring index as `substringMatch` reads it: what `createTextIndex` was given. */
export interface SubstringIndex {
  name: string;
  documents: string;
  columns: readonly string[];
}

/**
 * Shorter terms have no trigram to look up: they are matched by scanning the documents, as
 * without an index (a LIKE of one or two characters matches a large share of rows anyway).
 */
const MIN_SUBSTRING_CHARS = 3;

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
  if (options.substringOf !== undefined) {
    if (documents === undefined) throw new Error(`substring index "${name}" needs its documents' table`);
    return createSubstringIndex(db, { name, documents, columns: options.substringOf.map(checkName) });
  }
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
 * The indexed text of a document: its columns as text, a line each; `new.` in a trigger (plain
 * names: both engines' triggers call the new row so, unquoted, and the columns were checked).
 */
function substringText(row: "new" | undefined, columns: readonly string[]) {
  return sql.join(
    columns.map(
      (column) =>
        sql`coalesce(cast(${sql.raw(row === undefined ? column : `${row}.${column}`)} as text), '')`,
    ),
    sql` || ${sql.lit("\n")} || `,
  );
}

async function createSubstringIndex(db: AnyKysely, index: SubstringIndex): Promise<void> {
  const { name, documents, columns } = index;
  const table = sql.table(name);
  const written = sql.join(columns.map((column) => sql.ref(column)));
  if (dialectOf(db) === "sqlite") {
    // Contentless as the word index: the rechecks read the documents' own columns.
    await sql`create virtual table ${table} using fts5(words, tokenize = 'trigram', content = '', contentless_delete = 1)`.execute(
      db,
    );
    await sql`insert into ${table} (rowid, words) select id, ${substringText(undefined, columns)} from ${sql.table(documents)}`.execute(
      db,
    );
    await sql`create trigger ${sql.id(`${name}_add`)} after insert on ${sql.table(documents)}
      begin insert into ${table} (rowid, words) values (new.id, ${substringText("new", columns)}); end`.execute(
      db,
    );
    await sql`create trigger ${sql.id(`${name}_change`)} after update of ${written} on ${sql.table(documents)}
      begin replace into ${table} (rowid, words) values (new.id, ${substringText("new", columns)}); end`.execute(
      db,
    );
    await sql`create trigger ${sql.id(`${name}_forget`)} after delete on ${sql.table(documents)}
      begin delete from ${table} where rowid = old.id; end`.execute(db);
    return;
  }
  await sql`create extension if not exists pg_trgm`.execute(db);
  await db.schema
    .createTable(name)
    .addColumn("doc_id", "bigint", (c) => c.primaryKey().references(`${documents}.id`).onDelete("cascade"))
    .addColumn("words", "text", (c) => c.notNull())
    .execute();
  await sql`insert into ${table} (doc_id, words) select id, ${substringText(undefined, columns)} from ${sql.table(documents)}`.execute(
    db,
  );
  // As the word index: no pending list for every search to read through.
  await sql`create index ${sql.id(`${name}_words`)} on ${table} using gin (words gin_trgm_ops) with (fastupdate = off)`.execute(
    db,
  );
  const keep = sql.id(`${name}_keep`);
  await sql`create function ${keep}() returns trigger language plpgsql as $$
    begin
      insert into ${table} (doc_id, words) values (new.id, ${substringText("new", columns)})
        on conflict (doc_id) do update set words = excluded.words;
      return null;
    end $$`.execute(db);
  await sql`create trigger ${keep} after insert or update of ${written} on ${sql.table(documents)}
    for each row execute function ${keep}()`.execute(db);
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
  return idIn(db, column, matchingDocs(db, name, query));
}

function idIn(db: AnyKysely, column: Expression<unknown>, docs: Expression<unknown>): Expression<SqlBool> {
  return dialectOf(db) === "sqlite"
    ? sql<SqlBool>`${column} in (${docs})`
    : sql<SqlBool>`${column} = any(array(${docs}))`;
}

/**
 * The ids (`doc_id`) of the documents one of whose indexed columns contains `term`, exactly as
 * `containsText` finds it in a scan of them: the index gives the candidates (every document with
 * the term somewhere in its text, in any case), and each is checked column by column.
 */
export function containingDocs(
  db: AnyKysely,
  index: SubstringIndex,
  term: string,
): RawBuilder<{ doc_id: number }> {
  const { name, documents, columns } = index;
  const dialect = dialectOf(db);
  const contains = sql.join(
    columns.map((column) => containsText(dialect, sql`cast(${sql.ref(`document.${column}`)} as text)`, term)),
    sql` or `,
  );
  const from = sql`select document.id as doc_id from ${sql.table(documents)} as document`;
  if ([...term].length < MIN_SUBSTRING_CHARS) return sql`${from} where (${contains})`;
  const found = sql.table(checkName(name));
  if (dialect === "sqlite")
    return sql`${from} join ${found} as found on found.rowid = document.id
      where found.words match ${`"${term.replaceAll('"', '""')}"`} and (${contains})`;
  return sql`${from} join ${found} as found on found.doc_id = document.id
    where ${containsText(dialect, sql.ref("found.words"), term)} and (${contains})`;
}

/** Whether `column` (a document id) is the id of a document containing `term` (see containingDocs). */
export function substringMatch(
  db: AnyKysely,
  index: SubstringIndex,
  column: Expression<unknown>,
  term: string,
): Expression<SqlBool> {
  return idIn(db, column, containingDocs(db, index, term));
}
