import type { AccountRow } from "../repositories/accounts.ts";
import type { PublicKeyRow } from "../repositories/keys.ts";
import { link } from "./link.ts";
import { apiTime, ZERO_TIME } from "./time.ts";
import { toApiUser } from "./user.ts";

export function toApiKey(key: PublicKeyRow, owner: AccountRow, viewer: AccountRow | undefined, rootUrl: URL) {
  return {
    id: key.id,
    key: key.content,
    url: link(rootUrl, `api/v1/user/keys/${key.id}`),
    title: key.title,
    fingerprint: key.fingerprint,
    created_at: apiTime(key.created_at),
    last_used_at: key.last_used_at ? apiTime(key.last_used_at) : ZERO_TIME,
    read_only: false,
    key_type: "user",
    user: toApiUser(owner, viewer, rootUrl),
  };
}
