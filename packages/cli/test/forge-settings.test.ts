import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { forEachDatabase, type TempDir, tempDir } from "@anvil/core/testing";
import { runAnvil, startForge } from "./run.ts";

forEachDatabase("anvil forge serve settings", (database) => {
  let dir: TempDir;
  before(async () => {
    dir = await tempDir("anvil-forge-settings-");
  });
  after(() => dir.remove());

  test("--max-creation-limit is the limit of accounts whose own max_repo_creation is -1", async () => {
    const cli = ["--data-dir", dir.path, "--database", database.url];
    // The first user is a site admin, who has no limit; the second one is limited.
    const boss = await runAnvil([
      "forge",
      "admin",
      "user",
      "create",
      "--username",
      "boss",
      "--password",
      "bosspassword",
      "--email",
      "boss@example.com",
      "--admin",
      ...cli,
    ]);
    assert.equal(boss.code, 0, boss.stderr);
    const made = await runAnvil([
      "forge",
      "admin",
      "user",
      "create",
      "--username",
      "lena",
      "--password",
      "lenapassword",
      "--email",
      "lena@example.com",
      "--must-change-password=false",
      "--access-token",
      ...cli,
    ]);
    assert.equal(made.code, 0, made.stderr);
    const token = /Access token was successfully created\.\.\. ([0-9a-f]{40})\n/.exec(made.stdout)?.[1];
    assert.ok(token, made.stdout);
    const forge = await startForge(dir.path, ["--database", database.url, "--max-creation-limit", "1"]);
    try {
      const create = (name: string) =>
        fetch(`http://127.0.0.1:${forge.port}/api/v1/user/repos`, {
          method: "POST",
          headers: { authorization: `token ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name }),
        });
      assert.equal((await create("first")).status, 201);
      const second = await create("second");
      assert.equal(second.status, 403);
      assert.match(((await second.json()) as { message: string }).message, /\[limit: 1\]/);
    } finally {
      forge.child.kill("SIGTERM");
      await forge.finished;
    }
    const refused = await runAnvil(["forge", "serve", ...cli], { ANVIL_FORGE_MAX_CREATION_LIMIT: "-2" });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /forge\.max-creation-limit .*"-2" is not a whole number, -1 or more/);
  });

  test("--attachment-max-size is the attachment limit /settings/attachment shows", async () => {
    const forge = await startForge(dir.path, ["--database", database.url, "--attachment-max-size", "3"]);
    try {
      const answer = await fetch(`http://127.0.0.1:${forge.port}/api/v1/settings/attachment`);
      assert.equal(((await answer.json()) as { max_size: number }).max_size, 3);
    } finally {
      forge.child.kill("SIGTERM");
      await forge.finished;
    }
  });
});
