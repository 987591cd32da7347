// An SSH client may ask whether a key would do before it signs anything ("publickey" without a
// signature). Anyone who knows a user's public key can ask that: the answer must change nothing.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { connectDatabase } from "@anvil/core";
import { type TempDir, tempDir } from "@anvil/core/testing";
import ssh2, { type ParsedKey } from "ssh2";
import type { ForgeTables } from "../../src/schemas/tables.ts";
import { generateKey, type KeyPair } from "../ssh/tools.ts";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson } from "../support/people.ts";

/** Offers a public key and cannot sign: the client only queries whether the key would do. */
class QueryOnlyAgent extends ssh2.BaseAgent<ParsedKey> {
  readonly #key: ParsedKey;
  queried = false;

  constructor(key: ParsedKey) {
    super();
    this.#key = key;
  }

  getIdentities(callback: (error: Error | null, keys: ParsedKey[]) => void): void {
    callback(null, [this.#key]);
  }

  sign(_key: ParsedKey, _data: Buffer, ...rest: unknown[]): void {
    // Asked to sign means the server accepted the query.
    this.queried = true;
    const done = rest.find((arg) => typeof arg === "function") as ((error: Error) => void) | undefined;
    done?.(new Error("this agent holds no private key"));
  }
}

/** Connects with an agent or a private key; "ready" or the error's message. */
function connect(port: number, auth: { agent: ssh2.BaseAgent } | { privateKey: Buffer }): Promise<string> {
  return new Promise((resolve) => {
    const client = new ssh2.Client();
    client.once("ready", () => {
      client.end();
      resolve("ready");
    });
    // A failed signing and the failed login are two errors: both are answered, the first counts.
    client.on("error", (error) => {
      client.end();
      resolve(error.message);
    });
    client.connect({ host: "127.0.0.1", port, username: "git", readyTimeout: 20_000, ...auth });
  });
}

forEachForge(
  "forge: an SSH key query writes nothing",
  (forge) => {
    let dir: TempDir;
    let pair: KeyPair;

    before(async () => {
      dir = await tempDir("anvil-key-query-");
      pair = await generateKey(dir.path, "quinn", ["-t", "ed25519"]);
      const quinn = await makePerson(forge.url, forge.adminToken, "quinn");
      const added = await api(forge.url, "POST", "/user/keys", {
        token: quinn.token,
        body: { title: "laptop", key: pair.publicText },
      });
      assert.equal(added.status, 201);
    });
    after(() => dir.remove());

    async function lastUsed(): Promise<unknown> {
      const other = await connectDatabase<ForgeTables>(forge.databaseUrl);
      try {
        const row = await other.db.selectFrom("public_key").select("last_used_at").executeTakeFirstOrThrow();
        return row.last_used_at;
      } finally {
        await other.close();
      }
    }

    test("a query without a signature leaves the key's last use alone; a login notes it", async () => {
      const publicKey = ssh2.utils.parseKey(pair.publicText);
      if (publicKey instanceof Error) throw publicKey;
      const agent = new QueryOnlyAgent(publicKey);
      const queried = await connect(forge.sshPort, { agent });
      assert.notEqual(queried, "ready");
      assert.ok(agent.queried, "the server answered the query: it knows the key");
      assert.equal(await lastUsed(), null);

      assert.equal(await connect(forge.sshPort, { privateKey: await readFile(pair.privatePath) }), "ready");
      assert.notEqual(await lastUsed(), null);
    });
  },
  { ssh: true },
);
