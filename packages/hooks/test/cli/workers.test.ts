// `-workers N` as real processes: N processes share the port, the first one speaks for all of them
// (pidfile, start-up lines), forwards reload signals, and no process outlives it.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import {
  echoHook,
  freePort,
  get,
  launch as launchIn,
  type Running,
  waitFor,
  writeHooksFile,
} from "./hooks-process.ts";

let dir: string;

/** Leads its own process group, so that the group shows whether any copy is still alive. */
function launch(args: string[]): Running {
  return launchIn(args, { cwd: dir, detached: true });
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid: number): void {
  if (groupAlive(pid)) process.kill(-pid, "SIGKILL");
}

const hooksFile = (name: string, hooks: unknown[]) => writeHooksFile(dir, name, hooks);
/** Answers with the pid of the process that ran it: the shell's parent is the serving process. */
const whoHook = {
  id: "who",
  "execute-command": "/bin/sh",
  "include-command-output-in-response": true,
  "pass-arguments-to-command": [
    { source: "string", name: "-c" },
    { source: "string", name: "echo $PPID" },
  ],
};

/** The first process on a free port, once it serves; `pid` is its process group. */
async function startWorkers(
  hooks: string,
  extra: string[] = [],
): Promise<Running & { port: number; pid: number }> {
  const port = await freePort();
  const server = launch([
    "-hooks",
    hooks,
    "-ip",
    "127.0.0.1",
    "-port",
    String(port),
    "-workers",
    "2",
    "-verbose",
    ...extra,
  ]);
  const pid = server.child.pid ?? 0;
  try {
    await waitFor(() => server.output().includes("os signal watcher ready"), "the server to start");
  } catch (error) {
    killGroup(pid);
    throw error;
  }
  return { ...server, port, pid };
}

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "anvil-workers-"));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("-workers 2", () => {
  test("both processes serve; pidfile and start-up lines come from the first one only", async () => {
    const hooks = await hooksFile("serve.json", [whoHook]);
    const pidfile = path.join(dir, "serve.pid");
    const server = await startWorkers(hooks, ["-pidfile", pidfile]);
    try {
      assert.equal(await readFile(pidfile, "utf8"), String(server.pid));
      for (const line of [
        "version 2.8.0 starting",
        "loaded: who",
        "serving hooks on",
        "os signal watcher ready",
      ]) {
        assert.equal(server.output().split(line).length - 1, 1, `"${line}" once`);
      }
      const pids = new Set<string>();
      await waitFor(async () => {
        const answer = await get({ port: server.port }, "/hooks/who");
        assert.equal(answer.status, 200);
        pids.add(answer.body.trim());
        return pids.size === 2;
      }, "requests answered by two processes");
      assert.ok(pids.has(String(server.pid)), "the first process serves too");
    } finally {
      server.child.kill("SIGTERM");
    }
    assert.equal((await server.finished).code, 0);
  });

  test("SIGHUP to the first process reloads the hooks in every process", async () => {
    const hooks = await hooksFile("reload.json", [echoHook("first")]);
    const server = await startWorkers(hooks);
    try {
      assert.equal((await get({ port: server.port }, "/hooks/second")).status, 404);
      await writeFile(hooks, JSON.stringify([echoHook("first"), echoHook("second")]));
      server.child.kill("SIGHUP");
      // 40 new connections in a row: with any process left unreloaded, some would get 404.
      await waitFor(async () => {
        for (let i = 0; i < 40; i++) {
          if ((await get({ port: server.port }, "/hooks/second")).status !== 200) return false;
        }
        return true;
      }, "every process to reload");
      assert.deepEqual(await get({ port: server.port }, "/hooks/second"), {
        status: 200,
        body: "second fired",
      });
      assert.equal(server.output().split("caught HUP signal").length - 1, 1);
    } finally {
      server.child.kill("SIGTERM");
    }
    assert.equal((await server.finished).code, 0);
  });

  test("SIGTERM exits 0 with no process of the group left", async () => {
    const server = await startWorkers(await hooksFile("term.json", [echoHook("a")]));
    try {
      assert.equal(groupAlive(server.pid), true);
      server.child.kill("SIGTERM");
      assert.equal((await server.finished).code, 0);
      assert.equal(groupAlive(server.pid), false, "the copy exited before the first process");
    } finally {
      killGroup(server.pid);
    }
  });

  test("SIGKILL of the first process leaves no copy behind", async () => {
    const server = await startWorkers(await hooksFile("kill.json", [echoHook("a")]));
    try {
      server.child.kill("SIGKILL");
      await server.finished;
      await waitFor(() => !groupAlive(server.pid), "the copy to exit", 5000);
    } finally {
      killGroup(server.pid);
    }
  });
});

describe("-workers refusals", () => {
  const run = async (args: string[]) => {
    const { code, stdout, stderr } = await launch(args).finished;
    return { code, output: stdout + stderr };
  };

  test("a hook with max-concurrency: exit 1 before serving", async () => {
    const hooks = await hooksFile("limited.json", [{ ...echoHook("limited"), "max-concurrency": 1 }]);
    const result = await run(["-hooks", hooks, "-port", String(await freePort()), "-workers", "2"]);
    assert.equal(result.code, 1);
    assert.match(
      result.output,
      /hook "limited" sets max-concurrency, which cannot be enforced across 2 processes; use -workers 1 to serve it\n$/,
    );
  });

  test("with -socket or -setuid: exit 1 with a message", async () => {
    assert.deepEqual(await run(["-socket", path.join(dir, "s.sock"), "-workers", "2"]), {
      code: 1,
      output: "error: workers option cannot be used with the socket option\n",
    });
    assert.deepEqual(await run(["-setuid", "1", "-setgid", "1", "-workers", "2"]), {
      code: 1,
      output: "error: workers option cannot be used with setuid and setgid options\n",
    });
  });

  test("a port another reuseport group holds is in use, as without -workers", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) =>
      holder.listen({ port: 0, host: "127.0.0.1", reusePort: true }, resolve),
    );
    const { port } = holder.address() as net.AddressInfo;
    try {
      const hooks = await hooksFile("busy.json", [echoHook("a")]);
      const result = await run(["-hooks", hooks, "-ip", "127.0.0.1", "-port", String(port), "-workers", "2"]);
      assert.equal(result.code, 1);
      assert.match(
        result.output,
        new RegExp(`listen tcp 127.0.0.1:${port}: bind: address already in use\n$`),
      );
    } finally {
      holder.close();
    }
  });
});
