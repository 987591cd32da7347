import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { freePort, type TempDir, tempDir } from "@anvil/core/testing";
import { groupAlive, runAnvil, startAnvil, waitFor } from "./run.ts";

describe("anvil serve", () => {
  let dir: TempDir;
  before(async () => {
    dir = await tempDir("anvil-serve-");
  });
  after(() => dir.remove());

  test("starts all three services, each health endpoint answers, SIGTERM stops it cleanly", async () => {
    const [forge, inventory, hooks, ssh] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const { child, finished } = startAnvil([
      "serve",
      "--forge-ssh-port",
      String(ssh),
      "--host",
      "127.0.0.1",
      "--data-dir",
      dir.path,
      "--forge-port",
      String(forge),
      "--inventory-port",
      String(inventory),
      "--hooks-port",
      String(hooks),
    ]);
    try {
      const forgeHealth = await waitFor("forge", async () => {
        const res = await fetch(`http://127.0.0.1:${forge}/api/healthz`);
        return res.status === 200
          ? ((await res.json()) as { status: string; checks: Record<string, unknown> })
          : undefined;
      });
      assert.equal(forgeHealth.status, "pass");
      assert.ok("database:ping" in forgeHealth.checks);
      // The services start one after the other.
      const inventoryHealth = await waitFor("inventory", () => fetch(`http://127.0.0.1:${inventory}/health`));
      assert.equal(inventoryHealth.status, 200);
      assert.deepEqual(await inventoryHealth.json(), { status: "ok" });
      const banner = await new Promise<string>((resolve, reject) => {
        const socket = connect(ssh, "127.0.0.1");
        socket.once("data", (chunk) => {
          socket.destroy();
          resolve(chunk.toString("latin1"));
        });
        socket.once("error", reject);
      });
      assert.match(banner, /^SSH-2\.0-/, "the forge's SSH server answers");
      const hooksHealth = await waitFor("hooks", () => fetch(`http://127.0.0.1:${hooks}/`));
      assert.equal(hooksHealth.status, 200);
      assert.equal(await hooksHealth.text(), "OK");
      assert.ok(existsSync(join(dir.path, "forge.db")), "forge database under the data dir");
      assert.ok(existsSync(join(dir.path, "inventory.db")), "inventory database under the data dir");
    } catch (error) {
      // What anvil said is the likeliest explanation of a service that never answered.
      child.kill("SIGTERM");
      const said = await finished;
      throw new Error(`${(error as Error).message}; anvil serve exited ${said.code}: ${said.stderr}`);
    }
    child.kill("SIGTERM");
    const result = await finished;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.signal, null);
    assert.equal(groupAlive(child.pid as number), false, "no process of anvil's group is left");
  });

  test("a port already in use: exit 1 with a clear message, nothing left running", async () => {
    const port = await freePort();
    const { createServer } = await import("node:net");
    const blocker = createServer().listen(port, "127.0.0.1");
    await new Promise((resolve) => blocker.once("listening", resolve));
    try {
      const { child, finished } = startAnvil([
        "serve",
        "--host",
        "127.0.0.1",
        "--data-dir",
        dir.path,
        "--forge-port",
        "0",
        "--forge-ssh-port",
        "0",
        "--inventory-port",
        String(port),
        "--hooks-port",
        "0",
      ]);
      const result = await finished;
      assert.equal(result.code, 1);
      assert.match(result.stderr, /EADDRINUSE|address already in use/i);
      assert.equal(groupAlive(child.pid as number), false);
    } finally {
      blocker.close();
    }
  });
});

describe("anvil command", () => {
  test("--version and --help", async () => {
    const version = await runAnvil(["--version"]);
    assert.equal(version.code, 0);
    assert.match(version.stdout.trim(), /^\d+\.\d+\.\d+$/);
    const help = await runAnvil(["--help"]);
    assert.equal(help.code, 0);
    for (const command of ["serve", "forge", "inventory", "hooks", "migrate"])
      assert.match(help.stdout, new RegExp(`\\n\\s+${command}\\b`));
    const serveHelp = await runAnvil(["serve", "--help"]);
    assert.match(serveHelp.stdout, /--forge-port <value>.*ANVIL_FORGE_PORT/);
    const forgeHelp = await runAnvil(["forge", "serve", "--help"]);
    assert.match(forgeHelp.stdout, /--port <value>/);
  });

  test("a bad setting stops with a message naming it", async () => {
    const result = await runAnvil(["forge", "serve"], { ANVIL_FORGE_PORT: "eighty" });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /invalid value for forge\.port \(from variable ANVIL_FORGE_PORT\): "eighty" is not a port number/,
    );
  });

  test("migrate applies pending migrations and reports the services", async () => {
    const dir = await tempDir();
    try {
      const result = await runAnvil(["migrate", "--data-dir", dir.path]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^forge: (up to date|applied .+)\ninventory: (up to date|applied .+)\n$/);
      assert.ok(existsSync(join(dir.path, "forge.db")));
      const again = await runAnvil(["migrate", "forge", "--data-dir", dir.path]);
      assert.equal(again.stdout, "forge: up to date\n");
      const wrong = await runAnvil(["migrate", "gitea", "--data-dir", dir.path]);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /unknown service "gitea"/);
    } finally {
      await dir.remove();
    }
  });
});
