import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import {
  ConfigError,
  type ConfigKey,
  createLogger,
  envName,
  flagName,
  redactQuery,
  resolveConfig,
} from "../src/index.ts";
import { tempDir } from "../src/testing/index.ts";

const spec = {
  "data-dir": { type: "string", default: "./data", description: "data" } as ConfigKey<"string">,
  "forge.port": { type: "port", default: 3000, description: "port" } as ConfigKey<"port">,
  "hooks.files": { type: "list", default: [], description: "files" } as ConfigKey<"list">,
  verbose: { type: "boolean", default: false, description: "verbose" } as ConfigKey<"boolean">,
};

test("names derive from the dotted key", () => {
  assert.equal(envName("forge.port"), "ANVIL_FORGE_PORT");
  assert.equal(envName("data-dir"), "ANVIL_DATA_DIR");
  assert.equal(flagName("forge.port"), "--forge-port");
});

test("defaults apply when nothing is given", () => {
  assert.deepEqual(resolveConfig(spec, {}), {
    "data-dir": "./data",
    "forge.port": 3000,
    "hooks.files": [],
    verbose: false,
  });
});

test("precedence: flags > environment > config file > defaults", async () => {
  const dir = await tempDir();
  try {
    const file = join(dir.path, "anvil.yaml");
    await writeFile(
      file,
      "data-dir: /srv/anvil\nforge:\n  port: 3100\nhooks:\n  files: [a.json, b.yaml]\nverbose: true\n",
    );
    const fromFile = resolveConfig(spec, { file });
    assert.deepEqual(fromFile, {
      "data-dir": "/srv/anvil",
      "forge.port": 3100,
      "hooks.files": ["a.json", "b.yaml"],
      verbose: true,
    });
    const fromEnv = resolveConfig(spec, {
      file,
      env: { ANVIL_FORGE_PORT: "3200", ANVIL_HOOKS_FILES: "x.json, y.json" },
    });
    assert.equal(fromEnv["forge.port"], 3200);
    assert.deepEqual(fromEnv["hooks.files"], ["x.json", "y.json"]);
    assert.equal(fromEnv["data-dir"], "/srv/anvil");
    const fromFlags = resolveConfig(spec, {
      file,
      env: { ANVIL_FORGE_PORT: "3200" },
      flags: { "forge.port": "3300", verbose: false },
    });
    assert.equal(fromFlags["forge.port"], 3300);
    assert.equal(fromFlags.verbose, false);
  } finally {
    await dir.remove();
  }
});

test("a bad value's message names the key, where it came from and what is expected", () => {
  assert.throws(
    () => resolveConfig(spec, { env: { ANVIL_FORGE_PORT: "eighty" } }),
    (e: Error) =>
      e instanceof ConfigError &&
      e.message ===
        'invalid value for forge.port (from variable ANVIL_FORGE_PORT): "eighty" is not a port number from 0 to 65535',
  );
  assert.throws(
    () => resolveConfig(spec, { flags: { "forge.port": "70000" } }),
    /forge\.port \(from flag --forge-port\)/,
  );
  assert.throws(
    () => resolveConfig(spec, { flags: { verbose: "maybe" } }),
    /verbose .* is not true or false/,
  );
});

test("the config file: unknown keys and bad syntax are named", async () => {
  const dir = await tempDir();
  try {
    const typo = join(dir.path, "typo.yaml");
    await writeFile(typo, "forge:\n  prot: 1\n");
    assert.throws(() => resolveConfig(spec, { file: typo }), /unknown key "forge\.prot"/);
    const broken = join(dir.path, "broken.yaml");
    await writeFile(broken, "forge: [unclosed\n");
    assert.throws(() => resolveConfig(spec, { file: broken }), /is not valid YAML or JSON/);
    assert.throws(
      () => resolveConfig(spec, { file: join(dir.path, "absent.yaml") }),
      /cannot read config file/,
    );
  } finally {
    await dir.remove();
  }
});

test("an empty variable is unset; only the keys a command uses are read; the typed flag is named", () => {
  assert.equal(resolveConfig(spec, { env: { ANVIL_FORGE_PORT: "" } })["forge.port"], 3000);
  const narrowed = resolveConfig(spec, {
    env: { ANVIL_FORGE_PORT: "eighty", ANVIL_DATA_DIR: "/srv" },
    only: ["data-dir"],
  });
  assert.equal(narrowed["data-dir"], "/srv");
  assert.equal(narrowed["forge.port"], 3000, "a key the command does not use keeps its default");
  assert.throws(
    () => resolveConfig(spec, { flags: { "forge.port": "99999" }, flagNames: { "forge.port": "--port" } }),
    /invalid value for forge\.port \(from flag --port\): "99999"/,
  );
});

test("a key's own check completes the message", () => {
  const checked = {
    workers: {
      type: "integer",
      default: 1,
      description: "workers",
      accepts: { test: (n: number) => n >= 1, expected: "at least 1" },
    } as ConfigKey<"integer">,
  };
  assert.equal(resolveConfig(checked, { env: { ANVIL_WORKERS: "4" } }).workers, 4);
  assert.throws(
    () => resolveConfig(checked, { env: { ANVIL_WORKERS: "0" } }),
    /invalid value for workers \(from variable ANVIL_WORKERS\): "0" is not at least 1/,
  );
});

test("the logger hides secrets at any depth, and in query strings", () => {
  const lines: string[] = [];
  const logger = createLogger({ destination: { write: (line: string) => lines.push(line) } });
  logger.info(
    {
      user: { name: "alice", credentials: { password: "hunter2", nested: [{ access_token: "abcd" }] } },
      headers: { authorization: "token zzz", "x-gitea-signature": "sig123", accept: "application/json" },
      body: { token: { sha1: "deadbeef" }, scopes: ["all"] },
    },
    "login",
  );
  const text = lines.join("");
  assert.doesNotMatch(text, /hunter2|abcd|zzz|sig123|deadbeef/);
  assert.match(text, /alice/);
  assert.match(text, /application\/json/);
  assert.match(text, /"scopes":\["all"\]/);
  assert.equal(
    redactQuery("/api/v1/repos?token=abc&page=2&Access_Token=def&q=a%3Db"),
    "/api/v1/repos?token=[redacted]&page=2&Access_Token=[redacted]&q=a%3Db",
  );
  assert.equal(redactQuery("/plain/path"), "/plain/path");
});
