import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { reserveLoginAttempt, settleLoginAttempt } from "../src/auth/login-throttle.ts";
import { type AnyKysely, createDb, type Database } from "../src/db/index.ts";
import {
  checkPasswordLogin,
  createLoginThrottleTable,
  hashPassword,
  type LoginLimits,
  type PasswordAccounts,
  TooManyRequests,
} from "../src/index.ts";
import { forEachDatabase } from "../src/testing/index.ts";

const LIMITS: LoginLimits = {
  accountFailures: 2,
  addressFailures: 100,
  windowSeconds: 600,
  trustSeconds: 3600,
};
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MINUTE = 60_000;

async function fail(db: AnyKysely, login: string, address: string, now: number) {
  const reservation = await reserveLoginAttempt(db, LIMITS, { login, address }, now);
  if (reservation.allowed) await settleLoginAttempt(db, LIMITS, reservation.reserved, false, now);
  return reservation;
}

async function rows(db: AnyKysely): Promise<number> {
  const row = await db
    .selectFrom("login_throttle")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

forEachDatabase("login throttle", (database) => {
  let handle: Database;
  let db: AnyKysely;
  before(async () => {
    handle = createDb(database.url);
    db = handle.db as AnyKysely;
    await createLoginThrottleTable(db);
    await createLoginThrottleTable(db);
  });
  after(() => handle.close());

  test("a locked name opens again as its failures slide out of the window", async () => {
    assert.equal((await fail(db, "slide", "192.0.2.1", T0)).allowed, true);
    assert.equal((await fail(db, "slide", "192.0.2.2", T0 + MINUTE)).allowed, true);
    const refused = await fail(db, "slide", "192.0.2.3", T0 + 2 * MINUTE);
    assert.equal(refused.allowed, false);
    assert.ok(!refused.allowed && refused.retryAfter > 0 && refused.retryAfter <= 2 * 600);
    // Refused attempts are not counted: the name opens when the counted ones age, whatever was tried since.
    for (let i = 0; i < 5; i++)
      assert.equal((await fail(db, "slide", "192.0.2.4", T0 + 3 * MINUTE)).allowed, false);
    const retryAt = T0 + 2 * MINUTE + (refused.allowed ? 0 : refused.retryAfter * 1000);
    assert.equal((await fail(db, "slide", "192.0.2.5", retryAt - 2000)).allowed, false);
    assert.equal((await fail(db, "slide", "192.0.2.5", retryAt)).allowed, true);
  });

  test("a success takes its attempt back", async () => {
    for (let i = 0; i < 5; i++) {
      const reservation = await reserveLoginAttempt(db, LIMITS, { login: "good", address: "192.0.2.9" }, T0);
      assert.equal(reservation.allowed, true);
      if (reservation.allowed) await settleLoginAttempt(db, LIMITS, reservation.reserved, true, T0);
    }
  });

  test("expired counts are swept: the table holds only what can still limit", async () => {
    for (let i = 0; i < 20; i++) await fail(db, `spray-${i}`, `198.51.100.${i}`, T0);
    const later = T0 + 3 * 600_000;
    await fail(db, "after", "203.0.113.1", later);
    const left = await db.selectFrom("login_throttle").select("expires_at").execute();
    assert.ok(left.length > 0);
    for (const row of left) assert.ok(Number(row.expires_at) > later / 1000, JSON.stringify(row));
    assert.ok((await rows(db)) <= 3, `rows left: ${await rows(db)}`);
  });

  test("checkPasswordLogin refuses with TooManyRequests before checking the password", async () => {
    const stored = await hashPassword("right");
    const accounts: PasswordAccounts<{ hash: string }> = {
      find: async (login) => (login === "known" ? { hash: stored } : undefined),
      hashOf: (account) => account.hash,
      replaceHash: async () => {},
    };
    const attempt = (password: string, address: string) =>
      checkPasswordLogin(db, { ...LIMITS, windowSeconds: 3600 }, accounts, {
        login: "known",
        password,
        address,
      });
    assert.ok(await attempt("right", "192.0.2.77"));
    assert.equal(await attempt("wrong", "192.0.2.78"), undefined);
    assert.equal(await attempt("wrong", "192.0.2.79"), undefined);
    await assert.rejects(
      attempt("right", "192.0.2.80"),
      (error) => error instanceof TooManyRequests && error.retryAfter > 0,
    );
    assert.ok(await attempt("right", "192.0.2.77"), "the address that signed in before still may");
  });
});
