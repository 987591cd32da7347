import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import { forEachDatabase, runAnvil, serviceProcessesOn, tempDir } from "@anvil/core/testing";
import { api } from "../support/forge.ts";
import { git } from "../support/git.ts";

// Several `anvil forge serve` processes on one database and one data directory, as behind a load
// balancer: a repository name raced through all of them at once is taken exactly once (the
// database's unique constraint decides), and only the winner makes the repository on disk.

const PROCESSES = 3;

forEachDatabase("forge: a name raced over several server processes", (database) => {
  // Started together, the processes also migrate the fresh database together.
  const services = serviceProcessesOn(database, "forge", PROCESSES, ["--ssh-port", "0"]);
  let token: string;

  before(async () => {
    const created = await runAnvil([
      "forge",
      "admin",
      "user",
      "create",
      "--username",
      "hana",
      "--password",
      "hanapassword",
      "--email",
      "hana@example.com",
      "--access-token",
      ...services.where,
    ]);
    assert.equal(created.code, 0, created.stderr);
    token = /Access token was successfully created\.\.\. ([0-9a-f]{40})\n/.exec(created.stdout)?.[1] ?? "";
    assert.ok(token, created.stdout);
  });

  test("16 simultaneous POST /user/repos of one name over 3 processes: one 201, the rest 409", async () => {
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, n) =>
        api<{ id?: number; message?: string }>(services.urls[n % PROCESSES], "POST", "/user/repos", {
          token,
          body: { name: "race", auto_init: true },
        }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, ...Array(15).fill(409)]);
    for (const loser of answers.filter((a) => a.status === 409))
      assert.equal(loser.body.message, "The repository with the same name already exists.");
    assert.deepEqual(
      await readdir(join(services.dataDir, "repositories", "hana")),
      ["race.git"],
      "one bare repository on disk",
    );

    const winner = answers.find((a) => a.status === 201)?.body.id;
    const listed = await api<Array<{ name: string }>>(services.urls[0], "GET", "/user/repos", { token });
    assert.deepEqual(
      listed.body.map((r) => r.name),
      ["race"],
      "one row in the database",
    );
    const work = await tempDir("anvil-forge-processes-clone-");
    try {
      for (const url of services.urls) {
        const shown = await api<{ id: number; empty: boolean }>(url, "GET", "/repos/hana/race", {
          token,
          shape: "Repository",
        });
        assert.equal(shown.status, 200, url);
        assert.equal(shown.body.id, winner, url);
        assert.equal(shown.body.empty, false, url);
        const refs = await git(["ls-remote", `${url}/hana/race.git`], work.path);
        assert.equal(refs.code, 0, refs.stderr);
        assert.match(refs.stdout, /\trefs\/heads\/main\n/, url);
      }
    } finally {
      await work.remove();
    }
  });
});
