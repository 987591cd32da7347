import assert from "node:assert/strict";
import { test } from "node:test";
import { setPasswordHashCost, TooManyRequests } from "@anvil/core";
import { TEST_SCRYPT_COST } from "@anvil/core/testing";
import type { InventoryDatabase } from "../src/services/database.ts";
import { checkSignIn } from "../src/services/users.ts";
import { api, forEachInventory, type InventoryState } from "./support/inventory.ts";

// The inventory has no password sign-in on its API (Snipe-IT's takes tokens only); the web sign-in
// form will check passwords through checkSignIn. Users are made over the API, as admins do.

const LIMITS = { accountFailures: 3, addressFailures: 5, windowSeconds: 900, trustSeconds: 86_400 };

async function makeUser(inventory: InventoryState, username: string): Promise<void> {
  const made = await api<{ status: string }>(inventory, "POST", "/users", {
    body: { first_name: username, username, password: "password123", password_confirmation: "password123" },
  });
  assert.equal(made.body.status, "success", JSON.stringify(made.body));
}

function databaseOf(inventory: InventoryState): InventoryDatabase {
  const database = inventory.server.app.database;
  if (!database) throw new Error("no database");
  return database;
}

async function storedHash(database: InventoryDatabase, username: string): Promise<string> {
  const row = await database.db
    .selectFrom("users")
    .select("password")
    .where("username", "=", username)
    .executeTakeFirstOrThrow();
  return row.password;
}

forEachInventory("inventory password sign-in", (inventory) => {
  const signIn = (username: string, password: string, address: string) =>
    checkSignIn(databaseOf(inventory), LIMITS, { username, password, address });

  test("the right password signs in; a wrong one and an unknown name do not", async () => {
    await makeUser(inventory, "ines");
    assert.equal((await signIn("ines", "password123", "10.0.0.1"))?.username, "ines");
    assert.equal(await signIn("ines", "wrong-password", "10.0.0.2"), undefined);
    assert.equal(await signIn("nobody", "password123", "10.0.0.3"), undefined);
  });

  test("failures lock a username for new addresses, and an address for every username", async () => {
    await makeUser(inventory, "jon");
    for (const address of ["10.1.0.1", "10.1.0.2", "10.1.0.3"])
      assert.equal(await signIn("jon", "guess", address), undefined);
    await assert.rejects(signIn("jon", "password123", "10.1.0.4"), TooManyRequests);
    for (const name of ["a", "b", "c", "d", "e"])
      assert.equal(await signIn(name, "guess", "10.2.0.1"), undefined);
    await assert.rejects(signIn("ines", "password123", "10.2.0.1"), TooManyRequests);
    assert.equal((await signIn("ines", "password123", "10.2.0.2"))?.username, "ines");
  });

  test("a hash made at an older cost is made anew on sign-in", async () => {
    setPasswordHashCost({ N: 2 ** 14, r: 8, p: 1 });
    try {
      await makeUser(inventory, "kim");
    } finally {
      setPasswordHashCost(TEST_SCRYPT_COST);
    }
    const database = databaseOf(inventory);
    assert.match(await storedHash(database, "kim"), /^scrypt\$16384\$8\$1\$/);
    assert.equal((await signIn("kim", "password123", "10.3.0.1"))?.username, "kim");
    const { N, r, p } = TEST_SCRYPT_COST;
    assert.ok((await storedHash(database, "kim")).startsWith(`scrypt$${N}$${r}$${p}$`));
    assert.equal((await signIn("kim", "password123", "10.3.0.1"))?.username, "kim");
  });
});
