import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Envelope, List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { category } from "../support/items.ts";

// A product key is for `licenses.keys` holders: without it a license list neither finds, filters
// nor orders licenses by their key, which would tell the key a character at a time.

type License = { id: number; name: string; product_key: string };

forEachInventory("inventory API: product keys stay with licenses.keys holders", (inventory) => {
  let viewer = "";
  let keeper = "";
  const names = async (query: string, token: string) => {
    const answer = await api<List<License>>(inventory, "GET", `/licenses?${query}`, { token });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.rows.map((row) => row.name);
  };

  test("fixture: two licenses whose keys sort opposite to their creation", async () => {
    const categoryId = await category(inventory, "license", "Suites");
    for (const [name, serial] of [
      ["Older", "ZZZ-SECRET-9999"],
      ["Newer", "AAA-SECRET-0000"],
    ]) {
      const made = await api<Envelope>(inventory, "POST", "/licenses", {
        body: { name, seats: 1, category_id: categoryId, serial },
      });
      assert.equal(made.body.status, "success", JSON.stringify(made.body));
      await sleep(20);
    }
    viewer = (await userWithToken(inventory, "viewer", { "licenses.view": "1" })).token;
    keeper = (await userWithToken(inventory, "keeper", { "licenses.view": "1", "licenses.keys": "1" })).token;
  });

  test("without licenses.keys: no search, filter or sort by the key", async () => {
    assert.deepEqual(await names("search=ZZZ-SECRET", viewer), []);
    assert.deepEqual(await names("search=SECRET", viewer), []);
    assert.deepEqual(await names("search=Older", viewer), ["Older"], "other columns are still searched");
    const all = await names("sort=created_at&order=asc", viewer);
    assert.deepEqual(all, ["Older", "Newer"]);
    assert.deepEqual(await names("product_key=ZZZ-SECRET-9999&sort=created_at&order=asc", viewer), all);
    assert.deepEqual(await names("product_key=no-such-key&sort=created_at&order=asc", viewer), all);
    assert.deepEqual(await names("sort=serial&order=asc", viewer), await names("order=asc", viewer));
  });

  test("with licenses.keys: the key is searchable, filterable and sortable", async () => {
    assert.deepEqual(await names("search=ZZZ-SECRET", keeper), ["Older"]);
    assert.deepEqual(await names("product_key=AAA-SECRET-0000", keeper), ["Newer"]);
    assert.deepEqual(await names("sort=serial&order=asc", keeper), ["Newer", "Older"]);
    assert.deepEqual(await names("search=SECRET&sort=serial&order=desc", inventory.adminToken), [
      "Older",
      "Newer",
    ]);
  });
});
