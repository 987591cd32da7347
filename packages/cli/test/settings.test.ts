import assert from "node:assert/strict";
import { test } from "node:test";
import { tempDir } from "@anvil/core/testing";
import { runAnvil, startForge } from "./run.ts";

test("a bad value names the flag the user typed", async () => {
  const short = await runAnvil(["forge", "serve", "--port", "99999"]);
  assert.equal(short.code, 1);
  assert.match(
    short.stderr,
    /invalid value for forge\.port \(from flag --port\): "99999" is not a port number/,
  );
  const long = await runAnvil(["serve", "--forge-port", "99999"]);
  assert.match(long.stderr, /\(from flag --forge-port\)/);
  const proxy = await runAnvil(["forge", "serve", "--trust-proxy", "10.0.0.0/99"]);
  assert.match(
    proxy.stderr,
    /invalid value for trust-proxy \(from flag --trust-proxy\): "10\.0\.0\.0\/99" is not true, false or a comma-separated list/,
  );
  const level = await runAnvil(["forge", "serve"], { ANVIL_LOG_LEVEL: "loud" });
  assert.match(
    level.stderr,
    /invalid value for log-level \(from variable ANVIL_LOG_LEVEL\): "loud" is not one of fatal/,
  );
});

test("only the settings a command uses are checked; an empty variable counts as unset", async () => {
  const dir = await tempDir();
  const { child, finished } = await startForge(dir.path, [], {
    ANVIL_INVENTORY_PORT: "not-a-port",
    ANVIL_HOOKS_PORT: "nine thousand",
    ANVIL_LOG_LEVEL: "",
    ANVIL_SHUTDOWN_GRACE: "",
  });
  child.kill("SIGTERM");
  const result = await finished;
  await dir.remove();
  assert.equal(result.code, 0, result.stderr);
});

test("a database that refuses the connection says so", async () => {
  const result = await runAnvil([
    "forge",
    "serve",
    "--database",
    "postgres://anvil:hunter2@127.0.0.1:1/forge",
  ]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /cannot connect to postgres:\/\/anvil:\*\*\*@127\.0\.0\.1:1\/forge/);
  assert.doesNotMatch(result.stderr, /hunter2|migration failed/);
  const migrate = await runAnvil([
    "migrate",
    "inventory",
    "--inventory-database",
    "postgres://127.0.0.1:1/inv",
  ]);
  assert.equal(migrate.code, 1);
  assert.match(migrate.stderr, /cannot connect to postgres:\/\/127\.0\.0\.1:1\/inv/);
});

test("a token in a request's query never reaches the log", async () => {
  const dir = await tempDir();
  const { port, child, finished } = await startForge(dir.path);
  try {
    await fetch(`http://127.0.0.1:${port}/api/v1/user?token=0123456789abcdef&access_token=fedcba9876543210`);
    await fetch(`http://127.0.0.1:${port}/api/healthz?password=hunter2`);
  } finally {
    child.kill("SIGTERM");
  }
  const result = await finished;
  await dir.remove();
  assert.match(result.stdout, /\/api\/v1\/user\?token=\[redacted\]&access_token=\[redacted\]/);
  assert.doesNotMatch(result.stdout + result.stderr, /0123456789abcdef|fedcba9876543210|hunter2/);
});

test("the forge's password login limits are settings, and a refused login answers 429 with Retry-After", async () => {
  const dir = await tempDir();
  const { port, child, finished } = await startForge(dir.path, [
    "--login-failures-per-account",
    "1",
    "--login-failure-window",
    "60",
  ]);
  const login = () =>
    fetch(`http://127.0.0.1:${port}/api/v1/user`, {
      headers: { authorization: `Basic ${Buffer.from("ghost:guess").toString("base64")}` },
    });
  try {
    assert.equal((await login()).status, 401);
    const refused = await login();
    assert.equal(refused.status, 429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 120, `Retry-After ${retryAfter}`);
  } finally {
    child.kill("SIGTERM");
  }
  const result = await finished;
  await dir.remove();
  assert.doesNotMatch(result.stdout + result.stderr, /guess/, "no password in the log");
});
