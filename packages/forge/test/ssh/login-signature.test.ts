// Knowing a user's public key is not enough: the server checks the signature that proves the client
// holds the private key. An ssh2 client with a scripted agent offers alice's public key and signs
// with a key of its choosing.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import ssh2, { type ParsedKey, type SignCallback, type SigningRequestOptions } from "ssh2";
import { parsePublicKey } from "../../src/ssh/index.ts";
import { type Forge, generateKeys, type Keys, makeRepositories, startForgeSsh } from "./fixture.ts";

class ScriptedAgent extends ssh2.BaseAgent<ParsedKey> {
  readonly #identity: ParsedKey;
  readonly #signer: ParsedKey;

  constructor(identity: ParsedKey, signer: ParsedKey) {
    super();
    this.#identity = identity;
    this.#signer = signer;
  }

  getIdentities(callback: (error: Error | null, keys: ParsedKey[]) => void): void {
    callback(null, [this.#identity]);
  }

  sign(
    _key: ParsedKey,
    data: Buffer,
    options: SigningRequestOptions | SignCallback,
    callback?: SignCallback,
  ): void {
    const done = typeof options === "function" ? options : callback;
    done?.(null, this.#signer.sign(data));
  }
}

async function privateKey(path: string): Promise<ParsedKey> {
  const key = ssh2.utils.parseKey(await readFile(path));
  if (key instanceof Error) throw key;
  return key;
}

/** Logs in with the agent; resolves "ready" or the authentication error's message. */
function login(port: number, agent: ScriptedAgent): Promise<string> {
  return new Promise((resolve) => {
    const client = new ssh2.Client();
    client.once("ready", () => {
      client.end();
      resolve("ready");
    });
    client.once("error", (error) => resolve(error.message));
    client.connect({ host: "127.0.0.1", port, username: "git", agent, readyTimeout: 20_000 });
  });
}

describe("SSH login: the signature decides", { timeout: 120_000 }, () => {
  let dir: TempDir;
  let keys: Keys;
  let forge: Forge;

  before(async () => {
    dir = await tempDir("anvil-ssh-sig-");
    keys = await generateKeys(dir.path);
    forge = await startForgeSsh(keys, await makeRepositories(dir.path), join(dir.path, "host.key"));
  });
  after(async () => {
    await forge?.server.close();
    await dir?.remove();
  });

  test("alice's public key signed with alice's private key logs in", async () => {
    const alice = await privateKey(keys.alice.privatePath);
    assert.equal(await login(forge.server.port, new ScriptedAgent(alice, alice)), "ready");
  });

  test("alice's public key signed with another private key is refused", async () => {
    const alice = await privateKey(keys.alice.privatePath);
    const mallory = await privateKey(keys.mallory.privatePath);
    const result = await login(forge.server.port, new ScriptedAgent(alice, mallory));
    assert.match(result, /All configured authentication methods failed/);
    // The key itself was known (the server said so before the signature came): the signature failed.
    assert.equal(forge.lookups.at(-1)?.fingerprint, parsePublicKey(keys.alice.publicText).fingerprint);
  });
});
