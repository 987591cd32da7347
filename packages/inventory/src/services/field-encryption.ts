import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { AnyKysely } from "@anvil/core";

// Values of encrypted custom fields (Snipe-IT's field_encrypted) are stored as AES-256-GCM
// ciphertext: `enc:v1:` and base64 of a random 12-byte nonce, the 16-byte tag and the ciphertext.
// The key is made by migration 0006 and kept in the database (encryption_keys), so every process
// serving one database reads the same key. It keeps the values out of the assets API, the activity
// log and exports of the value table; it does not protect them from someone holding the whole
// database, where the key is too.

const PREFIX = "enc:v1:";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

// The key never changes once made, so each database is read once; keyed by the database handle.
const keys = new WeakMap<object, Promise<Buffer>>();

/** Encrypts and decrypts field values with the installation's key. */
export interface FieldCipher {
  encrypt(plain: string): string;
  /** The plain value; undefined when it cannot be decrypted (not ours, or altered). */
  decrypt(stored: string): string | undefined;
}

/**
 * The cipher of the database `root`. The key is read through `executor` (the transaction a write
 * runs in, whose connection SQLite would otherwise make a second reader wait for).
 */
export async function fieldCipher(root: AnyKysely, executor: AnyKysely = root): Promise<FieldCipher> {
  let loading = keys.get(root);
  if (!loading) {
    loading = executor
      .selectFrom("encryption_keys")
      .select("key")
      .where("name", "=", "custom_fields")
      .executeTakeFirstOrThrow()
      .then((row) => Buffer.from(String(row.key), "hex"));
    // A failed read is not remembered: the next call tries again.
    loading.catch(() => keys.delete(root));
    keys.set(root, loading);
  }
  const key = await loading;
  return { encrypt: (plain) => encrypt(key, plain), decrypt: (stored) => decrypt(key, stored) };
}

function encrypt(key: Buffer, plain: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return PREFIX + Buffer.concat([nonce, cipher.getAuthTag(), sealed]).toString("base64");
}

function decrypt(key: Buffer, stored: string): string | undefined {
  if (!stored.startsWith(PREFIX)) return undefined;
  const bytes = Buffer.from(stored.slice(PREFIX.length), "base64");
  if (bytes.length < NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(bytes.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]);
    return plain.toString("utf8");
  } catch {
    return undefined;
  }
}
