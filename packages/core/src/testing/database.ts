import { createHash, randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { after, before, describe } from "node:test";
import pg from "pg";
import { type ScryptCost, setPasswordHashCost } from "../auth/passwords.ts";
import type { DialectName } from "../db/index.ts";
import { tempDir } from "./temp.ts";

export interface TestDatabase {
  readonly dialect: DialectName;
  /** Valid inside tests (set up in a before() hook). */
  readonly url: string;
}

function targets(): DialectName[] {
  const only = process.env.TEST_DB_ONLY;
  const all: DialectName[] = process.env.TEST_PG_URL ? ["sqlite", "postgres"] : ["sqlite"];
  if (only === undefined || only === "") return all;
  if (only !== "sqlite" && only !== "postgres")
    throw new Error(`TEST_DB_ONLY must be sqlite or postgres, got "${only}"`);
  if (only === "postgres" && !process.env.TEST_PG_URL)
    throw new Error("TEST_DB_ONLY=postgres needs TEST_PG_URL");
  return all.filter((d) => d === only);
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// Test databases are named after the machine and the process that made them, so that a later
// run can tell those of killed runs (process gone) from those of runs still going, and leaves
// alone those of other machines that share the server.
function machineTag(): string {
  return createHash("sha256").update(hostname()).digest("hex").slice(0, 8);
}

/** A fresh test database name for process `pid` (this one by default) on this machine. */
export function testDatabaseName(pid = process.pid): string {
  return `anvil_test_${machineTag()}_${pid}_${randomBytes(4).toString("hex")}`;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Drops the test databases that test processes of this machine made and never dropped because
 * they were killed; returns their names. The test command runs it before the tests.
 */
export async function dropAbandonedTestDatabases(adminUrl: string): Promise<string[]> {
  const ours = new RegExp(`^anvil_test_${machineTag()}_(\\d+)_[0-9a-f]+$`);
  return withAdmin(adminUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>("select datname from pg_database");
    const abandoned = rows
      .map((r) => r.datname)
      .filter((name) => {
        const match = ours.exec(name);
        return match !== null && !isRunning(Number(match[1]));
      });
    for (const name of abandoned) await client.query(`drop database if exists ${name} with (force)`);
    return abandoned;
  });
}

/**
 * The scrypt cost of passwords hashed in the tests' own processes: the suites make thousands of
 * users, and OWASP's cost (~0.4 s a hash here) would make them crawl. Services started as their
 * own processes (startAnvil) keep OWASP's cost; a test of the cost itself sets it back.
 */
export const TEST_SCRYPT_COST: Readonly<ScryptCost> = Object.freeze({ N: 2 ** 10, r: 8, p: 1 });

/**
 * Runs `body` once per database: SQLite always, PostgreSQL too when TEST_PG_URL is set
 * (TEST_DB_ONLY narrows it to one). Each run gets a database of its own, dropped afterwards.
 * Passwords hashed in this process from then on use TEST_SCRYPT_COST.
 */
export function forEachDatabase(title: string, body: (database: TestDatabase) => void): void {
  setPasswordHashCost(TEST_SCRYPT_COST);
  for (const dialect of targets()) {
    describe(`${title} [${dialect}]`, () => {
      const state = { dialect, url: "" };
      let cleanup = async () => {};
      before(async () => {
        if (dialect === "sqlite") {
          const dir = await tempDir("anvil-db-");
          state.url = `sqlite:${dir.path}/test.db`;
          cleanup = dir.remove;
          return;
        }
        const adminUrl = process.env.TEST_PG_URL as string;
        const name = testDatabaseName();
        await withAdmin(adminUrl, (c) => c.query(`create database ${name}`));
        const url = new URL(adminUrl);
        url.pathname = `/${name}`;
        state.url = url.toString();
        cleanup = () =>
          withAdmin(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`)).then(() => {});
      });
      body(state);
      // Registered after the body's own hooks so its connections are closed before the drop.
      after(() => cleanup());
    });
  }
}
