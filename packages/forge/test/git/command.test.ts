import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { GitCommandError, initRepository, runGit, spawnGit } from "../../src/git/index.ts";

describe("the git command wrapper", { timeout: 60_000 }, () => {
  let dir: TempDir;
  let repo: string;
  before(async () => {
    dir = await tempDir("anvil-git-command-");
    repo = join(dir.path, "r.git");
    await initRepository(repo, { defaultBranch: "main" });
  });
  after(() => dir.remove());

  test("a failure names the command, its exit code and git's stderr", async () => {
    const missing = join(dir.path, "missing.git");
    await assert.rejects(runGit([`--git-dir=${missing}`, "log"]), (error: unknown) => {
      assert.ok(error instanceof GitCommandError);
      assert.equal(error.exitCode, 128);
      assert.match(error.message, new RegExp(`^git --git-dir=${missing} log failed: exit code 128: fatal: `));
      assert.match(error.stderr, /not a git repository/);
      return true;
    });
  });

  test("an accepted exit code is an answer, not a failure", async () => {
    const result = await runGit([`--git-dir=${repo}`, "rev-parse", "--verify", "--quiet", "nothing"], {
      acceptExitCodes: [1],
    });
    assert.deepEqual(result, { stdout: "", exitCode: 1 });
  });

  test("git sees neither the server's GIT_* variables nor the user's or system's configuration", async () => {
    const home = join(dir.path, "home");
    await mkdir(home);
    await writeFile(join(home, ".gitconfig"), "[user]\n\tname = From Home\n");
    const saved = { ...process.env };
    Object.assign(process.env, {
      HOME: home,
      GIT_DIR: repo,
      GIT_CONFIG_PARAMETERS: "'user.name'='From Parameters'",
      GIT_AUTHOR_NAME: "From Environment",
    });
    try {
      const name = await runGit(["config", "--get", "user.name"], { acceptExitCodes: [1] });
      assert.deepEqual(name, { stdout: "", exitCode: 1 });
      const ident = await runGit(["var", "GIT_AUTHOR_IDENT"], { acceptExitCodes: [128] });
      assert.doesNotMatch(ident.stdout, /From/);
      // With GIT_DIR ignored and cwd at /, there is no repository to find.
      const discovery = await runGit(["rev-parse", "--git-dir"], { acceptExitCodes: [128] });
      assert.equal(discovery.exitCode, 128);
    } finally {
      process.env = saved;
    }
  });

  test("output beyond the limit stops git and fails the command", async () => {
    const blob = (
      await runGit([`--git-dir=${repo}`, "hash-object", "-w", "--stdin"], { input: randomBytes(200_000) })
    ).stdout.trim();
    await assert.rejects(
      runGit([`--git-dir=${repo}`, "cat-file", "blob", blob], { maxOutputBytes: 1000 }),
      (error: unknown) =>
        error instanceof GitCommandError && /output exceeded 1000 bytes/.test(error.message),
    );
  });

  test("spawnGit streams stdin and stdout", async () => {
    const data = randomBytes(3 * 1024 * 1024);
    const git = spawnGit(["hash-object", "--stdin"]);
    const output: Buffer[] = [];
    git.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    for (let offset = 0; offset < data.length; offset += 64 * 1024) {
      if (!git.stdin.write(data.subarray(offset, offset + 64 * 1024))) {
        await new Promise((resolve) => git.stdin.once("drain", resolve));
      }
    }
    git.stdin.end();
    const exit = await git.exited;
    assert.equal(exit.code, 0);
    const expected = createHash("sha1").update(`blob ${data.length}\0`).update(data).digest("hex");
    assert.equal(Buffer.concat(output).toString().trim(), expected);
  });

  test("kill stops a git process that waits for input", async () => {
    const git = spawnGit(["hash-object", "--stdin"]);
    git.kill();
    const exit = await git.exited;
    assert.equal(exit.signal, "SIGTERM");
    git.kill();
  });
});
