import { RowMemo, readBool } from "@anvil/core";
import type { AccountRow } from "../repositories/accounts.ts";
import {
  collaborationModes,
  findCollaboration,
  type RepositoryRow,
  teamGrants,
  teamModesOn,
} from "../repositories/repos.ts";
import { ACCOUNT_ORGANIZATION } from "../schemas/tables.ts";
import { type ForgeDatabase, isAdmin, visibleVisibilities } from "./accounts.ts";
import { accessLevel } from "./teams.ts";

// Access to a repository, as Gitea's AccessMode: what a caller may do decides both what they may
// change and whether they may see the repository at all (no access is a 404, never a 403).

export const ACCESS_NONE = 0;
export const ACCESS_READ = 1;
export const ACCESS_WRITE = 2;
export const ACCESS_ADMIN = 3;
export const ACCESS_OWNER = 4;

export const COLLABORATOR_MODES: Readonly<Record<string, number>> = {
  read: ACCESS_READ,
  write: ACCESS_WRITE,
  admin: ACCESS_ADMIN,
};

export function accessName(mode: number): "none" | "read" | "write" | "admin" | "owner" {
  return (["none", "read", "write", "admin", "owner"] as const)[mode] ?? "none";
}

// The one rule, given what is known of the viewer's grants on the repository.
function accessFrom(
  repository: RepositoryRow,
  owner: AccountRow,
  viewer: AccountRow | undefined,
  granted: number,
): number {
  if (viewer && (isAdmin(viewer) || viewer.id === owner.id)) return ACCESS_OWNER;
  const ownerVisible = visibleVisibilities(viewer)?.includes(owner.visibility) ?? true;
  const publicRead = !readBool(repository.is_private) && ownerVisible ? ACCESS_READ : ACCESS_NONE;
  return Math.max(granted, publicRead);
}

type Grants = Awaited<ReturnType<typeof teamGrants>>;

// The best of what the viewer's collaborations and teams give on one repository.
function granted(
  repository: RepositoryRow,
  collaboration: number | undefined,
  teams: Grants | undefined,
): number {
  const modes = [
    ...(teams?.byRepository.get(repository.id) ?? []),
    ...(teams?.byOrganization.get(repository.owner_id) ?? []),
  ];
  return Math.max(collaboration ?? ACCESS_NONE, ...modes.map(accessLevel));
}

// A signed-in caller's access is asked for on nearly every call they make; it is kept while the
// repository, its owner and the caller are unchanged (core's RowMemo), and with them their grants.
const grantedAccess = new RowMemo<number>();

export async function repositoryAccess(
  database: ForgeDatabase,
  repository: RepositoryRow,
  owner: AccountRow,
  viewer: AccountRow | undefined,
): Promise<number> {
  // Owners and site admins need no look-up at all.
  if (!viewer || isAdmin(viewer) || viewer.id === owner.id)
    return accessFrom(repository, owner, viewer, ACCESS_NONE);
  const rows = [repository, owner, viewer];
  const kept = grantedAccess.find(rows, "");
  if (kept !== undefined) return kept;
  const [collaboration, teamModes] = await Promise.all([
    findCollaboration(database.db, repository.id, viewer.id),
    owner.type === ACCOUNT_ORGANIZATION ? teamModesOn(database.db, viewer.id, repository) : [],
  ]);
  const access = accessFrom(
    repository,
    owner,
    viewer,
    Math.max(collaboration?.mode ?? ACCESS_NONE, ...teamModes.map(accessLevel)),
  );
  grantedAccess.keep(rows, "", access);
  return access;
}

/** repositoryAccess for a page of repositories, with two queries for the viewer's grants. */
export async function repositoriesAccess(
  database: ForgeDatabase,
  rows: Array<{ repository: RepositoryRow; owner: AccountRow }>,
  viewer: AccountRow | undefined,
): Promise<number[]> {
  const ids = rows.map((row) => row.repository.id);
  const [modes, teams] = viewer
    ? await Promise.all([collaborationModes(database.db, viewer.id, ids), teamGrants(database.db, viewer.id)])
    : [new Map<number, number>(), undefined];
  return rows.map(({ repository, owner }) =>
    accessFrom(repository, owner, viewer, granted(repository, modes.get(repository.id), teams)),
  );
}
