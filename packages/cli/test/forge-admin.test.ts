import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { connectDatabase } from "@anvil/core";
import { forEachDatabase, type TempDir, tempDir } from "@anvil/core/testing";
import { runAnvil, startForge } from "./run.ts";

/** A user's stored password hash, read as another process would. */
async function storedHash(url: string, login: string): Promise<string> {
  const database = await connectDatabase<{ account: { lower_name: string; password_hash: string } }>(url);
  try {
    const row = await database.db
      .selectFrom("account")
      .select("password_hash")
      .where("lower_name", "=", login)
      .executeTakeFirstOrThrow();
    return row.password_hash;
  } finally {
    await database.close();
  }
}

forEachDatabase("anvil forge admin user", (database) => {
  let dir: TempDir;
  before(async () => {
    dir = await tempDir("anvil-forge-admin-");
  });
  after(() => dir.remove());

  const admin = (...args: string[]) =>
    runAnvil(["forge", "admin", "user", ...args, "--data-dir", dir.path, "--database", database.url]);

  test("the first user, made by the CLI, is an admin whose token works against the running forge", async () => {
    const created = await admin(
      "create",
      "--username",
      "boss",
      "--password",
      "bosspassword",
      "--email",
      "boss@example.com",
      "--admin",
      "--access-token",
    );
    assert.equal(created.code, 0, created.stderr);
    const token = /Access token was successfully created\.\.\. ([0-9a-f]{40})\n/.exec(created.stdout)?.[1];
    assert.ok(token, created.stdout);
    assert.match(created.stdout, /^New user 'boss' has been successfully created!\n/);

    const forge = await startForge(dir.path, ["--database", database.url]);
    try {
      const base = `http://127.0.0.1:${forge.port}/api/v1`;
      const me = await fetch(`${base}/user`, { headers: { authorization: `token ${token}` } });
      assert.equal(me.status, 200, "the first user need not change their password");
      assert.equal(((await me.json()) as { is_admin: boolean }).is_admin, true);

      // While the server runs, the CLI works on the same database.
      const second = await admin(
        "create",
        "--username",
        "bob",
        "--random-password",
        "--email",
        "bob@example.com",
      );
      assert.equal(second.code, 0, second.stderr);
      const password = /generated random password is '([^']+)'/.exec(second.stdout)?.[1] ?? "";
      assert.equal(password.length, 12);
      const bob = `Basic ${Buffer.from(`bob:${password}`).toString("base64")}`;
      assert.equal(
        (await fetch(`${base}/user`, { headers: { authorization: bob } })).status,
        403,
        "later users must change it",
      );
      const changed = await admin(
        "change-password",
        "-u",
        "bob",
        "-p",
        "bobpassword",
        "--must-change-password=false",
      );
      assert.equal(changed.stdout, "bob's password has been successfully updated!\n");
      // The command hashes at OWASP's scrypt cost (N=2^17, r=8, p=1), as every service process does.
      assert.match(await storedHash(database.url, "bob"), /^scrypt\$131072\$8\$1\$/);
      const bobNow = `Basic ${Buffer.from("bob:bobpassword").toString("base64")}`;
      assert.equal((await fetch(`${base}/user`, { headers: { authorization: bobNow } })).status, 200);

      const raw = await admin(
        "generate-access-token",
        "-u",
        "bob",
        "-t",
        "ci",
        "--scopes",
        "read:user",
        "--raw",
      );
      const bobToken = raw.stdout.trim();
      assert.match(bobToken, /^[0-9a-f]{40}$/);
      assert.equal(
        (await fetch(`${base}/user`, { headers: { authorization: `token ${bobToken}` } })).status,
        200,
      );
      assert.equal(
        (await fetch(`${base}/admin/users`, { headers: { authorization: `token ${bobToken}` } })).status,
        403,
      );

      const list = await admin("list");
      assert.match(
        list.stdout,
        /^ID\tUsername\tEmail\tIsActive\tIsAdmin\t2FA\n1\tboss\tboss@example\.com\ttrue\ttrue\tfalse\n2\tbob\t/,
      );
      const duplicate = await admin(
        "create",
        "--username",
        "BOB",
        "--password",
        "whatever1",
        "--email",
        "b2@example.com",
      );
      assert.equal(duplicate.code, 1);
      assert.match(duplicate.stderr, /user already exists \[name: BOB\]/);
      assert.equal((await admin("delete", "--username", "bob")).code, 0);
      assert.equal(
        (await fetch(`${base}/user`, { headers: { authorization: `token ${bobToken}` } })).status,
        401,
      );
      assert.equal((await admin("delete", "--username", "bob")).code, 1);
    } finally {
      forge.child.kill("SIGTERM");
      await forge.finished;
    }
  });
});
