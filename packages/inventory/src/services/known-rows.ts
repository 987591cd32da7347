import type { Row } from "../repositories/records.ts";

// Rows a bulk write (an import's batch) read up front, with one query a table for all its items,
// so that each item's rules (validation's `exists`, an asset's tag clash, its model's EOL) find
// them here instead of asking the database once an item. Only undeleted rows are kept, by a
// column whose values are unique among them; what was asked for and not found is known absent.
// The reads are made inside the write's transaction and the writes that follow only add rows, so
// what is kept stays true for the items it was read for; a value an earlier item may have written
// (its own asset tag) is not answered from here.

export class KnownRows {
  readonly #rows = new Map<string, Map<unknown, Row | null>>();

  /** Keeps the rows of `table` found by `column` among `asked`; the values no row holds are absent. */
  add(table: string, column: string, asked: Iterable<unknown>, rows: readonly Row[]): void {
    const key = `${table}.${column}`;
    let known = this.#rows.get(key);
    if (!known) {
      known = new Map();
      this.#rows.set(key, known);
    }
    for (const value of asked) if (!known.has(value)) known.set(value, null);
    for (const row of rows) known.set(row[column], row);
  }

  /**
   * The undeleted row of `table` whose `column` holds `value`, as read; null when none did;
   * undefined when it was not read, for the caller to ask the database.
   */
  row(table: string, column: string, value: unknown): Row | null | undefined {
    return this.#rows.get(`${table}.${column}`)?.get(value);
  }
}
