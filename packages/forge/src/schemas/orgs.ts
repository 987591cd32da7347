import { Type } from "typebox";

// Request bodies and paths of the organization and team routes, named after Gitea's API structs
// (swagger definitions of the same name) and Gogs' where it differs.

export const CreateOrgOption = Type.Object({
  username: Type.String(),
  full_name: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  website: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  visibility: Type.Optional(Type.String()),
  repo_admin_change_team_access: Type.Optional(Type.Boolean()),
});

export const EditOrgOption = Type.Partial(Type.Omit(CreateOrgOption, ["username"]));

export const CreateTeamOption = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  includes_all_repositories: Type.Optional(Type.Boolean()),
  permission: Type.Optional(Type.String()),
  units: Type.Optional(Type.Array(Type.String())),
  units_map: Type.Optional(Type.Record(Type.String(), Type.String())),
  can_create_org_repo: Type.Optional(Type.Boolean()),
});

// Gitea's swagger marks `name` required, but its handler keeps the name when it is left out.
export const EditTeamOption = Type.Partial(CreateTeamOption);

/** Gogs' POST /admin/orgs/{org}/teams body. */
export const GogsCreateTeamOption = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  permission: Type.Optional(Type.String()),
});

export const OrgParams = Type.Object({ org: Type.String() });
export const OrgMemberParams = Type.Object({ org: Type.String(), username: Type.String() });
export const UserOrgParams = Type.Object({ username: Type.String(), org: Type.String() });
export const TeamParams = Type.Object({ id: Type.String() });
export const TeamMemberParams = Type.Object({ id: Type.String(), username: Type.String() });

export const PageQuery = Type.Object({
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

export const TeamSearchQuery = Type.Object({
  q: Type.Optional(Type.String()),
  include_desc: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
