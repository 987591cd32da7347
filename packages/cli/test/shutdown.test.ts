import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort, type TempDir, tempDir } from "@anvil/core/testing";
import { groupAlive, startForge, waitFor } from "./run.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));

async function healthy(url: string): Promise<true | undefined> {
  const res = await fetch(url);
  return res.status === 200 ? true : undefined;
}

async function exited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  const timer = new Promise<false>((resolve) => setTimeout(() => resolve(false), timeoutMs));
  return Promise.race([once(child, "exit").then(() => true), timer]);
}

describe("stopping anvil", () => {
  let dir: TempDir;
  before(async () => {
    dir = await tempDir("anvil-stop-");
  });
  after(() => dir.remove());

  test("SIGTERM to the process `npm start` made stops every service", { timeout: 120_000 }, async () => {
    const [forge, inventory, hooks] = [await freePort(), await freePort(), await freePort()];
    const npm = spawn("npm", ["start"], {
      cwd: root,
      env: {
        ...process.env,
        ANVIL_HOST: "127.0.0.1",
        ANVIL_DATA_DIR: dir.path,
        ANVIL_FORGE_PORT: String(forge),
        ANVIL_INVENTORY_PORT: String(inventory),
        ANVIL_HOOKS_PORT: String(hooks),
        ANVIL_FORGE_SSH_PORT: "0",
      },
      stdio: "ignore",
      detached: true,
    });
    try {
      await waitFor("forge", () => healthy(`http://127.0.0.1:${forge}/api/healthz`), 90_000);
      npm.kill("SIGTERM");
      assert.ok(await exited(npm, 15_000), "npm start exits");
      await waitFor(
        "every process of the group to exit",
        async () => (groupAlive(npm.pid as number) ? undefined : true),
        15_000,
      );
      await assert.rejects(fetch(`http://127.0.0.1:${forge}/api/healthz`), "the forge no longer answers");
    } finally {
      if (groupAlive(npm.pid as number)) process.kill(-(npm.pid as number), "SIGKILL");
    }
  });

  test("a request that never finishes holds SIGTERM up only for the grace period", {
    timeout: 60_000,
  }, async () => {
    const { port, child, finished } = await startForge(dir.path, ["--shutdown-grace", "1"]);
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    // The anonymous write is answered (401) before its body is read, but the body it announced
    // never comes, so its connection stays busy; read the answer so that "close" can follow.
    socket.resume();
    const socketClosed = once(socket, "close");
    socket.write(
      "POST /api/v1/user/repos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{",
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill("SIGTERM");
    const stopped = await Promise.race([
      finished,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20_000)),
    ]);
    if (stopped === undefined) child.kill("SIGKILL");
    assert.ok(stopped, "anvil exited despite the stuck client");
    assert.equal(stopped.code, 0, stopped.stderr);
    await socketClosed;
    assert.match(stopped.stdout, /requests still running after 1000 ms/);
  });

  test("a second SIGTERM during the grace period exits at once", { timeout: 60_000 }, async () => {
    const { port, child, finished } = await startForge(dir.path, ["--shutdown-grace", "600"]);
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write("POST /api/v1/user/repos HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{");
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(!(await exited(child, 0)), "the first SIGTERM waits for the stuck request");
    child.kill("SIGTERM");
    const stopped = await exited(child, 10_000);
    if (!stopped) child.kill("SIGKILL");
    socket.destroy();
    assert.ok(stopped, "the second SIGTERM ends the process");
    assert.equal((await finished).code, 1);
  });
});
