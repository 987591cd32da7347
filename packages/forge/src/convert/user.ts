import { readBool } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import { isAdmin } from "../services/accounts.ts";
import { link } from "./link.ts";
import { apiTime, ZERO_TIME } from "./time.ts";

export interface ApiUser {
  id: number;
  login: string;
  /** Gitea adds it beside `login` to every User it sends, for Gogs clients; not in the swagger. */
  username: string;
  login_name: string;
  source_id: number;
  full_name: string;
  email: string;
  avatar_url: string;
  html_url: string;
  language: string;
  is_admin: boolean;
  last_login: string;
  created: string;
  restricted: boolean;
  active: boolean;
  prohibit_login: boolean;
  location: string;
  website: string;
  description: string;
  visibility: string;
  followers_count: number;
  following_count: number;
  starred_repos_count: number;
}

/** What the caller may see of an account: its e-mail (signed), its account details (authed). */
interface Disclosure {
  signed: boolean;
  authed: boolean;
}

/**
 * A user as Gitea shows it to `viewer`: the e-mail only to signed-in callers, and the account
 * details (admin flag, login name and source, activity) only to the user and site admins.
 */
export function toApiUser(account: AccountRow, viewer: AccountRow | undefined, rootUrl: URL): ApiUser {
  const authed = viewer !== undefined && (viewer.id === account.id || isAdmin(viewer));
  return renderUser(account, { signed: viewer !== undefined, authed }, rootUrl);
}

/**
 * A repository's owner, user or organization, as Gitea renders it inside the repository: its
 * e-mail to callers with access to the repository, never its account details. Gitea also shows
 * the e-mail to anonymous readers of a public repository (behind its "keep e-mail private"
 * setting, which the forge does not have), so here the caller must be signed in as well.
 */
export function toApiRepositoryOwner(
  account: AccountRow,
  viewer: AccountRow | undefined,
  seesRepository: boolean,
  rootUrl: URL,
): ApiUser {
  return renderUser(account, { signed: viewer !== undefined && seesRepository, authed: false }, rootUrl);
}

function renderUser(account: AccountRow, { signed, authed }: Disclosure, rootUrl: URL): ApiUser {
  return {
    id: account.id,
    login: account.name,
    username: account.name,
    login_name: authed ? account.login_name : "",
    source_id: authed ? account.source_id : 0,
    full_name: account.full_name,
    // Gitea's placeholder stands in when the address is hidden or, for organizations, unset.
    email:
      signed && account.email !== "" ? account.email : `${account.lower_name}@noreply.${rootUrl.hostname}`,
    avatar_url: link(rootUrl, `avatars/${encodeURIComponent(account.lower_name)}`),
    html_url: link(rootUrl, encodeURIComponent(account.name)),
    language: "",
    is_admin: authed && isAdmin(account),
    last_login: authed && account.last_login_at ? apiTime(account.last_login_at) : ZERO_TIME,
    created: apiTime(account.created_at),
    restricted: readBool(account.restricted),
    active: authed && readBool(account.is_active),
    prohibit_login: authed && readBool(account.prohibit_login),
    location: account.location,
    website: account.website,
    description: account.description,
    visibility: account.visibility,
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
  };
}
