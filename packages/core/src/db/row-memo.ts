// A value computed from rows, such as an API answer rendered and serialized from a repository and
// its owner, costs more than reading the rows once prepared() keeps them (prepared.ts). prepared()
// hands out the same frozen row objects until the data behind them may have changed (any write by
// this process, any commit by another connection), and new objects after that. So a value keyed
// by the identity of every row it was computed from is right for as long as all those objects are
// the ones handed out, and is never found again once one of them is replaced. Where reads make new
// objects every time (PostgreSQL, kysely transactions), nothing is ever found again: the memo
// costs a few map look-ups.

/** Values per key, kept for the last row of a chain; beyond this many, that row's keys start over. */
const KEYS_PER_ROW = 32;

type Chain = WeakMap<object, Chain | Map<string, unknown>>;

/**
 * A memo of values derived from rows: `get(rows, key, compute)` gives the value computed earlier
 * from these very row objects and this key, or computes and keeps it. `rows` lists the rows (or
 * frozen result arrays) the value depends on that were read before it is computed, always the
 * same number in the same order; rows read while computing it, after those, need not be listed:
 * they were read while the listed ones were still current, so they are unchanged too whenever the
 * listed ones are handed out again. `key` holds whatever else the value depends on that is not
 * read from the database (a caller's access level, a URL). Kept values go with their rows: nothing
 * here keeps a row alive.
 */
export class RowMemo<Value> {
  readonly #chains: Chain = new WeakMap();

  /** The value kept for these rows and key, if any. */
  find(rows: readonly object[], key: string): Value | undefined {
    return this.#values(rows, false)?.get(key);
  }

  /** Keeps a value for these rows and key. */
  keep(rows: readonly object[], key: string, value: Value): void {
    this.#store(this.#values(rows, true) as Map<string, Value>, key, value);
  }

  /** The value kept for these rows and key, computed and kept when there is none. */
  get(rows: readonly object[], key: string, compute: () => Value): Value {
    const values = this.#values(rows, true) as Map<string, Value>;
    let value = values.get(key);
    if (value === undefined) {
      value = compute();
      this.#store(values, key, value);
    }
    return value;
  }

  #store(values: Map<string, Value>, key: string, value: Value): void {
    if (values.size >= KEYS_PER_ROW) values.clear();
    values.set(key, value);
  }

  #values(rows: readonly object[], create: boolean): Map<string, Value> | undefined {
    let level: Chain = this.#chains;
    for (let i = 0; i < rows.length; i++) {
      let next = level.get(rows[i]);
      if (next === undefined) {
        if (!create) return undefined;
        next = i === rows.length - 1 ? new Map<string, Value>() : (new WeakMap() as Chain);
        level.set(rows[i], next);
      }
      if (i === rows.length - 1) return next as Map<string, Value>;
      level = next as Chain;
    }
    return undefined;
  }
}
