import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { test } from "node:test";
import { kyselyQueriesUnder, tempDir } from "../src/testing/index.ts";

test("kyselyQueriesUnder names each line of a file under the folder that builds or runs a query", async () => {
  const dir = await tempDir();
  try {
    await mkdir(join(dir.path, "v1"));
    const clean = 'export const register = (app) => app.get("/x", async () => findThing(db, 1));\n';
    await writeFile(join(dir.path, "clean.ts"), clean);
    await writeFile(join(dir.path, "notes.md"), "db.selectFrom('users')\n");
    const queries = [
      "const rows = await db",
      '  .selectFrom("users")',
      "  .execute();",
      'await trx.insertInto("logs").values(row).executeTakeFirstOrThrow();',
      'db.updateTable("assets");',
      'db.deleteFrom("assets");',
      "const count = sql<number>`count(*)`;",
      "const plain = sql`1 = 0`;",
      'const column = sql.ref("name");',
      "const executed = false; // a name that only contains a statement word: selectFromX",
    ];
    await writeFile(join(dir.path, "v1", "dirty.ts"), `${queries.join("\n")}\n`);
    const file = relative(process.cwd(), join(dir.path, "v1", "dirty.ts"));
    assert.deepEqual(await kyselyQueriesUnder(dir.path), [
      `${file}:2: .selectFrom("users")`,
      `${file}:3: .execute();`,
      `${file}:4: ${queries[3]}`,
      `${file}:5: ${queries[4]}`,
      `${file}:6: ${queries[5]}`,
      `${file}:7: ${queries[6]}`,
      `${file}:8: ${queries[7]}`,
      `${file}:9: ${queries[8]}`,
    ]);
  } finally {
    await dir.remove();
  }
});
