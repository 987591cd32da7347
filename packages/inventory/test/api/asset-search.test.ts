import assert from "node:assert/strict";
import { test } from "node:test";
import { type AnyKysely, containsText } from "@anvil/core";
import { sql } from "kysely";
import { seededRandom } from "../../../core/test/fuzz/random.ts";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory } from "../support/inventory.ts";

// The asset search answers from a substring index (migration 0018) instead of a LIKE scan of every
// asset. Snipe-IT's users rely on the scan's answers (any part of a tag or serial finds it), so on
// random assets, created, edited and deleted through the API, every search must find exactly what
// a plain scan of the same rows finds.

/** The asset's own searched columns, as the scan of Snipe-IT's search reads them. */
const OWN_COLUMNS = ["name", "asset_tag", "serial", "order_number", "notes", "purchase_date"];
/**
 * The random text's characters (and the purchase dates'): none occurs in the names of the rows
 * the assets are related to (the fixture's labels, category and maker, prefix "rs", and a model
 * without a number), so a term matches an asset by its own text only; LIKE's wildcards, its
 * escape, quotes and letters that only some databases fold are among them.
 */
const ALPHABET = "jwzJWZ0245789 %_\\\"'éÉ.";

/** Random text from the alphabet, seeded (core's generator), so that a failure can be replayed. */
function random(seed: number) {
  const generator = seededRandom(seed);
  const below = (n: number) => generator.int(0, n - 1);
  const text = (length: number) => Array.from({ length }, () => generator.pick([...ALPHABET])).join("");
  return { below, text, chance: generator.chance };
}

forEachInventory("inventory API: asset search by its substring index", (inventory) => {
  let f: AssetFixture;
  const seed = Number(process.env.ASSET_SEARCH_SEED ?? 19);
  const r = random(seed);

  test("fixture", async () => {
    f = await assetFixture(inventory, "rs");
  });

  test("every search finds what a substring scan of the same assets finds", async () => {
    const model = await api<Envelope<{ id: number }>>(inventory, "POST", "/models", {
      body: { name: "Model", category_id: f.categoryId, manufacturer_id: f.manufacturerId },
    });
    assert.equal(model.body.status, "success", JSON.stringify(model.body));
    const database = inventory.server.app.database;
    if (!database) throw new Error("no database");
    const db = database.db as AnyKysely;
    const texts: string[] = [];
    const fields = () => {
      const values: Record<string, unknown> = {};
      for (const column of ["name", "serial", "order_number", "notes"])
        if (r.chance(0.8)) values[column] = r.text(1 + r.below(12));
      if (r.chance(0.3))
        values.purchase_date = `2024-0${[2, 4, 5, 7, 8, 9][r.below(6)]}-2${[0, 2, 4, 5, 7, 8][r.below(6)]}`;
      texts.push(...Object.values(values).map(String));
      return values;
    };
    const ids: number[] = [];
    for (let i = 0; i < 80; i++) {
      const tag = `${r.text(2 + r.below(6))}${i}`;
      texts.push(tag);
      ids.push(
        await createAsset(inventory, f, tag, {
          model_id: model.body.payload.id,
          status_id: r.chance(0.5) ? f.deployable : f.pending,
          ...fields(),
        }),
      );
    }
    // Edits and deletes must reach the index as writes do.
    for (let i = 0; i < 20; i++) {
      const id = ids[r.below(ids.length)];
      const edited = await api<Envelope>(inventory, "PATCH", `/hardware/${id}`, { body: fields() });
      assert.equal(edited.body.status, "success", JSON.stringify(edited.body));
    }
    for (let i = 0; i < 8; i++) {
      const id = ids.splice(r.below(ids.length), 1)[0];
      assert.equal((await api<Envelope>(inventory, "DELETE", `/hardware/${id}`)).body.status, "success");
    }

    const scan = async (terms: string[]) => {
      const rows = await db
        .selectFrom("assets")
        .select("id")
        .where("deleted_at", "is", null)
        .where((eb) =>
          eb.or(
            terms.flatMap((term) =>
              OWN_COLUMNS.map((column) =>
                containsText(database.dialect, sql`cast(${sql.ref(column)} as text)`, term),
              ),
            ),
          ),
        )
        .orderBy("id")
        .execute();
      return rows.map((row) => Number(row.id));
    };
    const search = async (query: string) => {
      const answer = await api<List<{ id: number }>>(
        inventory,
        "GET",
        `/hardware?limit=500&sort=id&order=asc&search=${encodeURIComponent(query)}`,
      );
      assert.equal(answer.body.total, answer.body.rows.length, query);
      return answer.body.rows.map((row) => row.id);
    };

    const piece = () => {
      const text = texts[r.below(texts.length)];
      const start = r.below(text.length);
      const cut = text.slice(start, start + 1 + r.below(6)).trim();
      // Some in another case than stored: the scan's case folding must be kept.
      return r.chance(0.3) ? cut.toUpperCase() : r.chance(0.3) ? cut.toLowerCase() : cut;
    };
    let found = 0;
    for (let i = 0; i < 150; i++) {
      const terms = [r.chance(0.2) ? r.text(1 + r.below(4)).trim() : piece()];
      if (r.chance(0.15)) terms.push(piece());
      const usable = terms.filter((term) => term !== "");
      if (usable.length === 0) continue;
      const wanted = await scan(usable);
      found += wanted.length;
      assert.deepEqual(
        await search(usable.join(" OR ")),
        wanted,
        `seed ${seed}, search ${JSON.stringify(usable)}`,
      );
    }
    // Most searches must find something, or the comparison would prove little.
    assert.ok(found > 150, `only ${found} matches in all`);
  });
});
