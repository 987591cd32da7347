import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { test } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { connectDatabase, redactUrl } from "../src/db/index.ts";
import { forEachDatabase, tempDir } from "../src/testing/index.ts";
import { startWorker } from "./fixtures/processes.ts";

async function connectionError(url: string): Promise<Error> {
  try {
    const database = await connectDatabase(url);
    await database.close();
  } catch (error) {
    assert.ok(error instanceof Error);
    return error;
  }
  assert.fail(`connected to ${url}`);
}

forEachDatabase("connectDatabase", (database) => {
  test("connects to a database that answers", async () => {
    const handle = await connectDatabase(database.url);
    try {
      const { rows } = await sql<{ answer: number }>`select 42 as answer`.execute(handle.db);
      assert.equal(Number(rows[0].answer), 42);
    } finally {
      await handle.close();
    }
  });

  test("says which database cannot be opened, and why", async () => {
    const unusable = new URL(database.url.replace(/^sqlite:/, "file:"));
    let url: string;
    let reason: RegExp;
    if (database.dialect === "sqlite") {
      // The test database's directory: it exists, but is no database file.
      url = `sqlite:${dirname(unusable.pathname)}`;
      reason = /unable to open database file/;
    } else {
      unusable.pathname = "/anvil_no_such_database";
      url = unusable.toString();
      reason = /database "anvil_no_such_database" does not exist/;
    }
    const error = await connectionError(url);
    assert.ok(error.message.startsWith(`cannot connect to ${redactUrl(url)}: `), error.message);
    assert.match(error.message, reason);
  });

  test("the pool opens no more connections than the pool size", {
    skip: database.dialect === "sqlite" && "PostgreSQL only: SQLite has one connection",
  }, async () => {
    const handle = await connectDatabase(database.url, { poolSize: 2 });
    try {
      // Six queries at once, each long enough to keep its connection busy while the others start.
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(handle.db),
        ),
      );
      assert.equal(new Set(results.map((r) => r.rows[0].pid)).size, 2);
    } finally {
      await handle.close();
    }
  });

  test("PostgreSQL connections run without JIT compiling", {
    skip: database.dialect === "sqlite" && "PostgreSQL only: SQLite has no JIT",
  }, async () => {
    const handle = await connectDatabase(database.url, { poolSize: 2 });
    try {
      // Both connections of the pool, not just the first.
      const results = await Promise.all(
        Array.from({ length: 2 }, () =>
          sql<{ jit: string }>`select current_setting('jit') as jit, pg_sleep(0.05)`.execute(handle.db),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.rows[0].jit),
        ["off", "off"],
      );
    } finally {
      await handle.close();
    }
  });

  for (const reporting of ["with-logger", "without-logger"] as const) {
    test(`an idle pooled connection the server drops is reported (${reporting}); the process lives on and reconnects`, {
      skip: database.dialect === "sqlite" && "PostgreSQL only: SQLite has no server to drop it",
    }, async () => {
      // A password in the URL, to see that the report leaves it out; the test servers trust local
      // users and ignore it, so it is only added where the URL has none.
      const url = new URL(database.url);
      if (url.password === "") url.password = "pool-secret";
      const worker = startWorker([url.toString(), "reconnect", reporting]);
      await worker.ready;
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        // The worker's idle pooled connection is the only other one on this test's own database.
        const dropped = await admin.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
        );
        assert.equal(dropped.rowCount, 1);
      } finally {
        await admin.end();
      }
      worker.go();
      const outcome = (await worker.outcome()) as { reports: string[]; answer: number };
      assert.equal(outcome.answer, 42);
      assert.equal(outcome.reports.length, 1);
      const [line] = outcome.reports;
      assert.ok(!line.includes(url.password), line);
      const reason = "terminating connection due to administrator command";
      if (reporting === "with-logger") {
        const entry = JSON.parse(line);
        assert.equal(entry.level, 40);
        assert.equal(entry.msg, "idle database connection lost");
        assert.equal(entry.database, redactUrl(url.toString()));
        assert.equal(entry.code, "57P01");
        assert.equal(entry.reason, reason);
      } else {
        assert.equal(line, `idle database connection to ${redactUrl(url.toString())} lost: ${reason}`);
      }
    });
  }
});

test("a PostgreSQL server that refuses: the message names it, without its password", async () => {
  const error = await connectionError("postgres://bob:hunter2@127.0.0.1:1/x");
  assert.match(error.message, /^cannot connect to postgres:\/\/bob:\*\*\*@127\.0\.0\.1:1\/x: .*ECONNREFUSED/);
  assert.doesNotMatch(error.message, /hunter2/);
});

test("a SQLite path that cannot hold a database: the message names it and says why", async () => {
  const dir = await tempDir();
  try {
    await writeFile(`${dir.path}/plain-file`, "not a database, and not a directory either");
    const underAFile = await connectionError(`sqlite:${dir.path}/plain-file/forge.db`);
    assert.ok(underAFile.message.startsWith(`cannot connect to sqlite:${dir.path}/plain-file/forge.db: `));
    assert.match(underAFile.message, /EEXIST: file already exists, mkdir '.*plain-file'/);
    const notADatabase = await connectionError(`sqlite:${dir.path}/plain-file`);
    assert.equal(
      notADatabase.message,
      `cannot connect to sqlite:${dir.path}/plain-file: file is not a database`,
    );
  } finally {
    await dir.remove();
  }
});
