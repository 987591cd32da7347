import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { forEachDatabase, type TempDir, tempDir } from "@anvil/core/testing";
import { runAnvil, startInventory } from "./run.ts";

// `anvil inventory import FILE`: a CSV import on the inventory's database, with progress on
// standard error and a summary on standard output.

forEachDatabase("anvil inventory import", (database) => {
  let dir: TempDir;
  before(async () => {
    dir = await tempDir("anvil-inventory-import-");
  });
  after(() => dir.remove());

  const anvil = (...args: string[]) =>
    runAnvil(["inventory", ...args, "--data-dir", dir.path, "--database", database.url]);
  const ROWS = 1200;

  test("imports a file as the first superuser, shows progress, reports failed rows, and re-runs as a no-op", async () => {
    const file = join(dir.path, "assets.csv");
    const lines = ["Asset Tag,Item Name,Model Name,Category,Purchase Date"];
    for (let n = 1; n <= ROWS; n += 1)
      lines.push(`CLI-${n},Cli ${n},Cli Book,Cli laptops,${n === 17 ? "someday" : "2024-05-01"}`);
    await writeFile(file, `${lines.join("\n")}\n`);

    const nobody = await anvil("import", file);
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /there is no superuser/);

    const created = await anvil(
      "admin",
      "user",
      "create",
      "--username",
      "boss",
      "--password",
      "bosspassword",
      "--email",
      "boss@example.com",
      "--superuser",
    );
    assert.equal(created.code, 0, created.stderr);

    const first = await anvil("import", file);
    assert.equal(first.code, 1, "a row failed");
    assert.match(
      first.stdout,
      new RegExp(
        `^Import 1: ${ROWS} of ${ROWS} rows in \\d+\\.\\d s: ${ROWS - 1} created, 0 updated, 0 unchanged, 1 failed\\.\\n  row 18 \\(Cli 17\\): purchase_date: The purchase date field must be a valid date\\.\\n$`,
      ),
    );
    assert.deepEqual(
      first.stderr.trimEnd().split("\n"),
      ["1,000/1,200 rows, 1 failed", "1,200/1,200 rows, 1 failed"],
      "not a terminal: a plain line every 1,000 rows and at the end",
    );

    const again = await anvil("import", file, "--update", "--type", "asset", "--username", "boss");
    assert.match(
      again.stdout,
      new RegExp(
        `^Import 2: ${ROWS} of ${ROWS} rows in [0-9.]+ s: 0 created, 0 updated, ${ROWS - 1} unchanged, 1 failed\\.\\n`,
      ),
    );

    const wrongType = await anvil("import", file, "--type", "spaceship");
    assert.equal(wrongType.code, 1);
    assert.match(wrongType.stderr, /the import type must be one of asset, /);

    const inventory = await startInventory(dir.path, ["--database", database.url]);
    try {
      const made = await anvil("admin", "token", "create", "--username", "boss", "--name", "check");
      const token = made.stdout.trimEnd().split("\n").at(-1) ?? "";
      const base = `http://127.0.0.1:${inventory.port}/api/v1`;
      const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
      const asset = (await (await fetch(`${base}/hardware/bytag/CLI-${ROWS}`, { headers })).json()) as {
        name: string;
        created_by: { id: number };
      };
      assert.deepEqual([asset.name, asset.created_by.id], [`Cli ${ROWS}`, 1], "made by boss (id 1)");
      const shown = (await (await fetch(`${base}/imports/1`, { headers })).json()) as Record<string, unknown>;
      assert.deepEqual(
        [shown.name, shown.import_status, shown.rows_created, shown.rows_failed],
        ["assets.csv", "completed", ROWS - 1, 1],
        "the import is kept among the uploads",
      );
    } finally {
      inventory.child.kill("SIGTERM");
      await inventory.finished;
    }
  });
});
