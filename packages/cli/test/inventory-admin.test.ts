import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { forEachDatabase, type TempDir, tempDir } from "@anvil/core/testing";
import { runAnvil, startInventory } from "./run.ts";

forEachDatabase("anvil inventory admin", (database) => {
  let dir: TempDir;
  before(async () => {
    dir = await tempDir("anvil-inventory-admin-");
  });
  after(() => dir.remove());

  const admin = (...args: string[]) =>
    runAnvil(["inventory", "admin", ...args, "--data-dir", dir.path, "--database", database.url]);
  const lastLine = (text: string) => text.trimEnd().split("\n").at(-1) ?? "";

  test("a superuser and their tokens, made before and while the server runs", async () => {
    const created = await admin(
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
    assert.match(created.stdout, /^User 'boss' \(id 1\) has been created\.\n$/);
    const made = await admin("token", "create", "--username", "boss", "--name", "ci");
    assert.equal(made.code, 0, made.stderr);
    const token = lastLine(made.stdout);
    assert.match(token, /^[0-9a-f]{64}$/);

    const inventory = await startInventory(dir.path, ["--database", database.url]);
    try {
      const base = `http://127.0.0.1:${inventory.port}/api/v1`;
      const bearer = (secret: string) => ({
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
      });
      const me = await fetch(`${base}/users/me`, { headers: bearer(token) });
      assert.equal(me.status, 200);
      assert.deepEqual(((await me.json()) as { permissions: unknown }).permissions, { superuser: "1" });

      const readOnly = await admin(
        "token",
        "create",
        "--username",
        "boss",
        "--name",
        "reports",
        "--read-only",
      );
      const reader = lastLine(readOnly.stdout);
      assert.equal((await fetch(`${base}/companies`, { headers: bearer(reader) })).status, 200);
      const write = await fetch(`${base}/companies`, {
        method: "POST",
        headers: bearer(reader),
        body: JSON.stringify({ name: "Acme" }),
      });
      assert.equal(write.status, 403);

      const scopedMade = await admin(
        "token",
        "create",
        "--username",
        "boss",
        "--name",
        "stocktake",
        "--scope",
        "assets.view,assets.checkout",
      );
      assert.equal(scopedMade.code, 0, scopedMade.stderr);
      const scoped = lastLine(scopedMade.stdout);
      assert.match(scoped, /^[0-9a-f]{64}$/);
      assert.equal((await fetch(`${base}/hardware`, { headers: bearer(scoped) })).status, 200);
      const outside = await fetch(`${base}/companies`, { headers: bearer(scoped) });
      assert.equal(outside.status, 403);
      assert.deepEqual(await outside.json(), { message: "This action is unauthorized." });
      const tokens = await fetch(`${base}/account/personal-access-tokens`, { headers: bearer(token) });
      const listed = (await tokens.json()) as Array<{ name: string; scopes: string[] | null }>;
      assert.deepEqual(listed.find((row) => row.name === "stocktake")?.scopes, [
        "assets.view",
        "assets.checkout",
      ]);
      assert.equal(listed.find((row) => row.name === "ci")?.scopes, null);
      const unknownScope = await admin(
        "token",
        "create",
        "--username",
        "boss",
        "--name",
        "typo",
        "--scope",
        "assets.view,asset.checkout",
      );
      assert.equal(unknownScope.code, 1);
      assert.match(unknownScope.stderr, /The selected scopes are invalid: "asset\.checkout"\./);

      const duplicate = await admin(
        "user",
        "create",
        "--username",
        "boss",
        "--password",
        "otherpassword",
        "--email",
        "b2@example.com",
      );
      assert.equal(duplicate.code, 1);
      assert.match(duplicate.stderr, /The username must be unique\./);
      const nobody = await admin("token", "create", "--username", "nobody", "--name", "x");
      assert.equal(nobody.code, 1);
      assert.match(nobody.stderr, /user "nobody" does not exist/);
    } finally {
      inventory.child.kill("SIGTERM");
      await inventory.finished;
    }
  });
});
