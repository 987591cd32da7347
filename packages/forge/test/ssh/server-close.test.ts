// Closing the SSH server ends what is running: open sessions, their git processes, the listener.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { generateKeys, type Keys, makeRepositories, startForgeSsh } from "./fixture.ts";
import { run, runOk, sshArgs } from "./tools.ts";

async function childCommandLines(): Promise<string> {
  return runOk("ps", ["-o", "args=", "--ppid", String(process.pid)]);
}

describe("SSH server close", { timeout: 120_000 }, () => {
  let dir: TempDir;
  let keys: Keys;
  let repositories: string;

  before(async () => {
    dir = await tempDir("anvil-ssh-close-");
    keys = await generateKeys(dir.path);
    repositories = await makeRepositories(dir.path);
  });
  after(() => dir?.remove());

  test("close ends an open git session, kills its git and stops listening", async () => {
    const forge = await startForgeSsh(keys, repositories, join(dir.path, "host.key"));
    const { port } = forge.server;
    const client = spawn(
      "ssh",
      [...sshArgs(keys.alice.privatePath, port), "git@127.0.0.1", "git-upload-pack 'alice/demo.git'"],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    const clientExit = once(client, "close");
    // The ref advertisement has arrived; upload-pack now waits for the client, which says nothing.
    await once(client.stdout, "data");
    assert.match(await childCommandLines(), /^git upload-pack /m);

    await forge.server.close();
    const [code] = await clientExit;
    assert.notEqual(code, 0);
    assert.doesNotMatch(await childCommandLines(), /^git upload-pack /m);

    const refused = await run("ssh", [...sshArgs(keys.alice.privatePath, port), "git@127.0.0.1"]);
    assert.equal(refused.code, 255);
    assert.match(refused.stderr, /Connection refused/);
  });
});
