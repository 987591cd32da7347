import type { Kysely, Selectable } from "kysely";
import type { EmailAddressTable, ForgeTables } from "../schemas/tables.ts";

export type EmailAddressRow = Selectable<EmailAddressTable>;

/** A user's addresses besides the account's own, oldest first. */
export function listEmailAddresses(db: Kysely<ForgeTables>, accountId: number): Promise<EmailAddressRow[]> {
  return db
    .selectFrom("email_address")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("id")
    .execute();
}

/** The addresses among `lowerEmails` that anyone holds besides an account's own. */
export function findEmailAddresses(
  db: Kysely<ForgeTables>,
  lowerEmails: string[],
): Promise<EmailAddressRow[]> {
  if (lowerEmails.length === 0) return Promise.resolve([]);
  return db.selectFrom("email_address").selectAll().where("lower_email", "in", lowerEmails).execute();
}

export async function insertEmailAddresses(
  db: Kysely<ForgeTables>,
  rows: Array<{ account_id: number; email: string; lower_email: string; created_at: string | Date }>,
): Promise<void> {
  if (rows.length > 0) await db.insertInto("email_address").values(rows).execute();
}

/** Removes the account's addresses among `lowerEmails`. */
export async function deleteEmailAddresses(
  db: Kysely<ForgeTables>,
  accountId: number,
  lowerEmails: string[],
): Promise<void> {
  if (lowerEmails.length === 0) return;
  await db
    .deleteFrom("email_address")
    .where("account_id", "=", accountId)
    .where("lower_email", "in", lowerEmails)
    .execute();
}
