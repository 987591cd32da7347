import { randomBytes } from "node:crypto";
import { after, before, describe } from "node:test";
import pg from "pg";
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

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.TEST_PG_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Runs `body` once per database: SQLite always, PostgreSQL too when TEST_PG_URL is set
 * (TEST_DB_ONLY narrows it to one). Each run gets a database of its own, dropped afterwards.
 */
export function forEachDatabase(title: string, body: (database: TestDatabase) => void): void {
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
        const name = `anvil_test_${randomBytes(6).toString("hex")}`;
        await withAdmin((c) => c.query(`create database ${name}`));
        const url = new URL(process.env.TEST_PG_URL as string);
        url.pathname = `/${name}`;
        state.url = url.toString();
        cleanup = () =>
          withAdmin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => {});
      });
      body(state);
      // Registered after the body's own hooks so its connections are closed before the drop.
      after(() => cleanup());
    });
  }
}
