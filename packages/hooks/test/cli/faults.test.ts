// The hook runner under faults, as a real process: shutdown with slow clients and running
// commands, file descriptors running out, huge values in -verbose logs, command output beyond its
// limit, and commands started with child_process where posix_spawn cannot be loaded.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { access, chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { freePort, type LaunchOptions, launch, type Running, waitFor } from "./hooks-process.ts";

let dir: string;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "anvil-faults-"));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** A process still running (a zombie not reaped yet counts as gone). */
async function alive(pid: number): Promise<boolean> {
  const state = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return state !== "" && !/^\d+ \(.*\) Z/.test(state);
}

async function script(name: string, body: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

/** Starts a hook runner on `hooks` and resolves once it serves; `flags` come after -hooks, -ip, -port. */
async function serve(
  name: string,
  hooks: unknown[],
  flags: string[] = [],
  options: Omit<LaunchOptions, "cwd"> = {},
): Promise<{ server: Running; port: number }> {
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(hooks));
  const port = await freePort();
  const args = ["-hooks", file, "-ip", "127.0.0.1", "-port", String(port), "-verbose", ...flags];
  const server = launch(args, { cwd: dir, ...options });
  await waitFor(() => server.output().includes("os signal watcher ready"), "the server to start", 20_000);
  return { server, port };
}

/** Ends a server a failed test left running. */
function stop(server: Running): void {
  if (server.child.exitCode === null) server.child.kill("SIGKILL");
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, target: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: target, agent: false }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on("error", reject);
  });
}

/** Writes `request` on a new connection and resolves with all that comes back before it closes. */
function exchange(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(request));
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(answer));
  });
}

/** Resolves with how the process ended, or fails after `ms`. */
async function endsWithin(server: Running, ms: number, what: string) {
  const result = await Promise.race([server.finished, sleep(ms, undefined, { ref: false })]);
  assert.ok(result !== undefined, `${what}: still running ${ms} ms later`);
  return result;
}

describe("shutdown", () => {
  test("SIGTERM: a request still sending its body gets 503, runs nothing and holds nothing up", {
    timeout: 30_000,
  }, async () => {
    const marker = path.join(dir, "slow-ran");
    const command = await script("slow.sh", `touch ${marker}`);
    const { server, port } = await serve("slow", [
      { id: "slow", "execute-command": command, "response-message": "fired" },
    ]);
    try {
      const answer = exchange(port, "POST /hooks/slow HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc");
      await waitFor(() => server.output().includes("slow got matched"), "the request to reach the hook");
      server.child.kill("SIGTERM");
      const result = await endsWithin(server, 10_000, "after SIGTERM");
      assert.equal(result.code, 0);
      assert.match(
        await answer,
        /^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*\r\n\r\nThe server is shutting down/,
      );
      await sleep(300);
      assert.equal(await exists(marker), false, "the hook's command did not run");
    } finally {
      stop(server);
    }
  });

  test("SIGTERM: a started command finishes and is answered; one still waiting its turn is not started", {
    timeout: 30_000,
  }, async () => {
    const started = path.join(dir, "turns");
    const command = await script("turn.sh", `echo run >> ${started}\nsleep 1\necho done`);
    const { server, port } = await serve("turns", [
      {
        id: "one-at-a-time",
        "execute-command": command,
        "include-command-output-in-response": true,
        "max-concurrency": 1,
        "max-queue": 5,
      },
    ]);
    try {
      const first = get(port, "/hooks/one-at-a-time");
      await waitFor(
        async () => (await readFile(started, "utf8").catch(() => "")) === "run\n",
        "the first command",
      );
      const second = get(port, "/hooks/one-at-a-time");
      await waitFor(
        () => server.output().split("one-at-a-time hook triggered successfully").length === 3,
        "the second request to wait for its turn",
      );
      server.child.kill("SIGTERM");
      const done = await first;
      assert.equal(done.status, 200);
      assert.equal(done.body, "done\n");
      const refused = await second;
      assert.equal(refused.status, 503);
      assert.equal(refused.body, "The server is shutting down; the hook's command was not run.\n");
      assert.equal((await endsWithin(server, 10_000, "after SIGTERM")).code, 0);
      assert.equal(await readFile(started, "utf8"), "run\n", "the waiting command never started");
    } finally {
      stop(server);
    }
  });

  test("a second SIGTERM exits at once, kills the running command and removes its temp file", {
    timeout: 30_000,
  }, async () => {
    const marker = path.join(dir, "long-pid");
    const command = await script("long.sh", `echo "$$ $PAYLOAD_FILE" > ${marker}\nexec sleep 30`);
    const { server, port } = await serve("long", [
      {
        id: "long",
        "execute-command": command,
        "response-message": "started",
        "pass-file-to-command": [{ source: "string", name: "secret", envname: "PAYLOAD_FILE" }],
      },
    ]);
    try {
      assert.equal((await get(port, "/hooks/long")).body, "started");
      await waitFor(
        async () => (await readFile(marker, "utf8").catch(() => "")).endsWith("\n"),
        "the command",
      );
      const [pid, file] = (await readFile(marker, "utf8")).trim().split(" ");
      assert.ok(await exists(file));
      server.child.kill("SIGTERM");
      await sleep(500);
      assert.equal(server.child.exitCode, null, "the first SIGTERM waits for the running command");
      server.child.kill("SIGTERM");
      assert.equal((await endsWithin(server, 3000, "after the second SIGTERM")).code, 0);
      await waitFor(async () => !(await alive(Number(pid))), "the command to be killed", 3000);
      assert.equal(await exists(file), false, "the temp file is removed");
    } finally {
      stop(server);
    }
  });
});

describe("file descriptors", () => {
  test("under ulimit -n 256, 800 simultaneous requests are all answered, and every 200 runs its command", {
    timeout: 120_000,
  }, async () => {
    const runs = path.join(dir, "runs");
    const command = await script("count.sh", `echo run >> ${runs}`);
    const { server, port } = await serve(
      "burst",
      [{ id: "count", "execute-command": command, "response-message": "fired" }],
      [],
      { openFiles: 256 },
    );
    try {
      const request = "GET /hooks/count HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      const answers = await Promise.all(Array.from({ length: 800 }, () => exchange(port, request)));
      const statuses = answers.map((answer) => /^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? "no answer");
      const count = (status: string) => statuses.filter((s) => s === status).length;
      assert.equal(count("200") + count("503"), 800, `answers: ${[...new Set(statuses)].join(", ")}`);
      assert.ok(count("200") > 0);
      const ran = async () => (await readFile(runs, "utf8").catch(() => "")).split("\n").length - 1;
      await waitFor(async () => (await ran()) >= count("200"), "every accepted command to run", 60_000);
      await sleep(1000);
      assert.equal(await ran(), count("200"), "exactly the accepted commands ran");
    } finally {
      server.child.kill("SIGTERM");
      await endsWithin(server, 30_000, "after SIGTERM");
    }
  });

  test("a command that cannot start for want of file descriptors waits, then starts with its temp file", {
    timeout: 60_000,
  }, async () => {
    const src = path.join(import.meta.dirname, "../../src");
    const program = path.join(dir, "starved.ts");
    await writeFile(
      program,
      `
import { openSync, closeSync } from "node:fs";
import { waitingForResources } from ${JSON.stringify(`${src}/command/files.ts`)};
import { parseHooksFile } from ${JSON.stringify(`${src}/config/hooks-file.ts`)};
import { Executor } from ${JSON.stringify(`${src}/command/executor.ts`)};
import { createLogger } from ${JSON.stringify(`${src}/log/logger.ts`)};

const [plain, withFile] = parseHooksFile(JSON.stringify([{
  id: "plain",
  "execute-command": "/bin/echo",
  "pass-arguments-to-command": [{ source: "string", name: "started" }],
}, {
  id: "with-file",
  "execute-command": "/bin/sh",
  "pass-arguments-to-command": [{ source: "string", name: "-c" }, { source: "string", name: 'cat "$DATA"' }],
  "pass-file-to-command": [{ source: "string", name: "from the file", envname: "DATA" }],
}]), "hooks.json").hooks;
const logger = await createLogger({ verbose: true, debug: false, logfile: "" });
const executor = new Executor({ logger, commandTimeout: 0 });
executor.warmUp();
const held = [];
try {
  for (;;) held.push(openSync("/dev/null", "r"));
} catch {}
let waited = false;
const watch = setInterval(() => (waited ||= waitingForResources()), 10);
setTimeout(() => held.forEach((fd) => closeSync(fd)), 500);
const request = { id: "r1", method: "POST", remoteAddr: "", headers: {}, query: {}, payload: undefined, rawBody: Buffer.alloc(0), contentType: "" };
const results = await Promise.all([plain, withFile].map((hook) => executor.run(hook, request, "capture")));
clearInterval(watch);
const outputs = results.map((result) => result.output.toString());
const errors = results.map((result) => result.error ?? null);
console.log(JSON.stringify({ outputs, errors, waited, after: waitingForResources() }));
`,
    );
    const { stdout } = await promisify(execFile)("/bin/sh", [
      "-c",
      `ulimit -n 128 && exec "$0" "$@"`,
      process.execPath,
      program,
    ]);
    assert.deepEqual(JSON.parse(stdout.trim().split("\n").pop() ?? ""), {
      outputs: ["started\n", "from the file"],
      errors: [null, null],
      waited: true,
      after: false,
    });
  });
});

describe("limits", () => {
  test("-verbose logs at most 64 KiB of a 10 MB argument", { timeout: 60_000 }, async () => {
    const { server, port } = await serve("verbose", [
      {
        id: "big",
        "execute-command": "/bin/true",
        "response-message": "fired",
        "pass-arguments-to-command": [{ source: "raw-request-body" }],
      },
    ]);
    try {
      const body = Buffer.alloc(10_000_000, "a\n");
      const head = `POST /hooks/big HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
      assert.match(await exchange(port, Buffer.concat([Buffer.from(head), body])), /^HTTP\/1\.1 200 OK/);
      await waitFor(() => server.output().includes("finished handling big"), "the command to end", 30_000);
      const line =
        server
          .output()
          .split("\n")
          .find((text) => text.includes("executing /bin/true")) ?? "";
      assert.ok(line.length < 200_000, `the log line has ${line.length} characters`);
      assert.match(line, /… \[10000000 characters in all; the rest is not logged\]"\] and environment/);
    } finally {
      stop(server);
    }
  });

  test("output beyond -max-command-output is cut, and the answer says so", { timeout: 30_000 }, async () => {
    const command = await script("chatty.sh", "head -c 1000 /dev/zero | tr '\\0' x");
    const { server, port } = await serve(
      "chatty",
      [{ id: "chatty", "execute-command": command, "include-command-output-in-response": true }],
      ["-max-command-output", "100"],
    );
    try {
      const answer = await get(port, "/hooks/chatty");
      assert.equal(answer.status, 200);
      assert.equal(answer.headers["x-hook-output-truncated"], "true");
      assert.equal(
        answer.body,
        `${"x".repeat(100)}\n[output cut: the command wrote more than 100 bytes; see -max-command-output]\n`,
      );
    } finally {
      stop(server);
    }
  });
});

describe("without posix_spawn", () => {
  test("commands start with child_process: output streams, timeouts kill the process group", {
    timeout: 60_000,
  }, async () => {
    const grandchild = path.join(dir, "grandchild-pid");
    const stuck = await script("stuck.sh", `sleep 30 &\necho $! > ${grandchild}\nwait`);
    const chatty = await script("stream.sh", "echo one\nsleep 0.3\necho two >&2\nexit 3");
    const env = { ...process.env, ANVIL_HOOKS_LIBC: "/nonexistent/libc.so.6" };
    const { server, port } = await serve(
      "fallback",
      [
        {
          id: "stuck",
          "execute-command": stuck,
          "include-command-output-in-response": true,
          "command-timeout": "1s",
        },
        {
          id: "stream",
          "execute-command": chatty,
          "include-command-output-in-response": true,
          "stream-command-output": true,
        },
      ],
      [],
      { env },
    );
    try {
      await waitFor(
        () =>
          /posix_spawn cannot be used \(.*\); commands are started with Node's child_process/.test(
            server.output(),
          ),
        "the log line saying so",
      );
      const streamed = await exchange(
        port,
        "GET /hooks/stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      );
      assert.match(streamed, /\r\n\r\n4\r\none\n\r\n4\r\ntwo\n\r\n0\r\nX-Hook-Exit-Code: 3\r\n\r\n$/);
      const timedOut = await get(port, "/hooks/stuck");
      assert.equal(timedOut.status, 504);
      const pid = Number(await readFile(grandchild, "utf8"));
      await waitFor(async () => !(await alive(pid)), "the command's process group to be killed", 5000);
    } finally {
      // SIGTERM rather than SIGKILL: the process removes its output channel's folder as it exits.
      server.child.kill("SIGTERM");
      await endsWithin(server, 30_000, "after SIGTERM");
    }
  });
});
