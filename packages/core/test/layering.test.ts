import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { test } from "node:test";
import { kyselyQueriesUnder, tempDir } from "../src/testing/index.ts";

test("kyselyQueriesUnder names each line of a file under the folder that builds, narrows or runs a query", async () => {
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
      'narrow: (select) => select.where("assets.location_id", "=", id),',
      '  .whereRef("assets.id", "=", "logs.item_id")',
      '  .innerJoin("models", "models.id", "assets.model_id")',
      '  .orderBy("name").groupBy("model_id")',
      "const placed = { whereabouts: nowhere(here), orderByName: true }; // words that only begin like one",
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
      `${file}:11: ${queries[10]}`,
      `${file}:12: ${queries[11].trim()}`,
      `${file}:13: ${queries[12].trim()}`,
      `${file}:14: ${queries[13].trim()}`,
    ]);
  } finally {
    await dir.remove();
  }
});

test("kyselyQueriesUnder checks only the files named, lets a service open a transaction (on one line or two), and refuses a name that is gone", async () => {
  const dir = await tempDir();
  try {
    await mkdir(join(dir.path, "services"));
    const service = [
      "return database.db.transaction().execute(async (trx) => {",
      "  await insertUser(trx, values);",
      "  return trx.transaction().execute(run).then((rows) => rows.execute());",
      "});",
      "await actor.database.db",
      "  .transaction()",
      "  .execute((trx) => work(trx));",
      'await db.selectFrom("users")',
      "  .execute();",
    ];
    await writeFile(join(dir.path, "services", "users.ts"), `${service.join("\n")}\n`);
    await writeFile(join(dir.path, "services", "assets.ts"), 'db.selectFrom("assets");\n');
    const file = relative(process.cwd(), join(dir.path, "services", "users.ts"));
    const named = { files: ["services/users.ts"] };
    assert.deepEqual(await kyselyQueriesUnder(dir.path, named), [
      `${file}:1: ${service[0]}`,
      `${file}:3: ${service[2].trim()}`,
      `${file}:7: ${service[6].trim()}`,
      `${file}:8: ${service[7].trim()}`,
      `${file}:9: ${service[8].trim()}`,
    ]);
    assert.deepEqual(await kyselyQueriesUnder(dir.path, { ...named, transactions: true }), [
      `${file}:3: ${service[2].trim()}`,
      `${file}:8: ${service[7].trim()}`,
      `${file}:9: ${service[8].trim()}`,
    ]);
    await assert.rejects(
      kyselyQueriesUnder(dir.path, { files: ["services/users.ts", "services/gone.ts"] }),
      /no such files under .*: services\/gone\.ts/,
    );
  } finally {
    await dir.remove();
  }
});
