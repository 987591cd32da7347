import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { testDatabaseName } from "../src/testing/database.ts";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const adminUrl = process.env.TEST_PG_URL;

async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid as number;
}

test("the test command drops the test databases of killed runs and keeps those of running ones", {
  skip: !adminUrl && "needs TEST_PG_URL",
}, async () => {
  const killed = testDatabaseName(await exitedPid());
  const running = testDatabaseName(process.pid);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${killed}`);
    await admin.query(`create database ${running}`);
    // The test command itself, on a file without databases; this run's own test runner must not
    // take it for a child of its own.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    await promisify(execFile)("scripts/test.sh", ["packages/core/test/statement-cache.test.ts"], {
      cwd: root,
      env,
    });
    const { rows } = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname = any($1) order by datname",
      [[killed, running]],
    );
    assert.deepEqual(
      rows.map((r) => r.datname),
      [running],
    );
  } finally {
    await admin.query(`drop database if exists ${killed}`);
    await admin.query(`drop database if exists ${running}`);
    await admin.end();
  }
});
