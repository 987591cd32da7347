import assert from "node:assert/strict";
import { before, test } from "node:test";
import { connectDatabase } from "@anvil/core";
import { findAccountByName } from "../../src/repositories/accounts.ts";
import type { ForgeTables } from "../../src/schemas/tables.ts";
import { createIssue } from "../../src/services/issues.ts";
import { getRepository } from "../../src/services/repositories.ts";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";

// Issue numbers come from the repository's counter in the transaction that inserts the issue:
// however many requests race, each number is given once and none is skipped.

forEachForge("forge issues: numbers under concurrency", (forge) => {
  let ada: Person;

  before(async () => {
    ada = await makePerson(forge.url, forge.adminToken, "ada");
    for (const name of ["race", "mixed"]) {
      const made = await api(forge.url, "POST", "/user/repos", { token: ada.token, body: { name } });
      assert.equal(made.status, 201);
    }
  });

  async function repository(name: string) {
    return api<{ open_issues_count: number }>(forge.url, "GET", `/repos/ada/${name}`, {
      token: ada.token,
      shape: "Repository",
    });
  }

  test("32 simultaneous POST …/issues get the numbers 1 to 32, once each", async () => {
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, n) =>
        api<{ number: number }>(forge.url, "POST", "/repos/ada/race/issues", {
          token: ada.token,
          body: { title: `racer ${n}` },
          shape: "Issue",
        }),
      ),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(32).fill(201),
    );
    assert.deepEqual(
      answers.map((answer) => answer.body.number).sort((a, b) => a - b),
      Array.from({ length: 32 }, (_, n) => n + 1),
    );
    assert.equal((await repository("race")).body.open_issues_count, 32);
    const listed = await api<unknown[]>(forge.url, "GET", "/repos/ada/race/issues?limit=50", {
      shape: "Issue[]",
    });
    assert.equal(listed.headers.get("x-total-count"), "32");
    assert.equal(listed.body.length, 32);
  });

  test("requests and a second connection (another process) racing share one sequence", async () => {
    const other = await connectDatabase<ForgeTables>(forge.databaseUrl);
    try {
      const account = await findAccountByName(other.db, "ada");
      assert.ok(account);
      const context = await getRepository(other, "ada", "mixed", account);
      const root = new URL("http://forge.test/");
      const [viaHttp, viaOther] = await Promise.all([
        Promise.all(
          Array.from({ length: 16 }, (_, n) =>
            api<{ number: number }>(forge.url, "POST", "/repos/ada/mixed/issues", {
              token: ada.token,
              body: { title: `http ${n}` },
            }),
          ),
        ),
        Promise.all(
          Array.from({ length: 16 }, (_, n) =>
            createIssue(other, context, account, { title: `other ${n}` }, root),
          ),
        ),
      ]);
      const numbers = [
        ...viaHttp.map((answer) => answer.body.number),
        ...viaOther.map((issue) => issue.number),
      ].sort((a, b) => a - b);
      assert.deepEqual(
        numbers,
        Array.from({ length: 32 }, (_, n) => n + 1),
      );
    } finally {
      await other.close();
    }
    assert.equal((await repository("mixed")).body.open_issues_count, 32);
  });
});
