import assert from "node:assert/strict";
import { before, test } from "node:test";
import { OWASP_SCRYPT_COST, passwordHashCost, setPasswordHashCost } from "@anvil/core";
import { serviceConfig, startApp, TEST_SCRYPT_COST, tempDir } from "@anvil/core/testing";
import { createApp } from "../../src/index.ts";
import { api, basic, type Forge, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makeUser } from "../support/people.ts";

// Password logins (basic auth on the API and on git over HTTP): the same answer and work for a
// name nobody has, failures limited per account name and per client address in the database,
// and hashes at an older cost made anew on a successful login.

const LIMITS = { accountFailures: 3, addressFailures: 5, windowSeconds: 900, trustSeconds: 86_400 };

function from(address: string): Record<string, string> {
  return { "x-forwarded-for": address };
}

async function whoAmI(url: string, user: string, password: string, address: string) {
  return api<{ login?: string; message?: string }>(url, "GET", "/user", {
    auth: basic(user, password),
    headers: from(address),
  });
}

function assertRefused(answer: { status: number; headers: Headers; body: unknown }) {
  assert.equal(answer.status, 429, JSON.stringify(answer.body));
  const retryAfter = Number(answer.headers.get("retry-after"));
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 2 * 900,
    `Retry-After ${retryAfter}`,
  );
  assert.match((answer.body as { message: string }).message, /too many failed login attempts/);
}

async function storedHash(server: Forge, login: string): Promise<string> {
  const database = server.app.database;
  if (!database) throw new Error("no database");
  const row = await database.db
    .selectFrom("account")
    .select("password_hash")
    .where("lower_name", "=", login)
    .executeTakeFirstOrThrow();
  return row.password_hash;
}

forEachForge(
  "password logins",
  (forge) => {
    before(async () => {
      for (const name of ["alice", "bob", "carol", "dave", "erin"])
        await makeUser(forge.url, forge.adminToken, name);
    });

    test("a name nobody has is answered as a wrong password is", async () => {
      const unknown = await whoAmI(forge.url, "nobody", "password123", "10.9.0.1");
      const wrong = await whoAmI(forge.url, "erin", "not-her-password", "10.9.0.2");
      assert.equal(unknown.status, 401);
      assert.deepEqual(unknown.body, wrong.body);
    });

    test("an unknown name costs the scrypt work of a known one", async () => {
      // CPU time of this process (the forge runs in it, scrypt on its thread pool): unlike wall
      // time, other work on the machine does not change it.
      const previous = passwordHashCost();
      setPasswordHashCost(OWASP_SCRYPT_COST);
      try {
        await makeUser(forge.url, forge.adminToken, "owasp");
        const cpu = async (user: string, address: string) => {
          const start = process.cpuUsage();
          const answer = await whoAmI(forge.url, user, "wrong-password", address);
          assert.equal(answer.status, 401);
          const used = process.cpuUsage(start);
          return used.user + used.system;
        };
        const known = await cpu("owasp", "10.8.0.1");
        const unknown = await cpu("nobody-at-all", "10.8.0.2");
        assert.ok(unknown > known / 2, `unknown name: ${unknown} µs of CPU, known: ${known} µs`);
      } finally {
        setPasswordHashCost(previous);
      }
    });

    test("failures on one account name lock it for new addresses, not for one that signed in before", async () => {
      assert.equal((await whoAmI(forge.url, "alice", "password123", "10.0.0.1")).status, 200);
      for (const address of ["10.0.1.1", "10.0.1.2", "10.0.1.3"])
        assert.equal((await whoAmI(forge.url, "alice", "guess", address)).status, 401);
      assertRefused(await whoAmI(forge.url, "alice", "guess", "10.0.1.4"));
      assertRefused(await whoAmI(forge.url, "ALICE", "password123", "10.0.1.5"));
      const trusted = await whoAmI(forge.url, "alice", "password123", "10.0.0.1");
      assert.equal(trusted.status, 200, JSON.stringify(trusted.body));
      assert.equal(trusted.body.login, "alice");
      // Another account is not touched.
      assert.equal((await whoAmI(forge.url, "bob", "password123", "10.0.1.6")).status, 200);
    });

    test("a name nobody has is limited as an existing one is", async () => {
      for (const address of ["10.0.2.1", "10.0.2.2", "10.0.2.3"])
        assert.equal((await whoAmI(forge.url, "ghost", "guess", address)).status, 401);
      assertRefused(await whoAmI(forge.url, "ghost", "guess", "10.0.2.4"));
    });

    test("failures from one address lock that address out, whatever the name, and no other", async () => {
      const names = ["bob", "carol", "dave", "x1", "x2"];
      for (const name of names)
        assert.equal((await whoAmI(forge.url, name, "guess", "10.0.3.1")).status, 401);
      assertRefused(await whoAmI(forge.url, "carol", "password123", "10.0.3.1"));
      assert.equal((await whoAmI(forge.url, "carol", "password123", "10.0.3.2")).status, 200);
    });

    test("an IPv6 client is one address for its whole /64", async () => {
      for (const [index, name] of ["y1", "y2", "y3", "y4", "y5"].entries())
        assert.equal((await whoAmI(forge.url, name, "guess", `2001:db8:1:2::${index + 1}`)).status, 401);
      assertRefused(await whoAmI(forge.url, "dave", "password123", "2001:db8:1:2:ffff::9"));
      assert.equal((await whoAmI(forge.url, "dave", "password123", "2001:db8:1:3::1")).status, 200);
    });

    test("git over HTTP counts failures with the API and is refused with 429", async () => {
      await makeUser(forge.url, forge.adminToken, "gina");
      const made = await api(forge.url, "POST", "/admin/users/gina/repos", {
        token: forge.adminToken,
        body: { name: "limited", auto_init: true, private: true },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal((await whoAmI(forge.url, "gina", "guess", "10.0.5.1")).status, 401);
      const work = await tempDir();
      try {
        const clone = (password: string, target: string) =>
          git(
            ["clone", "--quiet", `${withCredentials(forge.url, "gina", password)}/gina/limited.git`, target],
            work.path,
          );
        // One failure on the API and two by git fill gina's limit of three.
        for (const target of ["a", "b"]) {
          const wrong = await clone("guess", target);
          assert.notEqual(wrong.code, 0);
          assert.match(wrong.stderr, /Authentication failed/);
        }
        const refused = await clone("password123", "c");
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /429/);
        const answer = await fetch(`${forge.url}/gina/limited.git/info/refs?service=git-upload-pack`, {
          headers: { authorization: basic("gina", "password123") },
        });
        assertRefused({ status: answer.status, headers: answer.headers, body: await answer.json() });
        const viaApi = await api(forge.url, "GET", "/user", { auth: basic("gina", "password123") });
        assertRefused(viaApi);
      } finally {
        await work.remove();
      }
    });

    test("failures counted by one server limit another on the same database", async () => {
      const other = await startApp(({ dataDir }) =>
        createApp(serviceConfig(dataDir, forge.databaseUrl, { trustProxy: true }), { loginLimits: LIMITS }),
      );
      try {
        for (const address of ["10.0.6.1", "10.0.6.2", "10.0.6.3"])
          assert.equal((await whoAmI(forge.url, "shared", "guess", address)).status, 401);
        assertRefused(await whoAmI(other.url, "shared", "guess", "10.0.6.4"));
      } finally {
        await other.close();
      }
    });

    test("a hash made at an older cost is made anew at the current cost on a successful login", async () => {
      setPasswordHashCost({ N: 2 ** 14, r: 8, p: 1 });
      try {
        await makeUser(forge.url, forge.adminToken, "olduser");
      } finally {
        setPasswordHashCost(TEST_SCRYPT_COST);
      }
      const old = await storedHash(forge.server, "olduser");
      assert.match(old, /^scrypt\$16384\$8\$1\$/);
      assert.equal((await whoAmI(forge.url, "olduser", "wrong", "10.0.4.1")).status, 401);
      assert.equal(await storedHash(forge.server, "olduser"), old, "a failed login changes nothing");
      assert.equal((await whoAmI(forge.url, "olduser", "password123", "10.0.4.1")).status, 200);
      const renewed = await storedHash(forge.server, "olduser");
      const { N, r, p } = TEST_SCRYPT_COST;
      assert.ok(renewed.startsWith(`scrypt$${N}$${r}$${p}$`), renewed);
      assert.equal((await whoAmI(forge.url, "olduser", "password123", "10.0.4.1")).status, 200);
      assert.equal(await storedHash(forge.server, "olduser"), renewed, "a current hash is kept");
    });
  },
  { forge: { loginLimits: LIMITS }, trustProxy: true },
);
