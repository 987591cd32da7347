import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  forEachDatabase,
  runAnvil,
  serviceConfig,
  startServiceProcesses,
  type TempDir,
  tempDir,
} from "@anvil/core/testing";
import { runGit } from "../../src/git/index.ts";
import { createApp } from "../../src/index.ts";
import { createUser } from "../../src/services/accounts.ts";
import { createToken } from "../../src/services/tokens.ts";
import { api } from "../support/forge.ts";
import { git } from "../support/git.ts";

// What a crash leaves between the repository rows and the bare repositories, and the start-up
// that settles it: every row with a whole repository, every directory with a row.

interface Repo {
  id: number;
  name: string;
  empty: boolean;
}

/** What a person sees: each of the user's repositories answers, lists its branches and clones. */
async function assertWhole(url: string, token: string, owner: string, work: string): Promise<string[]> {
  const repos: Repo[] = [];
  for (let page = 1; ; page++) {
    const listed = await api<Repo[]>(url, "GET", `/user/repos?limit=50&page=${page}`, { token });
    assert.equal(listed.status, 200);
    repos.push(...listed.body);
    if (listed.body.length < 50) break;
  }
  for (const repo of repos) {
    const branches = await api(url, "GET", `/repos/${owner}/${repo.name}/branches`, { token });
    assert.equal(branches.status, 200, `${repo.name}: ${JSON.stringify(branches.body)}`);
    const commits = await api(url, "GET", `/repos/${owner}/${repo.name}/commits`, { token });
    assert.equal(commits.status, repo.empty ? 409 : 200, `${repo.name}: ${JSON.stringify(commits.body)}`);
    const refs = await git(["ls-remote", `${url}/${owner}/${repo.name}.git`], work, {
      GIT_CONFIG_PARAMETERS: `'http.extraHeader=Authorization: token ${token}'`,
    });
    assert.equal(refs.code, 0, `${repo.name}: ${refs.stderr}`);
  }
  const names = repos.map((repo) => `${repo.name.toLowerCase()}.git`).sort();
  return names;
}

async function storedRepositories(dataDir: string, owner: string): Promise<string[]> {
  const folder = join(dataDir, "repositories", owner);
  return existsSync(folder) ? (await readdir(folder)).sort() : [];
}

forEachDatabase("forge: crash states settled at start-up", (database) => {
  let dir: TempDir;
  let work: TempDir;
  const start = async () => {
    const app = createApp(serviceConfig(dir.path, database.url));
    return { app, url: await app.listen() };
  };

  before(async () => {
    dir = await tempDir("anvil-forge-crash-");
    work = await tempDir("anvil-forge-crash-work-");
  });
  after(async () => {
    await dir.remove();
    await work.remove();
  });

  test("rows without their repository, moves and deletes cut off, strays and leftovers", async () => {
    const first = await start();
    const db = first.app.database;
    assert.ok(db);
    const owner = await createUser(db, {
      username: "ivy",
      email: "ivy@example.com",
      password: "ivypassword",
      must_change_password: false,
    });
    const token = (await createToken(db, owner, { name: "t", scopes: ["all"] })).secret;
    for (const name of ["kept", "half", "renamed", "deleted", "gone"]) {
      const made = await api(first.url, "POST", "/user/repos", { token, body: { name, auto_init: true } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    await first.app.close();

    const root = join(dir.path, "repositories");
    const place = (name: string) => join(root, "ivy", `${name}.git`);
    // A create cut off by an older version: the row, and a directory that is not a repository.
    await rm(join(place("half"), "HEAD"));
    await rm(join(place("half"), "objects"), { recursive: true });
    // A rename cut off before its commit: the directory moved, the row kept its old name.
    await rename(place("renamed"), place("renamed-new"));
    // A delete cut off before its commit: the directory in the trash, the row still there.
    await mkdir(join(root, ".trash"), { recursive: true });
    await rename(place("deleted"), join(root, ".trash", "cut-off"));
    // A row whose directory is gone altogether.
    await rm(place("gone"), { recursive: true });
    // A directory without a row (a delete cut off after its commit, or files put there by hand).
    await runGit(["init", "--bare", "--quiet", place("stray")]);
    // A create's build cut off long ago, and one that may still be running in another process.
    // Their names tell when they were made.
    const old = join(root, ".staging", `${Date.now() - 60 * 60 * 1000}-old.git`);
    const young = join(root, ".staging", `${Date.now()}-young.git`);
    await runGit(["init", "--bare", "--quiet", old]);
    await runGit(["init", "--bare", "--quiet", young]);

    const second = await start();
    try {
      assert.deepEqual(await assertWhole(second.url, token, "ivy", work.path), [
        "deleted.git",
        "gone.git",
        "half.git",
        "kept.git",
        "renamed.git",
      ]);
      assert.deepEqual(await storedRepositories(dir.path, "ivy"), [
        "deleted.git",
        "gone.git",
        "half.git",
        "kept.git",
        "renamed.git",
      ]);
      // Found again with their content.
      for (const name of ["kept", "renamed", "deleted"]) {
        const clone = await git(["clone", `${second.url}/ivy/${name}.git`, `clone-${name}`], work.path);
        assert.equal(clone.code, 0, clone.stderr);
        assert.equal(
          await readFile(join(work.path, `clone-${name}`, "README.md"), "utf8"),
          `# ${name}\n\n\n`,
        );
      }
      // Lost ones are empty repositories again, said so.
      for (const name of ["half", "gone"]) {
        const shown = await api<Repo>(second.url, "GET", `/repos/ivy/${name}`, { token });
        assert.equal(shown.body.empty, true, name);
      }
      // The stray and the broken directory are kept aside for a person, and the stray's name is free.
      const unadopted = join(root, ".unadopted", "ivy");
      assert.deepEqual((await readdir(unadopted)).sort(), ["half.git", "stray.git"]);
      const reused = await api(second.url, "POST", "/user/repos", { token, body: { name: "stray" } });
      assert.equal(reused.status, 201, JSON.stringify(reused.body));
      assert.ok(!existsSync(old), "an old build is swept");
      assert.ok(existsSync(young), "a young build may be another process's");
      assert.deepEqual(await readdir(join(root, ".trash")), []);
    } finally {
      await second.app.close();
    }
  });
});

forEachDatabase("forge: kill -9 during creates, renames and deletes", (database) => {
  let dir: TempDir;
  let work: TempDir;
  let token = "";
  // One process on the shared data directory and database (stopped by .stop(), or killed here).
  const serve = () =>
    startServiceProcesses(
      [
        "forge",
        "serve",
        "--data-dir",
        dir.path,
        "--database",
        database.url,
        "--log-level",
        "warn",
        "--ssh-port",
        "0",
      ],
      1,
    );

  before(async () => {
    dir = await tempDir("anvil-forge-kill-");
    work = await tempDir("anvil-forge-kill-work-");
    const created = await runAnvil([
      "forge",
      "admin",
      "user",
      "create",
      "--username",
      "kit",
      "--password",
      "kitpassword",
      "--email",
      "kit@example.com",
      "--access-token",
      "--data-dir",
      dir.path,
      "--database",
      database.url,
    ]);
    assert.equal(created.code, 0, created.stderr);
    token = /Access token was successfully created\.\.\. ([0-9a-f]{40})\n/.exec(created.stdout)?.[1] ?? "";
    assert.ok(token, created.stdout);
  });
  after(async () => {
    await dir.remove();
    await work.remove();
  });

  test("after each kill, a new process finds every row with its repository and every repository with its row", async () => {
    // Kills land at different points of the requests in flight.
    for (const [round, delayMs] of [30, 100, 250].entries()) {
      const doomed = await serve();
      try {
        const [server] = doomed.processes;
        const existing = (await api<Repo[]>(server.url, "GET", "/user/repos?limit=50", { token })).body;
        const requests = [
          ...Array.from({ length: 6 }, (_, n) =>
            api(server.url, "POST", "/user/repos", {
              token,
              body: { name: `r${round}-${n}`, auto_init: true },
            }),
          ),
          ...existing
            .slice(0, 2)
            .map((repo) => api(server.url, "DELETE", `/repos/kit/${repo.name}`, { token })),
          ...existing.slice(2, 4).map((repo) =>
            api(server.url, "PATCH", `/repos/kit/${repo.name}`, {
              token,
              body: { name: `${repo.name}-m` },
            }),
          ),
        ].map((request) => request.catch(() => undefined));
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        process.kill(-(server.child.pid as number), "SIGKILL");
        await Promise.all(requests);
      } finally {
        // Stopped for good whatever failed first (a no-op once killed).
        await doomed.stop();
      }

      const next = await serve();
      try {
        const rows = await assertWhole(next.urls[0], token, "kit", work.path);
        assert.deepEqual(await storedRepositories(dir.path, "kit"), rows, `round ${round}`);
      } finally {
        await next.stop();
      }
    }
  });

  test("a process that starts (and reconciles) while another creates repositories breaks none of them", async () => {
    const running = await serve();
    const made: string[] = [];
    let starting = true;
    const creator = async (lane: number) => {
      // Enough to overlap the other process's start, few enough to check each afterwards.
      for (let n = 0; starting && n < 8; n++) {
        const name = `live-${lane}-${n}`;
        const answer = await api(running.urls[0], "POST", "/user/repos", {
          token,
          body: { name, auto_init: true },
        });
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        made.push(name);
      }
    };
    let late: Awaited<ReturnType<typeof serve>> | undefined;
    try {
      const creators = [0, 1, 2].map(creator);
      late = await serve();
      starting = false;
      await Promise.all(creators);
      assert.ok(made.length > 0);
      const rows = await assertWhole(late.urls[0], token, "kit", work.path);
      for (const name of made) assert.ok(rows.includes(`${name}.git`), name);
      assert.deepEqual(await storedRepositories(dir.path, "kit"), rows);
    } finally {
      starting = false;
      await running.stop();
      await late?.stop();
    }
  });
});
