// The host key: made once under the data directory, private to its owner, and the same key after a
// restart, so what clients put in known_hosts stays true.
import assert from "node:assert/strict";
import { chmod, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createLogger } from "@anvil/core";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { loadOrCreateHostKey } from "../../src/ssh/host-key.ts";
import { generateKeys, type Keys, makeRepositories, startForgeSsh } from "./fixture.ts";
import { keygenFingerprint, run } from "./tools.ts";

const logger = createLogger({ level: "silent" });

describe("SSH host key", () => {
  let dir: TempDir;
  let keys: Keys;
  let repositories: string;

  before(async () => {
    dir = await tempDir("anvil-ssh-host-");
    keys = await generateKeys(dir.path);
    repositories = await makeRepositories(dir.path);
  });
  after(() => dir?.remove());

  // Checks the host key the way a user's ssh does: known_hosts under a fixed alias, so the port
  // (new on every start) does not matter.
  const connect = (port: number, knownHosts: string, checking: "accept-new" | "yes") =>
    run("ssh", [
      "-F",
      "/dev/null",
      "-i",
      keys.alice.privatePath,
      "-o",
      "IdentitiesOnly=yes",
      "-o",
      "BatchMode=yes",
      "-o",
      `UserKnownHostsFile=${knownHosts}`,
      "-o",
      "HostKeyAlias=forge.test",
      "-o",
      `StrictHostKeyChecking=${checking}`,
      "-p",
      String(port),
      "git@127.0.0.1",
    ]);

  test("a restarted server presents the same host key, which known_hosts accepts", async () => {
    const hostKeyPath = join(dir.path, "data", "ssh", "host.key");
    const knownHosts = join(dir.path, "known_hosts");

    const first = await startForgeSsh(keys, repositories, hostKeyPath);
    const firstLogin = await connect(first.server.port, knownHosts, "accept-new");
    await first.server.close();
    assert.equal(firstLogin.code, 1, firstLogin.stderr);
    assert.match(await readFile(knownHosts, "utf8"), /^forge\.test ssh-ed25519 /);
    assert.equal((await stat(hostKeyPath)).mode & 0o777, 0o600);
    assert.equal(first.server.hostKeyFingerprint, (await keygenFingerprint(hostKeyPath)).fingerprint);

    const second = await startForgeSsh(keys, repositories, hostKeyPath);
    const secondLogin = await connect(second.server.port, knownHosts, "yes");
    await second.server.close();
    assert.equal(second.server.hostKeyFingerprint, first.server.hostKeyFingerprint);
    assert.equal(secondLogin.code, 1, secondLogin.stderr);
    assert.match(secondLogin.stderr, /successfully authenticated/);

    const other = await startForgeSsh(keys, repositories, join(dir.path, "other", "host.key"));
    const otherLogin = await connect(other.server.port, knownHosts, "yes");
    await other.server.close();
    assert.notEqual(other.server.hostKeyFingerprint, first.server.hostKeyFingerprint);
    assert.equal(otherLogin.code, 255);
    assert.match(otherLogin.stderr, /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/);
  });

  test("processes starting together on one data directory end up with one key", async () => {
    const path = join(dir.path, "together", "host.key");
    const loaded = await Promise.all([1, 2, 3, 4, 5].map(() => loadOrCreateHostKey(path, logger)));
    assert.equal(new Set(loaded.map((key) => key.fingerprint)).size, 1);
    assert.equal(loaded[0].fingerprint, (await keygenFingerprint(path)).fingerprint);
    assert.deepEqual(await readdir(join(dir.path, "together")), ["host.key"]);
  });

  // ssh2 writes about one Ed25519 key in 200 in a form it cannot read back; 1,000 first starts
  // meet one such key with near certainty.
  test("every generated host key is one the server can load", async () => {
    for (let start = 0; start < 1000; start++) {
      const path = join(dir.path, "fresh", `${start}.key`);
      await loadOrCreateHostKey(path, logger);
    }
  });

  test("a host key readable by others is made private again, and kept", async () => {
    const path = join(dir.path, "loose", "host.key");
    const created = await loadOrCreateHostKey(path, logger);
    await chmod(path, 0o644);
    const reloaded = await loadOrCreateHostKey(path, logger);
    assert.equal(reloaded.fingerprint, created.fingerprint);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  test("a file that is not a private key stops the start instead of being replaced", async () => {
    const path = join(dir.path, "broken", "host.key");
    await loadOrCreateHostKey(path, logger);
    await writeFile(path, "not a key\n");
    await assert.rejects(loadOrCreateHostKey(path, logger), /is not a usable unencrypted private key/);
    assert.equal(await readFile(path, "utf8"), "not a key\n");
  });
});
