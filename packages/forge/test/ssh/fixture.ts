import { join } from "node:path";
import { createLogger } from "@anvil/core";
import { type GitRequest, parsePublicKey, type SshServer, startSshServer } from "../../src/ssh/index.ts";
import { makeBareRepositories } from "./repositories.ts";
import { generateKey, type KeyPair } from "./tools.ts";

// One forge's worth of SSH: alice's keys, her repositories (demo is read-only to her, writable and
// big she may push to; broken and nul make the forge fail), and a server that records what it was
// asked.

export interface Principal {
  name: string;
}

export interface Keys {
  alice: KeyPair;
  aliceRsa: KeyPair;
  aliceEcdsa: KeyPair;
  mallory: KeyPair;
}

export interface Forge {
  server: SshServer;
  repositories: string;
  lookups: { username: string; fingerprint: string }[];
  authorized: GitRequest[];
  logLines: string[];
}

const WRITABLE = new Set(["alice/writable", "alice/big"]);
const READABLE = new Set(["alice/demo", ...WRITABLE]);

export async function generateKeys(dir: string): Promise<Keys> {
  const [alice, aliceRsa, aliceEcdsa, mallory] = await Promise.all([
    generateKey(dir, "alice", ["-t", "ed25519"]),
    generateKey(dir, "alice-rsa", ["-t", "rsa", "-b", "2048"]),
    generateKey(dir, "alice-ecdsa", ["-t", "ecdsa", "-b", "384"]),
    generateKey(dir, "mallory", ["-t", "ed25519"]),
  ]);
  return { alice, aliceRsa, aliceEcdsa, mallory };
}

export async function makeRepositories(dir: string): Promise<string> {
  const repositories = join(dir, "repositories");
  await makeBareRepositories(dir, repositories, ["demo", "writable", "big"]);
  return repositories;
}

export async function startForgeSsh(keys: Keys, repositories: string, hostKeyPath: string): Promise<Forge> {
  const aliceKeys = new Set(
    [keys.alice, keys.aliceRsa, keys.aliceEcdsa].map((key) => parsePublicKey(key.publicText).content),
  );
  const forge: Omit<Forge, "server"> = { repositories, lookups: [], authorized: [], logLines: [] };
  const server = await startSshServer<Principal>({
    host: "127.0.0.1",
    port: 0,
    hostKeyPath,
    logger: createLogger({
      level: "debug",
      destination: { write: (line: string) => forge.logLines.push(line) },
    }),
    authenticate: async (username, key) => {
      forge.lookups.push({ username, fingerprint: key.fingerprint });
      return aliceKeys.has(`${key.algo} ${key.data.toString("base64")}`) ? { name: "alice" } : undefined;
    },
    authorize: async (principal, request) => {
      forge.authorized.push(request);
      const name = `${request.owner}/${request.repo}`;
      if (name === "alice/broken") throw new Error("the database is down");
      if (name === "alice/nul") return { repoPath: "/nul\u0000path.git" };
      if (principal.name !== "alice" || !READABLE.has(name))
        return { refuse: `anvil: ${name} does not exist` };
      if (request.service === "git-receive-pack" && !WRITABLE.has(name)) {
        return { refuse: `anvil: you may read ${name} but not push to it` };
      }
      return {
        repoPath: join(repositories, request.owner, `${request.repo}.git`),
        env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      };
    },
  });
  return { ...forge, server };
}
