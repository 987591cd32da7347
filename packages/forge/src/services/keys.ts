import { Invalid, isUniqueViolation, NotFound, readBool, toStoredTime } from "@anvil/core";
import { type AccountRow, findAccountById } from "../repositories/accounts.ts";
import {
  deleteKey,
  findKey,
  findKeyByContent,
  insertKey,
  listKeys,
  type PublicKeyRow,
  touchKey,
} from "../repositories/keys.ts";
import { parsePublicKey } from "../ssh/index.ts";
import type { ForgeDatabase } from "./accounts.ts";

export async function addKey(
  database: ForgeDatabase,
  owner: AccountRow,
  input: { title: string; key: string },
): Promise<PublicKeyRow> {
  const title = input.title.trim();
  if (title === "") throw new Invalid("[Title]: Required");
  const parsed = parsePublicKey(input.key);
  try {
    return await insertKey(database.db, {
      account_id: owner.id,
      title,
      content: parsed.content,
      fingerprint: parsed.fingerprint,
      key_type: parsed.type,
      created_at: toStoredTime(new Date(), database.dialect),
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Gitea's two 422s: the same key anywhere, or the same title for this user.
    const used = await findKeyByContent(database.db, parsed.content);
    throw new Invalid(used ? "Key content has been used as non-deploy key" : "Key title has been used");
  }
}

export function userKeys(
  database: ForgeDatabase,
  owner: AccountRow,
  window: { offset: number; limit: number },
) {
  return listKeys(database.db, owner.id, window);
}

export async function getKey(database: ForgeDatabase, owner: AccountRow, id: number): Promise<PublicKeyRow> {
  const key = await findKey(database.db, owner.id, id);
  if (!key) throw new NotFound(`public key does not exist [id: ${id}]`);
  return key;
}

export async function removeKey(database: ForgeDatabase, owner: AccountRow, id: number): Promise<void> {
  if (!(await deleteKey(database.db, owner.id, id)))
    throw new NotFound(`public key does not exist [id: ${id}]`);
}

/**
 * The user an SSH key belongs to, when they may sign in; a login (`used`) notes the key's use, a
 * client's query whether the key would do writes nothing.
 */
export async function accountForKey(
  database: ForgeDatabase,
  content: string,
  used: boolean,
): Promise<AccountRow | undefined> {
  const key = await findKeyByContent(database.db, content);
  const account = key && (await findAccountById(database.db, key.account_id));
  if (!key || !account || !readBool(account.is_active) || readBool(account.prohibit_login)) return undefined;
  if (used) await touchKey(database.db, key.id, toStoredTime(new Date(), database.dialect));
  return account;
}
