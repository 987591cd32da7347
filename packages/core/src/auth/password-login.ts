import type { LoginLimits } from "../config/service-settings.ts";
import type { AnyKysely } from "../db/database.ts";
import { TooManyRequests } from "../errors.ts";
import { type LoginAttempt, reserveLoginAttempt, settleLoginAttempt } from "./login-throttle.ts";
import { hashPassword, passwordNeedsRehash, verifyPassword } from "./passwords.ts";

// Every password login of every service goes through here: the API's basic auth, git over HTTP,
// and the web sign-in forms. The same steps for every name, known or not: count the attempt,
// refuse it over a limit, check the password (against a stand-in when the name is unknown), and
// store a hash made at an older cost anew.

/** What a service tells the login about its accounts. */
export interface PasswordAccounts<A> {
  /** The account a login name names, whether or not it may sign in. */
  find(login: string): Promise<A | undefined>;
  /** The account's stored hash; empty when it has no password. */
  hashOf(account: A): string;
  /**
   * Replaces the account's hash with `next` only while it still is `previous`, so a password
   * changed during the login is never overwritten by the old password's new hash.
   */
  replaceHash(account: A, previous: string, next: string): Promise<void>;
  /**
   * Where another system checks passwords (a directory): for an account it owns, or a name no
   * account has that it may know, the promise of the account it signs in (undefined: refused).
   * Undefined, not a promise, when the local hash decides.
   */
  checkElsewhere?(
    login: string,
    account: A | undefined,
    password: string,
  ): Promise<A | undefined> | undefined;
}

export interface PasswordLogin extends LoginAttempt {
  password: string;
}

const TOO_MANY_LOGINS = "too many failed login attempts, try again later";

/**
 * The account whose name and password these are, or undefined; throws TooManyRequests when the
 * name or the address has failed too often lately.
 */
export async function checkPasswordLogin<A>(
  db: AnyKysely,
  limits: LoginLimits,
  accounts: PasswordAccounts<A>,
  login: PasswordLogin,
): Promise<A | undefined> {
  const reservation = await reserveLoginAttempt(db, limits, login);
  if (!reservation.allowed) throw new TooManyRequests(TOO_MANY_LOGINS, reservation.retryAfter);
  const account = await accounts.find(login.login);
  const elsewhere = accounts.checkElsewhere?.(login.login, account, login.password);
  if (elsewhere !== undefined) {
    const signedIn = await elsewhere;
    await settleLoginAttempt(db, limits, reservation.reserved, signedIn !== undefined);
    return signedIn;
  }
  const stored = account === undefined ? undefined : accounts.hashOf(account);
  const matches = await verifyPassword(login.password, stored);
  await settleLoginAttempt(db, limits, reservation.reserved, matches);
  if (!matches || account === undefined || stored === undefined) return undefined;
  if (passwordNeedsRehash(stored))
    await accounts.replaceHash(account, stored, await hashPassword(login.password));
  return account;
}
