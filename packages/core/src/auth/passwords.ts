import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

// scrypt with a per-password salt, stored as `scrypt$N$r$p$salt$hash` (base64): every hash names
// its own cost, so the cost can be raised and older hashes still verify, then get re-hashed.

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** OWASP Password Storage Cheat Sheet's minimum for scrypt: N=2^17, r=8 (1024-byte blocks), p=1. */
export const OWASP_SCRYPT_COST: Readonly<ScryptCost> = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });

const KEY_LENGTH = 32;
// What a stored hash may ask for: a hash from the database is data, and one naming a huge N would
// make every login allocate gigabytes.
const MAX_N = 2 ** 20;
const MAX_R = 16;
const MAX_P = 4;

let cost: Readonly<ScryptCost> = OWASP_SCRYPT_COST;

/**
 * Sets the cost of new hashes for this process. Only the test suites call it, to a lower cost
 * (thousands of users are made there); services always hash at OWASP_SCRYPT_COST.
 */
export function setPasswordHashCost(next: ScryptCost): void {
  cost = Object.freeze({ ...next });
}

export function passwordHashCost(): Readonly<ScryptCost> {
  return cost;
}

// At most this many derivations run at once in a process: each takes 128 MiB at OWASP's cost and
// a thread of libuv's pool (4 by default), which file reads share; the others wait their turn.
const MAX_CONCURRENT = 2;
let running = 0;
const waiting: Array<() => void> = [];

async function turn(): Promise<void> {
  if (running < MAX_CONCURRENT) {
    running++;
    return;
  }
  // The slot is handed over by the derivation that ends, so `running` stays counted.
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function endTurn(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

// On the libuv thread pool, so a derivation never blocks the event loop. OpenSSL needs
// 128·r·(N+p+2) bytes, so maxmem is exactly that, whatever the cost.
async function derive(password: string, salt: Buffer, { N, r, p }: ScryptCost): Promise<Buffer> {
  await turn();
  try {
    return await new Promise((resolve, reject) => {
      scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: 128 * r * (N + p + 2) }, (error, key) =>
        error ? reject(error) : resolve(key),
      );
    });
  } finally {
    endTurn();
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64"), key.toString("base64")].join("$");
}

interface StoredHash {
  cost: ScryptCost;
  salt: Buffer;
  key: Buffer;
}

function isPowerOfTwo(n: number): boolean {
  return Number.isSafeInteger(n) && n > 1 && (n & (n - 1)) === 0;
}

function parseStored(stored: string): StoredHash | undefined {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (!isPowerOfTwo(N) || N > MAX_N) return undefined;
  if (!Number.isInteger(r) || r < 1 || r > MAX_R || !Number.isInteger(p) || p < 1 || p > MAX_P)
    return undefined;
  const key = Buffer.from(parts[5], "base64");
  if (key.length === 0) return undefined;
  return { cost: { N, r, p }, salt: Buffer.from(parts[4], "base64"), key };
}

// Checked against when there is no usable stored hash, so that an unknown user costs what a known
// one does: the current cost, a random salt, and a random key no password derives.
function standIn(): StoredHash {
  return { cost, salt: randomBytes(16), key: randomBytes(KEY_LENGTH) };
}

/**
 * Whether `password` matches the stored hash. Without a usable hash (no such user, an empty or
 * malformed one) it does the same work against a stand-in and answers false, so the time taken
 * does not tell whether the user exists.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = stored === undefined ? undefined : parseStored(stored);
  const target = parsed ?? standIn();
  const key = await derive(password, target.salt, target.cost);
  const matches = key.length === target.key.length && timingSafeEqual(key, target.key);
  return parsed !== undefined && matches;
}

/** Whether a stored hash was made at another cost than new ones are, and should be made again. */
export function passwordNeedsRehash(stored: string): boolean {
  const parsed = parseStored(stored);
  return (
    parsed === undefined || parsed.cost.N !== cost.N || parsed.cost.r !== cost.r || parsed.cost.p !== cost.p
  );
}
