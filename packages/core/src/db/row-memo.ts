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
 * from these very row objects and this key, or computes and keeps it. `rows` must list every row
 * (or frozen result array) the value depends on, always the same number in the same order; `key`
 * holds whatever else it depends on that is not read from the database (a caller's access level,
 * a URL). Kept values go with their rows: nothing here keeps a row alive.
 */
export class RowMemo<Value> {
  readonly #chains: Chain = new WeakMap();

  get(rows: readonly object[], key: string, compute: () => Value): Value {
    let level: Chain = this.#chains;
    for (let i = 0; i < rows.length - 1; i++) {
      let next = level.get(rows[i]) as Chain | undefined;
      if (next === undefined) {
        next = new WeakMap();
        level.set(rows[i], next);
      }
      level = next;
    }
    const last = rows[rows.length - 1];
    let values = level.get(last) as Map<string, Value> | undefined;
    if (values === undefined) {
      values = new Map();
      level.set(last, values);
    }
    let value = values.get(key);
    if (value === undefined) {
      value = compute();
      if (values.size >= KEYS_PER_ROW) values.clear();
      values.set(key, value);
    }
    return value;
  }
}
