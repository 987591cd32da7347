// `node packages/hooks/src/main.ts <webhook flags>` as a real process: exit codes and messages,
// pidfile, signals, Unix socket, TLS.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { access, chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import {
  echoHook,
  type Finished,
  freePort,
  get,
  launch as launchIn,
  type Running,
  waitFor,
  writeHooksFile,
} from "./hooks-process.ts";

let dir: string;

function launch(args: string[]): Running {
  return launchIn(args, { cwd: dir });
}

function run(args: string[]): Promise<Finished> {
  return launch(args).finished;
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

const hooksFile = (name: string, hooks: unknown[]) => writeHooksFile(dir, name, hooks);

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "anvil-process-"));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("early exits", () => {
  test("-version prints webhook's own line", async () => {
    const result = await run(["-version"]);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, "webhook version 2.8.0\n");
  });

  test("-h prints the usage on stderr and exits 0; an unknown flag exits 2", async () => {
    const help = await run(["-h"]);
    assert.equal(help.code, 0);
    assert.match(help.stderr, /^Usage of webhook:\n {2}-cert string\n/);
    const unknown = await run(["-nosuchflag"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^flag provided but not defined: -nosuchflag\nUsage of webhook:\n/);
  });

  test("no hooks without -verbose or -nopanic: webhook's message on stdout, exit 1", async () => {
    const result = await run(["-hooks", path.join(dir, "missing.json"), "-port", "0"]);
    assert.equal(result.code, 1);
    assert.match(
      result.stdout,
      /^\[webhook\] \d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} couldn't load any hooks from file!\naborting webhook execution since the -verbose flag is set to false\.\nIf, for some reason, you want webhook to start without the hooks, either use -verbose flag, or -nopanic\n$/,
    );
  });

  test("-setuid without -setgid is refused", async () => {
    const result = await run(["-setuid", "1000"]);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, "error: setuid and setgid options must be used together\n");
  });

  test("-list-cipher-suites lists Go's names for the minimum version", async () => {
    const all = await run(["-list-cipher-suites"]);
    assert.equal(all.code, 0);
    assert.equal(all.stdout.split("\n").length - 1, 17);
    assert.ok(all.stdout.startsWith("TLS_RSA_WITH_AES_128_CBC_SHA\n"));
    const tls13 = await run(["-list-cipher-suites", "-tls-min-version", "1.3"]);
    assert.equal(
      tls13.stdout,
      "TLS_AES_128_GCM_SHA256\nTLS_AES_256_GCM_SHA384\nTLS_CHACHA20_POLY1305_SHA256\n",
    );
    const bad = await run(["-list-cipher-suites", "-tls-min-version", "9"]);
    assert.equal(bad.code, 1);
    assert.match(
      bad.stderr,
      /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} error: unknown minimum TLS version: 9\n$/,
    );
  });

  test("a port in use: Go's listen error, exit 1", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const hooks = await hooksFile("busy.json", [echoHook("a")]);
      const result = await run(["-hooks", hooks, "-ip", "127.0.0.1", "-port", String(port)]);
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        new RegExp(
          `^\\[webhook\\] [\\d/]+ [\\d:]+ error listening on port: listen tcp 127\\.0\\.0\\.1:${port}: bind: address already in use\\n$`,
        ),
      );
    } finally {
      blocker.close();
    }
  });

  test("the same id in two files: exit 1", async () => {
    const one = await hooksFile("dup1.json", [echoHook("same")]);
    const two = await hooksFile("dup2.json", [echoHook("same")]);
    const result = await run(["-hooks", one, "-hooks", two, "-port", "0", "-verbose"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /error: hook with the id same has already been loaded!/);
  });
});

describe("a running server", () => {
  test("pidfile in a new directory; SIGTERM removes it and exits 0", async () => {
    const hooks = await hooksFile("pid.json", [echoHook("a")]);
    const pidfile = path.join(dir, "run", "nested", "hooks.pid");
    const port = await freePort();
    const server = launch([
      "-hooks",
      hooks,
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-verbose",
      "-pidfile",
      pidfile,
    ]);
    await waitFor(
      () => server.output().includes("serving hooks on http://127.0.0.1:"),
      "the server to start",
    );
    assert.equal(await readFile(pidfile, "utf8"), String(server.child.pid));
    assert.deepEqual(await get({ port }, "/hooks/a"), { status: 200, body: "a fired" });
    server.child.kill("SIGTERM");
    const result = await server.finished;
    assert.equal(result.code, 0);
    assert.equal(await exists(pidfile), false);
    assert.match(result.stderr, /caught terminated signal; exiting\n/);
  });

  test("a pidfile of a running process is refused", async () => {
    const pidfile = path.join(dir, "taken.pid");
    await writeFile(pidfile, String(process.pid));
    const hooks = await hooksFile("taken.json", [echoHook("a")]);
    const quiet = await run(["-hooks", hooks, "-port", "0", "-pidfile", pidfile]);
    assert.deepEqual(
      quiet,
      { code: 1, stdout: "", stderr: "" },
      "log.Fatal output is discarded without -verbose",
    );
    const result = await run(["-hooks", hooks, "-port", "0", "-pidfile", pidfile, "-verbose"]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /Error creating pidfile: pid file found, ensure webhook is not running or delete /,
    );
  });

  test("SIGHUP and SIGUSR1 reload the hooks files", async () => {
    const hooks = await hooksFile("reload.json", [echoHook("first")]);
    const socketPath = path.join(dir, "reload.sock");
    const server = launch(["-hooks", hooks, "-socket", socketPath, "-verbose"]);
    try {
      await waitFor(() => server.output().includes("serving hooks on http://{unix:"), "the server to start");
      assert.equal((await get({ socketPath }, "/hooks/second")).status, 404);
      await writeFile(hooks, JSON.stringify([echoHook("first"), echoHook("second")]));
      server.child.kill("SIGHUP");
      await waitFor(
        async () => (await get({ socketPath }, "/hooks/second")).status === 200,
        "the SIGHUP reload",
      );
      await writeFile(hooks, JSON.stringify([echoHook("third")]));
      server.child.kill("SIGUSR1");
      await waitFor(
        async () => (await get({ socketPath }, "/hooks/third")).status === 200,
        "the SIGUSR1 reload",
      );
      assert.match(server.output(), /caught HUP signal\n/);
      assert.match(server.output(), /caught USR1 signal\n/);
      assert.doesNotMatch(server.output(), /Debugger listening/);
    } finally {
      server.child.kill("SIGINT");
    }
    const result = await server.finished;
    assert.equal(result.code, 0);
    assert.match(result.stderr, /caught interrupt signal; exiting\n/);
    assert.equal(await exists(socketPath), false, "the socket file is removed");
  });

  test("-nopanic starts without hooks; -logfile receives the log instead of stderr", async () => {
    const logfile = path.join(dir, "webhook.log");
    const port = await freePort();
    const server = launch([
      "-hooks",
      path.join(dir, "none.json"),
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-nopanic",
      "-logfile",
      logfile,
    ]);
    await waitFor(
      async () => (await readFile(logfile, "utf8").catch(() => "")).includes("serving hooks on"),
      "the log file",
    );
    assert.deepEqual(await get({ port }, "/"), { status: 200, body: "OK" });
    server.child.kill("SIGTERM");
    const result = await server.finished;
    assert.equal(result.code, 0);
    assert.equal(result.stderr, "");
    const log = await readFile(logfile, "utf8");
    assert.match(log, /^\[webhook\] [\d/]+ [\d:]+ version 2\.8\.0 starting\n/);
    assert.match(log, /couldn't load hooks from file!/);
  });
});

describe("-setuid and -setgid", () => {
  test("drop privileges after listening: commands run as the new user", {
    skip: process.getuid?.() !== 0,
  }, async () => {
    await chmod(dir, 0o755);
    const hooks = await hooksFile("setuid.json", [
      { id: "whoami", "execute-command": "/usr/bin/id", "include-command-output-in-response": true },
    ]);
    await chmod(hooks, 0o644);
    const port = await freePort();
    const server = launch([
      "-hooks",
      hooks,
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-setuid",
      "65534",
      "-setgid",
      "65534",
      "-verbose",
    ]);
    try {
      await waitFor(() => server.output().includes("os signal watcher ready"), "the server to start");
      const answer = await get({ port }, "/hooks/whoami");
      assert.match(answer.body, /^uid=65534\(\w+\) gid=65534\(\w+\) groups=65534\(\w+\)\n$/);
    } finally {
      server.child.kill("SIGTERM");
    }
    assert.equal((await server.finished).code, 0);
  });
});

describe("-secure", () => {
  test("a missing certificate: webhook logs it and exits 0", async () => {
    const hooks = await hooksFile("tls-missing.json", [echoHook("a")]);
    const result = await run(["-hooks", hooks, "-port", "0", "-ip", "127.0.0.1", "-secure", "-verbose"]);
    assert.equal(result.code, 0);
    assert.match(
      result.stderr,
      /serving hooks on https:\/\/127\.0\.0\.1:0\/hooks\/\{id\}\n.*open cert\.pem: no such file or directory\n/,
    );
  });

  test("HTTPS serves hooks; plain HTTP gets Go's 400 answer", {
    skip: !existsSync("/usr/bin/openssl"),
  }, async () => {
    await promisify(execFile)("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
    ]);
    const hooks = await hooksFile("tls.json", [echoHook("a")]);
    const port = await freePort();
    const server = launch([
      "-hooks",
      hooks,
      "-ip",
      "127.0.0.1",
      "-port",
      String(port),
      "-secure",
      "-verbose",
    ]);
    try {
      await waitFor(() => server.output().includes("os signal watcher ready"), "the TLS server");
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get(
            { host: "127.0.0.1", port, path: "/hooks/a", rejectUnauthorized: false, agent: false },
            (res) => {
              let text = "";
              res.on("data", (chunk: Buffer) => (text += chunk.toString()));
              res.on("end", () => resolve(text));
            },
          )
          .on("error", reject);
      });
      assert.equal(body, "a fired");
      const plain = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () =>
          socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
        );
        let text = "";
        socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
        socket.on("close", () => resolve(text));
        socket.on("error", reject);
      });
      assert.equal(
        plain,
        "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n",
      );
    } finally {
      server.child.kill("SIGTERM");
    }
    assert.equal((await server.finished).code, 0);
  });
});
