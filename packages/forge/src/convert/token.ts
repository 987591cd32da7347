import type { AccessTokenRow } from "../repositories/tokens.ts";
import { apiTime, ZERO_TIME } from "./time.ts";

/** An access token; `secret` only in the answer to its creation, the one time it is shown. */
export function toApiToken(token: AccessTokenRow, secret = "") {
  return {
    id: token.id,
    name: token.name,
    sha1: secret,
    token_last_eight: token.token_last_eight,
    scopes: token.scopes.split(","),
    created_at: apiTime(token.created_at),
    last_used_at: token.last_used_at ? apiTime(token.last_used_at) : ZERO_TIME,
  };
}
