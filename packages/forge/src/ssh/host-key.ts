import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "@anvil/core";
import ssh2 from "ssh2";
import { fingerprintOf } from "./key-blob.ts";

export interface HostKey {
  /** The private key in OpenSSH format, as ssh2's Server takes it. */
  privateKey: string;
  /** What `ssh-keygen -lf` prints for it, for logs and for users checking known_hosts. */
  fingerprint: string;
}

/**
 * The server's host key: read from `path`, or generated there (Ed25519, 0600) on first start.
 * Reusing it keeps clients' known_hosts valid across restarts; several processes sharing the data
 * directory end up with the one key the first of them wrote.
 */
export async function loadOrCreateHostKey(path: string, logger: Logger): Promise<HostKey> {
  let privateKey = await readIfPresent(path);
  if (privateKey === undefined) {
    privateKey = await createHostKey(path);
    logger.info({ path }, "generated a new SSH host key");
  } else {
    await restrictPermissions(path, logger);
  }
  const parsed = ssh2.utils.parseKey(privateKey);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (key instanceof Error || key === undefined || !key.isPrivateKey()) {
    throw new Error(`the SSH host key at ${path} is not a usable unencrypted private key`);
  }
  return { privateKey, fingerprint: fingerprintOf(key.getPublicSSH()) };
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

// Written aside and hard-linked into place: a concurrent starter sees either no key or a whole
// one, and link() refuses to replace a key another process placed first.
async function createHostKey(path: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const generated = generateParsableKey();
  const aside = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(aside, generated.private, { mode: 0o600, flag: "wx" });
  try {
    await link(aside, path);
    return generated.private;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return await readFile(path, "utf8");
  } finally {
    await unlink(aside);
  }
}

// ssh2 drops a leading zero byte of the public key when it writes the OpenSSH format, so about one
// generated Ed25519 key in 200 is one its own parser refuses; such a key is generated again.
function generateParsableKey(): { private: string } {
  for (;;) {
    const generated = ssh2.utils.generateKeyPairSync("ed25519", { comment: "anvil forge host key" });
    if (!(ssh2.utils.parseKey(generated.private) instanceof Error)) return generated;
  }
}

async function restrictPermissions(path: string, logger: Logger): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    await chmod(path, 0o600);
    logger.warn({ path }, "the SSH host key was readable by others; its mode is now 0600");
  }
}
