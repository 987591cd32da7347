import assert from "node:assert/strict";
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { waitFor } from "@anvil/core/testing";
import { Executor } from "../../src/command/executor.ts";
import { decodeBase64 } from "../../src/command/files.ts";
import { emptyHook } from "../../src/config/decode.ts";
import { createLogger, type Logger } from "../../src/log/logger.ts";
import type { Argument, Hook, HookRequest } from "../../src/types.ts";

let dir: string;
let logLines: string[];
let logger: Logger;
let executor: Executor;

function hook(fields: Partial<Hook>): Hook {
  return { ...emptyHook("test.json"), id: "test", ...fields };
}

function arg(source: string, name: string, extra: Partial<Argument> = {}): Argument {
  return { source, name, envname: "", base64decode: false, ...extra };
}

/** `sh -c <command>`: the command is one argument, as a hooks file would pass it. */
function shell(command: string, ...more: Argument[]): Argument[] {
  return [arg("string", "-c"), arg("string", command), ...more];
}

function request(fields: Partial<HookRequest> = {}): HookRequest {
  return {
    id: "abc123",
    method: "POST",
    remoteAddr: "127.0.0.1:5000",
    headers: { "X-Token": "s3cr3t", "X-Event": "push" },
    query: { ref: "main" },
    payload: { branch: "dev" },
    rawBody: Buffer.from("{}"),
    contentType: "application/json",
    ...fields,
  };
}

async function script(name: string, body: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

/** Running (not gone, not a zombie waiting for init to reap it). */
async function alive(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return /^State:\s+[^Z]/m.test(status);
}

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "anvil-executor-"));
  logLines = [];
  logger = await createLogger({
    verbose: true,
    debug: false,
    logfile: "",
    stderr: { write: (t: string) => logLines.push(t) },
  });
  executor = new Executor({ logger, commandTimeout: 0, killGrace: 200 });
});

after(async () => {
  await executor.close();
  await rm(dir, { recursive: true, force: true });
});

describe("command line, environment, working directory", () => {
  test("arguments keep their positions (unresolvable ones empty) and reach the command unparsed", async () => {
    const result = await executor.run(
      hook({
        executeCommand: "sh",
        passArgumentsToCommand: shell(
          'printf "%s|" "$0" "$@"',
          arg("string", "first"),
          arg("header", "x-event"),
          arg("payload", "missing"),
          arg("string", "$(touch nope) `x` ; | &"),
        ),
      }),
      request(),
      "capture",
    );
    assert.equal(result.error, undefined);
    assert.equal(result.output.toString(), "first|push||$(touch nope) `x` ; | &|");
  });

  test("argv[0] is the configured string, found in PATH or absolute", async () => {
    for (const command of ["sh", "/bin/sh"]) {
      const result = await executor.run(
        hook({ executeCommand: command, passArgumentsToCommand: shell('echo "$0"') }),
        request(),
        "capture",
      );
      assert.equal(result.output.toString(), `${command}\n`);
    }
  });

  test("environment: server's, then HOOK_<name> verbatim or envname; unresolvable ones omitted", async () => {
    process.env.ANVIL_EXECUTOR_TEST = "from-server";
    const executorWithEnv = new Executor({ logger, commandTimeout: 0 });
    try {
      const result = await executorWithEnv.run(
        hook({
          executeCommand: "/bin/sh",
          passArgumentsToCommand: shell(
            'echo "$ANVIL_EXECUTOR_TEST|$HOOK_ref|$BRANCH|$(env | grep -c ^HOOK_missing=)"',
          ),
          passEnvironmentToCommand: [
            arg("url", "ref"),
            arg("payload", "branch", { envname: "BRANCH" }),
            arg("payload", "missing"),
          ],
        }),
        request(),
        "capture",
      );
      assert.equal(result.output.toString(), "from-server|main|dev|0\n");
    } finally {
      await executorWithEnv.close();
      delete process.env.ANVIL_EXECUTOR_TEST;
    }
  });

  test("stdout and stderr share one stream, in the order written", async () => {
    const file = await script("order.sh", "echo one; echo two >&2; echo three; echo four >&2");
    const result = await executor.run(hook({ executeCommand: file }), request(), "capture");
    assert.equal(result.output.toString(), "one\ntwo\nthree\nfour\n");
  });

  test("stdin is not connected", async () => {
    const result = await executor.run(
      hook({ executeCommand: "/bin/sh", passArgumentsToCommand: shell("cat; echo done") }),
      request(),
      "capture",
    );
    assert.equal(result.output.toString(), "done\n");
  });

  test("command-working-directory is the cwd, and a relative command is joined to it", async () => {
    await script("where.sh", "pwd");
    const result = await executor.run(
      hook({ executeCommand: "where.sh", commandWorkingDirectory: dir }),
      request(),
      "capture",
    );
    assert.equal(result.output.toString(), `${dir}\n`);
  });

  test("a bare name with a working directory is not searched in PATH (webhook joins it)", async () => {
    const result = await executor.run(
      hook({ executeCommand: "true", commandWorkingDirectory: dir }),
      request(),
      "capture",
    );
    assert.equal(result.startFailed, true);
    assert.equal(result.error, `exec: "${dir}/true": stat ${dir}/true: no such file or directory`);
  });

  test("a command that is not found fails with Go's message", async () => {
    const result = await executor.run(
      hook({ executeCommand: "no-such-command-anvil" }),
      request(),
      "capture",
    );
    assert.equal(result.startFailed, true);
    assert.equal(result.error, 'exec: "no-such-command-anvil": executable file not found in $PATH');
    assert.ok(logLines.some((line) => line.includes('[abc123] error in exec: "no-such-command-anvil"')));
  });

  test("a non-executable file: permission denied", async () => {
    const file = path.join(dir, "plain.txt");
    await writeFile(file, "echo hi\n");
    const result = await executor.run(hook({ executeCommand: file }), request(), "capture");
    assert.equal(result.error, `exec: "${file}": permission denied`);
  });

  test("the command starts with no signal ignored or blocked (Node ignores SIGPIPE)", async () => {
    const result = await executor.run(
      // grep reads its own state: a shell would block signals around its own forks.
      hook({
        executeCommand: "grep",
        passArgumentsToCommand: [
          arg("string", "-E"),
          arg("string", "^Sig(Ign|Blk)"),
          arg("string", "/proc/self/status"),
        ],
      }),
      request(),
      "capture",
    );
    assert.equal(result.output.toString(), "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
  });

  test("a NUL byte in an argument fails the start as Go's exec does", async () => {
    const result = await executor.run(
      hook({ executeCommand: "/bin/echo", passArgumentsToCommand: [arg("string", "a\0b")] }),
      request(),
      "capture",
    );
    assert.equal(result.startFailed, true);
    assert.equal(result.error, "fork/exec /bin/echo: invalid argument");
  });

  test("a burst of commands: every one runs, none is lost", async () => {
    const counter = path.join(dir, "burst.log");
    const burst = hook({
      executeCommand: "/bin/sh",
      passArgumentsToCommand: shell(`echo "$0" >> ${counter}`, arg("url", "n")),
    });
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, n) =>
        executor.run(burst, request({ query: { n: String(n) } }), "ignore"),
      ),
    );
    assert.deepEqual(
      results.filter((r) => r.error !== undefined),
      [],
    );
    const lines = (await readFile(counter, "utf8")).trim().split("\n").map(Number);
    assert.deepEqual(
      lines.sort((a, b) => a - b),
      Array.from({ length: 300 }, (_, n) => n),
    );
  });

  test("exit status and signal deaths are reported Go's way", async () => {
    const failing = await executor.run(
      hook({ executeCommand: "/bin/sh", passArgumentsToCommand: shell("echo out; exit 3") }),
      request(),
      "capture",
    );
    assert.equal(failing.error, "exit status 3");
    assert.equal(failing.exitCode, 3);
    assert.equal(failing.output.toString(), "out\n");
    const killed = await executor.run(
      hook({ executeCommand: "/bin/sh", passArgumentsToCommand: shell("kill -9 $$") }),
      request(),
      "capture",
    );
    assert.equal(killed.error, "signal: killed");
  });

  test("the log hides secret values but keeps the rest", async () => {
    logLines.length = 0;
    await executor.run(
      hook({
        executeCommand: "/bin/true",
        passArgumentsToCommand: [arg("header", "x-token"), arg("header", "x-event")],
        passEnvironmentToCommand: [arg("header", "x-token", { envname: "DEPLOY_TOKEN" })],
      }),
      request(),
      "ignore",
    );
    const executing = logLines.find((line) => line.includes("executing"));
    assert.match(
      executing ?? "",
      /with arguments \["\/bin\/true" "\[REDACTED\]" "push"\] and environment \[DEPLOY_TOKEN=\[REDACTED\]\]/,
    );
    assert.ok(!logLines.join("").includes("s3cr3t"));
    assert.ok(logLines.some((line) => line.endsWith("[abc123] finished handling test\n")));
  });
});

describe("pass-file-to-command", () => {
  test("files hold the value (base64-decoded on request), mode 0600, in the working dir, removed after", async () => {
    const work = await mkdtemp(path.join(dir, "files-"));
    const result = await executor.run(
      hook({
        executeCommand: "/bin/sh",
        commandWorkingDirectory: work,
        passArgumentsToCommand: shell(
          'cat "$HOOK_BRANCH"; echo; cat "$DATA"; echo; stat -c %a "$DATA"; dirname "$DATA"; basename "$HOOK_BRANCH"',
        ),
        passFileToCommand: [
          arg("payload", "branch"),
          arg("string", Buffer.from("decoded!").toString("base64"), { envname: "DATA", base64decode: true }),
        ],
      }),
      request(),
      "capture",
    );
    const [branch, data, mode, where, name] = result.output.toString().trimEnd().split("\n");
    assert.equal(branch, "dev");
    assert.equal(data, "decoded!");
    assert.equal(mode, "600");
    assert.equal(where, work);
    assert.match(name, /^HOOK_BRANCH\d+$/);
    assert.deepEqual(await readdir(work), []);
  });

  test("Go's strict base64: bad input keeps the whole quanta before the error", () => {
    assert.deepEqual(decodeBase64("aGVsbG8="), { data: Buffer.from("hello") });
    assert.deepEqual(decodeBase64("aGVs\nbG8="), { data: Buffer.from("hello") });
    assert.deepEqual(decodeBase64("aGVs*G8="), {
      data: Buffer.from("hel"),
      error: "illegal base64 data at input byte 4",
    });
    assert.deepEqual(decodeBase64("aGVsbG8"), {
      data: Buffer.from("hel"),
      error: "illegal base64 data at input byte 4",
    });
  });
});

describe("timeouts (beyond webhook)", () => {
  test("the whole process group is killed and the result says so", async () => {
    const pidFile = path.join(dir, "grandchild.pid");
    const file = await script("hang.sh", `sleep 30 & echo $! > ${pidFile}; echo started; sleep 30`);
    const started = Date.now();
    const result = await executor.run(
      hook({ executeCommand: file, commandTimeout: 300 }),
      request(),
      "capture",
    );
    assert.equal(result.timedOut, true);
    assert.equal(result.error, "signal: terminated");
    assert.equal(result.output.toString(), "started\n");
    assert.ok(Date.now() - started < 5000);
    const grandchild = Number(await readFile(pidFile, "utf8"));
    // Signalled with the group, it may still be on its way out a moment after the result.
    await waitFor("the grandchild's end", async () => ((await alive(grandchild)) ? undefined : true), 2000);
    assert.ok(
      logLines.some((line) =>
        line.includes("[abc123] command timed out after 300ms; its process group was killed"),
      ),
    );
  });

  test("a command ignoring SIGTERM gets SIGKILL after the grace period", async () => {
    const file = await script("stubborn.sh", "trap '' TERM; echo ready; sleep 30 & wait");
    const result = await executor.run(
      hook({ executeCommand: file, commandTimeout: 200 }),
      request(),
      "capture",
    );
    assert.equal(result.timedOut, true);
    assert.equal(result.error, "signal: killed");
  });

  test("the global -command-timeout applies when the hook has none", async () => {
    const limited = new Executor({ logger, commandTimeout: 200, killGrace: 100 });
    try {
      const result = await limited.run(
        hook({ executeCommand: "/bin/sleep", passArgumentsToCommand: [arg("string", "30")] }),
        request(),
        "capture",
      );
      assert.equal(result.timedOut, true);
      assert.equal(result.timeout, 200);
    } finally {
      await limited.close();
    }
  });
});

describe("max-concurrency and max-queue (beyond webhook)", () => {
  test("one runs, one waits (FIFO), the next is refused", async () => {
    const limited = hook({
      id: "serial",
      executeCommand: "/bin/sh",
      passArgumentsToCommand: shell("sleep 0.3; date +%s%N"),
      maxConcurrency: 1,
      maxQueue: 1,
    });
    const first = executor.admit(limited);
    const second = executor.admit(limited);
    const third = executor.admit(limited);
    assert.ok(first !== undefined && second !== undefined);
    assert.equal(third, undefined);
    const [a, b] = await Promise.all([
      executor.run(limited, request(), "capture", first),
      executor.run(limited, request(), "capture", second),
    ]);
    const aDone = BigInt(a.output.toString().trim());
    const bDone = BigInt(b.output.toString().trim());
    assert.ok(bDone - aDone >= 250_000_000n, "the queued command ran after the first one ended");
    assert.ok(executor.admit(limited) !== undefined, "slots are free again");
  });

  test("without a limit every request runs at once", async () => {
    const free = hook({ executeCommand: "/bin/sleep", passArgumentsToCommand: [arg("string", "0.5")] });
    const started = Date.now();
    await Promise.all([1, 2, 3, 4].map(() => executor.run(free, request(), "capture", executor.admit(free))));
    assert.ok(Date.now() - started < 1500);
  });
});

describe("streamed output (beyond webhook)", () => {
  test("chunks arrive while the command still runs", async () => {
    const started = Date.now();
    const arrivals: [string, number][] = [];
    let spawnedAt = 0;
    const result = await executor.run(
      hook({ executeCommand: "/bin/sh", passArgumentsToCommand: shell("echo first; sleep 1; echo second") }),
      request(),
      "stream",
      undefined,
      {
        onSpawn: () => {
          spawnedAt = Date.now() - started;
        },
        onData: (chunk) => arrivals.push([chunk.toString(), Date.now() - started]),
      },
    );
    assert.ok(spawnedAt < 800);
    assert.equal(arrivals.map(([text]) => text).join(""), "first\nsecond\n");
    assert.ok(arrivals[0][1] < 800, `first chunk came after ${arrivals[0][1]} ms`);
    assert.ok(arrivals[arrivals.length - 1][1] >= 900);
    assert.equal(result.exitCode, 0);
  });
});

describe("close", () => {
  test("waits for running commands", async () => {
    const own = new Executor({ logger, commandTimeout: 0 });
    const marker = path.join(dir, "closed-marker");
    void own.run(
      hook({ executeCommand: "/bin/sh", passArgumentsToCommand: shell(`sleep 0.3; touch ${marker}`) }),
      request(),
      "ignore",
    );
    await own.close();
    assert.equal((await readdir(dir)).includes("closed-marker"), true);
  });
});
