import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import {
  hashPassword,
  OWASP_SCRYPT_COST,
  passwordHashCost,
  passwordNeedsRehash,
  setPasswordHashCost,
  verifyPassword,
} from "../src/auth/index.ts";
import { TEST_SCRYPT_COST } from "../src/testing/index.ts";

setPasswordHashCost(TEST_SCRYPT_COST);

test("a stored hash names its cost; one at another cost needs re-hashing", async () => {
  const stored = await hashPassword("secret");
  assert.equal(passwordNeedsRehash(stored), false);
  assert.equal(await verifyPassword("secret", stored), true);
  assert.equal(await verifyPassword("Secret", stored), false);
  const older = stored.replace(/^scrypt\$\d+\$/, "scrypt$16384$");
  assert.equal(passwordNeedsRehash(older), true);
});

test("a stored hash asking for an absurd cost is refused, not run", async () => {
  const huge = `scrypt$${2 ** 30}$8$1$${Buffer.alloc(16).toString("base64")}$${Buffer.alloc(32).toString("base64")}`;
  assert.equal(await verifyPassword("x", huge), false);
  assert.equal(await verifyPassword("x", ""), false);
  assert.equal(await verifyPassword("x", undefined), false);
});

test("OWASP-cost derivations leave libuv's pool room for file reads", async () => {
  const previous = passwordHashCost();
  setPasswordHashCost(OWASP_SCRYPT_COST);
  try {
    const order: string[] = [];
    const hashes = Array.from({ length: 6 }, () => hashPassword("secret").then(() => order.push("hash")));
    await readFile(new URL(import.meta.url)).then(() => order.push("read"));
    await Promise.all(hashes);
    assert.equal(order[0], "read", "the read waited for scrypt");
    assert.equal(passwordNeedsRehash(await hashPassword("x")), false);
  } finally {
    setPasswordHashCost(previous);
  }
});
