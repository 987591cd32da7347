import { readBool } from "@anvil/core";
import type { TeamRow, TeamUnitRow } from "../repositories/teams.ts";
import { unitsMapOf } from "../services/teams.ts";
import type { ApiOrganization } from "./organization.ts";

/** A team as Gitea shows it; `units` lists the units of `units_map`, in Gitea's unit order. */
export function toApiTeam(team: TeamRow, units: TeamUnitRow[], organization: ApiOrganization) {
  const unitsMap = unitsMapOf(team, units);
  return {
    id: team.id,
    name: team.name,
    description: team.description,
    organization,
    includes_all_repositories: readBool(team.includes_all_repositories),
    permission: team.authorize,
    units: [...unitsMap.keys()],
    units_map: Object.fromEntries(unitsMap),
    can_create_org_repo: readBool(team.can_create_org_repo),
  };
}

/** A team as Gogs' admin API shows it. */
export function toGogsTeam(team: TeamRow) {
  return { id: team.id, name: team.name, description: team.description, permission: team.authorize };
}
