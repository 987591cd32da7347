import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { AnyKysely } from "../db/database.ts";

// Secrets a service must read back (the inventory's encrypted custom fields, the forge's LDAP
// bind passwords) are stored as AES-256-GCM ciphertext: `enc:v1:` and base64 of a random 12-byte
// nonce, the 16-byte tag and the ciphertext. Each kind of secret has its own key, made by a
// migration and kept in the service's database (encryption_keys), so every process serving one
// database reads the same key. It keeps the values out of API answers, logs and dumps of the
// tables that hold them; it does not protect them from someone holding the whole database, where
// the key is too.

const PREFIX = "enc:v1:";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The table of keys, in a migration. */
export async function createEncryptionKeyTable(db: AnyKysely): Promise<void> {
  await db.schema
    .createTable("encryption_keys")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("key", "text", (c) => c.notNull())
    .execute();
}

/** Makes the key named `name`, once per installation, in a migration. */
export async function addEncryptionKey(db: AnyKysely, name: string): Promise<void> {
  await db
    .insertInto("encryption_keys")
    .values({ name, key: randomBytes(32).toString("hex") })
    .execute();
}

// A key never changes once made, so each is read once; by database handle, then by name.
const keys = new WeakMap<object, Map<string, Promise<Buffer>>>();

/** Encrypts and decrypts secrets with one of the installation's keys. */
export interface SecretCipher {
  encrypt(plain: string): string;
  /** The plain value; undefined when it cannot be decrypted (not ours, or altered). */
  decrypt(stored: string): string | undefined;
}

/**
 * The cipher of key `name` in the database `root`. The key is read through `executor` (the
 * transaction a write runs in, whose connection SQLite would otherwise make a second reader wait
 * for).
 */
export async function secretCipher(
  root: AnyKysely,
  name: string,
  executor: AnyKysely = root,
): Promise<SecretCipher> {
  let named = keys.get(root);
  if (!named) {
    named = new Map();
    keys.set(root, named);
  }
  let loading = named.get(name);
  if (!loading) {
    loading = executor
      .selectFrom("encryption_keys")
      .select("key")
      .where("name", "=", name)
      .executeTakeFirstOrThrow()
      .then((row) => Buffer.from(String(row.key), "hex"));
    // A failed read is not remembered: the next call tries again.
    loading.catch(() => named.delete(name));
    named.set(name, loading);
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
