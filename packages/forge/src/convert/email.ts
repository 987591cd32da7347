import type { AccountRow } from "../repositories/accounts.ts";
import type { UserEmail } from "../services/emails.ts";

/** Gitea's Email: the address with its owner's id and name. */
export function toApiEmail(email: UserEmail, owner: AccountRow) {
  return {
    email: email.email,
    verified: email.verified,
    primary: email.primary,
    user_id: owner.id,
    username: owner.name,
  };
}
