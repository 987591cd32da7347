import { BadRequest, Invalid, isUniqueViolation, NotFound, readBool, toStoredTime } from "@anvil/core";
import { type AccountRow, findUsersByEmails } from "../repositories/accounts.ts";
import {
  deleteEmailAddresses,
  findEmailAddresses,
  insertEmailAddresses,
  listEmailAddresses,
} from "../repositories/emails.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { isEmail } from "./names.ts";

/** One of a user's addresses: the account's own is the primary one. */
export interface UserEmail {
  email: string;
  verified: boolean;
  primary: boolean;
}

// Gitea sets no bound; one request's list is bounded here as every list is.
const MAX_EMAILS = 100;

function checkCount(emails: readonly string[]): void {
  if (emails.length > MAX_EMAILS) throw new Invalid(`[Emails]: at most ${MAX_EMAILS} addresses at once`);
}

export async function userEmails(database: ForgeDatabase, user: AccountRow): Promise<UserEmail[]> {
  const others = await listEmailAddresses(database.db, user.id);
  return [
    { email: user.email, verified: readBool(user.is_active), primary: true },
    ...others.map((row) => ({ email: row.email, verified: readBool(row.is_activated), primary: false })),
  ];
}

/**
 * Refuses an account's own (primary) address when a user other than `accountId` holds it as an
 * added one, as Gitea counts every address once; the user's own added address becomes primary.
 */
export async function claimPrimaryEmail(
  database: ForgeDatabase,
  email: string,
  accountId?: number,
): Promise<void> {
  const lower = email.toLowerCase();
  const [held] = await findEmailAddresses(database.db, [lower]);
  if (!held) return;
  if (held.account_id !== accountId) throw new Invalid(`e-mail already in use [email: ${email}]`);
  await deleteEmailAddresses(database.db, held.account_id, [lower]);
}

/** The first of `emails` that an account or an added address already holds. */
async function firstUsed(database: ForgeDatabase, emails: readonly string[]): Promise<string | undefined> {
  const lower = emails.map((email) => email.toLowerCase());
  const [accounts, added] = await Promise.all([
    findUsersByEmails(database.db, lower),
    findEmailAddresses(database.db, lower),
  ]);
  const held = new Set([...accounts.keys(), ...added.map((row) => row.lower_email)]);
  return emails.find((email) => held.has(email.toLowerCase()));
}

/** Adds addresses to the user, all or none, with Gitea's 422s for a bad or taken one. */
export async function addUserEmails(
  database: ForgeDatabase,
  user: AccountRow,
  emails: readonly string[],
): Promise<UserEmail[]> {
  if (emails.length === 0) throw new Invalid("Email list empty");
  checkCount(emails);
  const invalid = emails.find((email) => !isEmail(email));
  if (invalid !== undefined) throw new Invalid(`Email address ${JSON.stringify(invalid)} invalid`);
  const repeated = emails.find((email, i) =>
    emails.slice(0, i).some((earlier) => earlier.toLowerCase() === email.toLowerCase()),
  );
  const used = repeated ?? (await firstUsed(database, emails));
  if (used !== undefined) throw new Invalid(`Email address has been used: ${used}`);
  const now = toStoredTime(new Date(), database.dialect);
  try {
    await insertEmailAddresses(
      database.db,
      emails.map((email) => ({
        account_id: user.id,
        email,
        lower_email: email.toLowerCase(),
        created_at: now,
      })),
    );
  } catch (error) {
    // Another request claimed one of them since the look-up.
    if (!isUniqueViolation(error)) throw error;
    throw new Invalid(`Email address has been used: ${(await firstUsed(database, emails)) ?? emails[0]}`);
  }
  return userEmails(database, user);
}

/** Removes addresses from the user, all or none; the primary one cannot go. */
export async function deleteUserEmails(
  database: ForgeDatabase,
  user: AccountRow,
  emails: readonly string[],
): Promise<void> {
  checkCount(emails);
  const primary = emails.find((email) => email.toLowerCase() === user.lower_email);
  if (primary !== undefined)
    throw new BadRequest(`Primary email address cannot be deleted [email: ${primary}]`);
  const lower = [...new Set(emails.map((email) => email.toLowerCase()))];
  await database.db.transaction().execute(async (trx) => {
    const held = new Set((await listEmailAddresses(trx, user.id)).map((row) => row.lower_email));
    const missing = emails.find((email) => !held.has(email.toLowerCase()));
    if (missing !== undefined) throw new NotFound(`Email address does not exist [email: ${missing}]`);
    await deleteEmailAddresses(trx, user.id, lower);
  });
}
