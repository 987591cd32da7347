// The built-in SSH server with the real OpenSSH client and real git on 127.0.0.1: who may log in,
// what they may run, and that clones and pushes arrive intact.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { parsePublicKey } from "../../src/ssh/index.ts";
import { type Forge, generateKeys, type Keys, makeRepositories, startForgeSsh } from "./fixture.ts";
import { headSubject } from "./repositories.ts";
import { gitSshCommand, type KeyPair, run, runOk, sshArgs } from "./tools.ts";

describe("SSH server: git over SSH with the OpenSSH client", () => {
  let dir: TempDir;
  let forge: Forge;
  let keys: Keys;

  before(async () => {
    dir = await tempDir("anvil-ssh-");
    keys = await generateKeys(dir.path);
    forge = await startForgeSsh(
      keys,
      await makeRepositories(dir.path),
      join(dir.path, "data", "ssh", "host.key"),
    );
  });

  after(async () => {
    await forge?.server.close();
    await dir?.remove();
  });

  const url = (path: string) => `ssh://git@127.0.0.1:${forge.server.port}/${path}`;
  const gitAs = (key: KeyPair, args: string[], cwd?: string, env: NodeJS.ProcessEnv = {}) =>
    run("git", args, { cwd, env: { GIT_SSH_COMMAND: gitSshCommand(key.privatePath), ...env } });

  test("git clone ssh://git@host:port/alice/demo.git brings the repository's commit", async () => {
    const target = join(dir.path, "clone-demo");
    const result = await gitAs(keys.alice, ["clone", url("alice/demo.git"), target]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await readFile(join(target, "README.md"), "utf8"), "# demo\n");
    assert.equal((await runOk("git", ["log", "-1", "--format=%s"], { cwd: target })).trim(), "first commit");
    assert.deepEqual(forge.authorized.at(-1), { owner: "alice", repo: "demo", service: "git-upload-pack" });
  });

  test("the SSH user name is handed to the key lookup but any name works, as with git@", async () => {
    const target = join(dir.path, "clone-other-user");
    const result = await gitAs(keys.alice, [
      "clone",
      `ssh://someone@127.0.0.1:${forge.server.port}/alice/demo`,
      target,
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(forge.lookups.at(-1)?.username, "someone");
    assert.equal(forge.lookups.at(-1)?.fingerprint, parsePublicKey(keys.alice.publicText).fingerprint);
  });

  test("protocol v2: git's GIT_PROTOCOL request reaches git-upload-pack, and v0 still works", async () => {
    const v2 = await gitAs(
      keys.alice,
      ["-c", "protocol.version=2", "ls-remote", url("alice/demo.git")],
      undefined,
      {
        GIT_TRACE_PACKET: "1",
      },
    );
    assert.equal(v2.code, 0, v2.stderr);
    assert.match(v2.stderr, /packet: +\S+< version 2$/m);
    assert.match(v2.stdout, /\trefs\/heads\/main\n/);

    const v0 = await gitAs(
      keys.alice,
      ["-c", "protocol.version=0", "ls-remote", url("alice/demo.git")],
      undefined,
      {
        GIT_TRACE_PACKET: "1",
      },
    );
    assert.equal(v0.code, 0, v0.stderr);
    assert.doesNotMatch(v0.stderr, /< version 2$/m);
    assert.match(v0.stdout, /\trefs\/heads\/main\n/);
  });

  test("a push to a repository alice may write arrives", async () => {
    const work = join(dir.path, "push-writable");
    assert.equal((await gitAs(keys.alice, ["clone", url("alice/writable.git"), work])).code, 0);
    await writeFile(join(work, "NOTES.md"), "pushed over ssh\n");
    await runOk("git", ["add", "NOTES.md"], { cwd: work });
    await runOk("git", ["commit", "-q", "-m", "pushed over ssh"], { cwd: work });
    const push = await gitAs(keys.alice, ["push", "origin", "main"], work);
    assert.equal(push.code, 0, push.stderr);
    assert.equal(await headSubject(join(forge.repositories, "alice", "writable.git")), "pushed over ssh");
    assert.deepEqual(forge.authorized.at(-1), {
      owner: "alice",
      repo: "writable",
      service: "git-receive-pack",
    });
  });

  test("a push to a read-only repository is refused and the user sees why", async () => {
    const work = join(dir.path, "push-readonly");
    assert.equal((await gitAs(keys.alice, ["clone", url("alice/demo.git"), work])).code, 0);
    await runOk("git", ["commit", "-q", "--allow-empty", "-m", "not allowed"], { cwd: work });
    const push = await gitAs(keys.alice, ["push", "origin", "main"], work);
    assert.notEqual(push.code, 0);
    assert.match(push.stderr, /anvil: you may read alice\/demo but not push to it/);
    assert.equal(await headSubject(join(forge.repositories, "alice", "demo.git")), "first commit");
  });

  test("a key the forge does not know cannot log in", async () => {
    const clone = await gitAs(keys.mallory, [
      "clone",
      url("alice/demo.git"),
      join(dir.path, "clone-mallory"),
    ]);
    assert.notEqual(clone.code, 0);
    assert.match(clone.stderr, /Permission denied \(publickey\)/);

    const ssh = await run("ssh", [...sshArgs(keys.mallory.privatePath, forge.server.port), "git@127.0.0.1"]);
    assert.equal(ssh.code, 255);
    assert.match(ssh.stderr, /Permission denied \(publickey\)/);
    assert.equal(forge.lookups.at(-1)?.fingerprint, parsePublicKey(keys.mallory.publicText).fingerprint);
  });

  test("RSA (rsa-sha2-512 and legacy ssh-rsa) and ECDSA keys log in too", async () => {
    const cases = [
      { key: keys.aliceRsa, extra: [] },
      { key: keys.aliceRsa, extra: ["-o", "PubkeyAcceptedAlgorithms=ssh-rsa"] },
      { key: keys.aliceEcdsa, extra: [] },
    ];
    for (const { key, extra } of cases) {
      const ssh = await run("ssh", [...sshArgs(key.privatePath, forge.server.port, extra), "git@127.0.0.1"]);
      assert.equal(ssh.code, 1, `${key.privatePath} ${extra.join(" ")}: ${ssh.stderr}`);
      assert.match(ssh.stderr, /successfully authenticated/);
      assert.equal(forge.lookups.at(-1)?.fingerprint, parsePublicKey(key.publicText).fingerprint);
    }
  });

  test("a shell, with or without a terminal, or any other command gets a friendly no and exit 1", async () => {
    const noShell = "Hi there, You've successfully authenticated, but anvil does not provide shell access.\n";
    const shell = await run("ssh", [...sshArgs(keys.alice.privatePath, forge.server.port), "git@127.0.0.1"]);
    assert.equal(shell.code, 1);
    assert.equal(shell.stderr, noShell);

    const terminal = await run("ssh", [
      ...sshArgs(keys.alice.privatePath, forge.server.port, ["-tt"]),
      "git@127.0.0.1",
    ]);
    assert.equal(terminal.code, 1);
    assert.match(terminal.stderr, /does not provide shell access\.\r\n/);

    const command = await run("ssh", [
      ...sshArgs(keys.alice.privatePath, forge.server.port),
      "git@127.0.0.1",
      "cat /etc/passwd",
    ]);
    assert.equal(command.code, 1);
    assert.equal(command.stderr, noShell);
    assert.equal(command.stdout, "");
  });

  test("a path that leaves owner/repo is refused before the forge is asked", async () => {
    const before = forge.authorized.length;
    for (const path of ["'../alice/demo.git'", "'alice/../demo.git'", "'alice/demo/extra.git'", "'/alice'"]) {
      const ssh = await run("ssh", [
        ...sshArgs(keys.alice.privatePath, forge.server.port),
        "git@127.0.0.1",
        `git-upload-pack ${path}`,
      ]);
      assert.equal(ssh.code, 1, path);
      assert.match(ssh.stderr, /invalid repository path/, path);
      assert.equal(ssh.stdout, "", path);
    }
    assert.equal(forge.authorized.length, before);
  });

  test("a repository the forge refuses to show is refused with its message", async () => {
    const clone = await gitAs(keys.alice, ["clone", url("bob/secret.git"), join(dir.path, "clone-secret")]);
    assert.notEqual(clone.code, 0);
    assert.match(clone.stderr, /anvil: bob\/secret does not exist/);
  });

  test("a forge failure answers that request with an error and the server carries on", async () => {
    for (const repo of ["broken", "nul"]) {
      const ssh = await run("ssh", [
        ...sshArgs(keys.alice.privatePath, forge.server.port),
        "git@127.0.0.1",
        `git-upload-pack 'alice/${repo}.git'`,
      ]);
      assert.notEqual(ssh.code, 0, repo);
      assert.equal(ssh.stdout, "", repo);
    }
    const logs = forge.logLines.join("");
    assert.match(logs, /SSH git authorization failed/);
    assert.match(logs, /SSH session failed/);
    const broken = await gitAs(keys.alice, ["ls-remote", url("alice/broken.git")]);
    assert.match(broken.stderr, /anvil: internal error/);
    const demo = await gitAs(keys.alice, ["ls-remote", url("alice/demo.git")]);
    assert.equal(demo.code, 0, demo.stderr);
  });

  test("a request git cannot read ends with git's exit status and message, as from any SSH host", async () => {
    const before = forge.logLines.length;
    for (const [service, body] of [
      ["git-upload-pack", "0009done\n"],
      ["git-upload-pack", "zzzz"],
      ["git-upload-pack", "fff0junk"],
    ]) {
      const ssh = spawn(
        "ssh",
        [
          ...sshArgs(keys.alice.privatePath, forge.server.port),
          "git@127.0.0.1",
          `${service} 'alice/demo.git'`,
        ],
        { stdio: ["pipe", "pipe", "pipe"] },
      );
      let stderr = "";
      ssh.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
      });
      ssh.stdout.resume();
      // git first advertises its refs; the junk follows as the client's answer.
      ssh.stdin.end(body);
      const [code] = (await once(ssh, "close")) as [number];
      assert.equal(code, 128, `${service} ${JSON.stringify(body)}: ${stderr}`);
      assert.match(stderr, /fatal: /);
    }
    const logs = forge.logLines.slice(before).join("");
    assert.doesNotMatch(logs, /SSH session failed|could not start git/);
    const demo = await gitAs(keys.alice, ["ls-remote", url("alice/demo.git")]);
    assert.equal(demo.code, 0, demo.stderr);
  });

  test("several clones at once all arrive", async () => {
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) =>
        gitAs(keys.alice, ["clone", url("alice/demo.git"), join(dir.path, `parallel-${n}`)]),
      ),
    );
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    for (const n of [1, 2, 3, 4, 5, 6]) {
      assert.equal(await readFile(join(dir.path, `parallel-${n}`, "README.md"), "utf8"), "# demo\n");
    }
  });

  test("a push and a clone far larger than the SSH window arrive byte for byte", async () => {
    const work = join(dir.path, "push-big");
    assert.equal((await gitAs(keys.alice, ["clone", url("alice/big.git"), work])).code, 0);
    const content = randomBytes(12 * 1024 * 1024);
    await writeFile(join(work, "blob.bin"), content);
    await runOk("git", ["add", "blob.bin"], { cwd: work });
    await runOk("git", ["commit", "-q", "-m", "a big file"], { cwd: work });
    const push = await gitAs(keys.alice, ["push", "origin", "main"], work);
    assert.equal(push.code, 0, push.stderr);

    const copy = join(dir.path, "clone-big");
    const clone = await gitAs(keys.alice, ["clone", url("alice/big.git"), copy]);
    assert.equal(clone.code, 0, clone.stderr);
    const digest = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
    assert.equal(digest(await readFile(join(copy, "blob.bin"))), digest(content));
  });

  test("logs name keys by fingerprint and never carry key material", () => {
    const logs = forge.logLines.join("");
    assert.match(logs, /SSH login/);
    assert.ok(logs.includes(parsePublicKey(keys.alice.publicText).fingerprint));
    for (const key of [keys.alice, keys.aliceRsa, keys.aliceEcdsa, keys.mallory]) {
      const base64 = key.publicText.split(" ")[1];
      assert.ok(!logs.includes(base64.slice(20, 60)), "a public key blob was logged");
    }
  });
});
