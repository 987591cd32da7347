import assert from "node:assert/strict";
import { test } from "node:test";
import { age, ageKey } from "../src/convert/asset.ts";

// A rendered asset is kept under ageKey (convert/asset.ts): whenever two moments give an asset the
// same key, its `age` must read the same at both, or a kept asset would show a stale age.

const DAY_MS = 86_400_000;

test("an asset's age reads the same at every moment that gives it the same ageKey", () => {
  const midnight = Date.UTC(2026, 10, 26);
  // Moments over three days, densest around each midnight, where rounded seconds change the age.
  const moments: number[] = [];
  for (let day = -1; day <= 1; day++) {
    for (let ms = -3000; ms <= 3000; ms += 250) moments.push(midnight + day * DAY_MS + ms);
    for (let ms = 0; ms < DAY_MS; ms += 37 * 60_000 + 1234) moments.push(midnight + day * DAY_MS + ms);
  }
  const days = [-800, -400, -365, -366, -60, -31, -30, -14, -7, -6, -2, -1, 0, 1, 2, 3, 7, 8, 30, 31, 400];
  for (const offset of days) {
    const purchased = new Date(midnight + offset * DAY_MS).toISOString().slice(0, 10);
    const row = { id: 1, purchase_date: purchased };
    const seen = new Map<string, string>();
    for (const now of moments) {
      const key = ageKey(row, now);
      const shown = age(purchased, new Date(now));
      const before = seen.get(key);
      if (before === undefined) seen.set(key, shown);
      else assert.equal(shown, before, `${purchased} at ${new Date(now).toISOString()} under key ${key}`);
    }
    // Days away, the key is the day, not the minute.
    if (offset <= -3 || offset >= 4)
      assert.ok(seen.size <= 4, `${purchased}: ${[...seen.keys()].join(", ")}`);
  }
  assert.equal(ageKey({ id: 1, purchase_date: null }, midnight), "", "no purchase date, no age to change");
});
