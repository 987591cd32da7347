import { readBool } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import { type ApiUser, toApiUser } from "./user.ts";

export interface ApiOrganization {
  id: number;
  name: string;
  /** Gitea keeps it, deprecated, for Gogs clients. */
  username: string;
  full_name: string;
  email: string;
  avatar_url: string;
  description: string;
  website: string;
  location: string;
  visibility: string;
  repo_admin_change_team_access: boolean;
  owners?: ApiUser[];
}

/**
 * An organization as Gitea shows it, its e-mail hidden from anonymous callers; with `owners` only
 * when they are given, which is when the caller may see them (a site admin or a member).
 */
export function toApiOrganization(
  org: AccountRow,
  viewer: AccountRow | undefined,
  rootUrl: URL,
  owners?: AccountRow[],
): ApiOrganization {
  const account = toApiUser(org, viewer, rootUrl);
  const shown: ApiOrganization = {
    id: org.id,
    name: org.name,
    username: org.name,
    full_name: org.full_name,
    email: viewer ? org.email : "",
    avatar_url: account.avatar_url,
    description: org.description,
    website: org.website,
    location: org.location,
    visibility: org.visibility,
    repo_admin_change_team_access: readBool(org.repo_admin_change_team_access),
  };
  if (owners) shown.owners = owners.map((owner) => toApiUser(owner, viewer, rootUrl));
  return shown;
}
