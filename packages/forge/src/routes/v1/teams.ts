import type { FastifyRequest } from "fastify";
import type { ApiOrganization } from "../../convert/organization.ts";
import { toApiTeam } from "../../convert/team.ts";
import { toApiUser } from "../../convert/user.ts";
import type { AccountRow } from "../../repositories/accounts.ts";
import type { TeamRow } from "../../repositories/teams.ts";
import {
  CreateTeamOption,
  EditTeamOption,
  OrgParams,
  PageQuery,
  TeamMemberParams,
  TeamParams,
  TeamSearchQuery,
} from "../../schemas/orgs.ts";
import { type ForgeDatabase, getUser } from "../../services/accounts.ts";
import { getVisibleOrganization, requireOrgMember, requireOrgOwner } from "../../services/organizations.ts";
import {
  addTeamMember,
  checkTeamMember,
  createTeam,
  deleteTeam,
  editTeam,
  getTeamFor,
  listMembersOfTeam,
  listOrganizationTeams,
  listUserTeams,
  removeTeamMember,
  requireTeamOwner,
  searchTeams,
  teamUnits,
} from "../../services/teams.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";
import { showOrganization, showOrganizations } from "./orgs.ts";

/** A renderer for teams of `org`, which loads their units and the organization once. */
async function teamRenderer(
  database: ForgeDatabase,
  request: FastifyRequest,
  org: AccountRow,
  teams: TeamRow[],
) {
  const [units, organization] = await Promise.all([
    teamUnits(database, teams),
    showOrganization(database, request, org),
  ]);
  return (team: TeamRow) => toApiTeam(team, units.get(team.id) ?? [], organization);
}

/** A renderer for teams of any organizations, which loads their units and organizations once. */
async function teamsRenderer(database: ForgeDatabase, request: FastifyRequest, teams: TeamRow[]) {
  const [units, organizations] = await Promise.all([
    teamUnits(database, teams),
    showOrganizations(
      database,
      request,
      teams.map((team) => team.org_id),
    ),
  ]);
  return (team: TeamRow) =>
    toApiTeam(team, units.get(team.id) ?? [], organizations.get(team.org_id) as ApiOrganization);
}

async function showTeam(database: ForgeDatabase, request: FastifyRequest, org: AccountRow, team: TeamRow) {
  return (await teamRenderer(database, request, org, [team]))(team);
}

export function registerTeams(context: ApiContext): void {
  const { app, database } = context;
  const organization = { config: { scope: "organization" as const } };

  app.get(
    "/user/teams",
    { config: { scope: "user" }, schema: { querystring: PageQuery } },
    async (request, reply) => {
      const caller = signedIn(request);
      const window = paged(context, request);
      const page = await listUserTeams(database, caller.account, window);
      return sendPage(request, reply, window, page, await teamsRenderer(database, request, page.rows));
    },
  );

  app.get(
    "/orgs/:org/teams",
    { ...organization, schema: { params: OrgParams, querystring: PageQuery } },
    async (request, reply) => {
      const viewer = signedIn(request).account;
      const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
      requireOrgMember(viewer, role);
      const window = paged(context, request);
      const page = await listOrganizationTeams(database, org, window);
      return sendPage(request, reply, window, page, await teamRenderer(database, request, org, page.rows));
    },
  );

  app.get(
    "/orgs/:org/teams/search",
    { ...organization, schema: { params: OrgParams, querystring: TeamSearchQuery } },
    async (request, reply) => {
      const viewer = signedIn(request).account;
      const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
      requireOrgMember(viewer, role);
      const window = paged(context, request);
      const { q, include_desc } = request.query;
      const page = await searchTeams(database, org, viewer, {
        keyword: q?.trim().toLowerCase(),
        // Gitea searches descriptions too unless told otherwise.
        includeDescription: include_desc === undefined || include_desc === "" || include_desc === "true",
        ...window,
      });
      const data = sendPage(
        request,
        reply,
        window,
        page,
        await teamRenderer(database, request, org, page.rows),
      );
      return { ok: true, data };
    },
  );

  app.post(
    "/orgs/:org/teams",
    { ...organization, schema: { params: OrgParams, body: CreateTeamOption } },
    async (request, reply) => {
      const viewer = signedIn(request).account;
      const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
      requireOrgMember(viewer, role);
      requireOrgOwner(viewer, role);
      const team = await createTeam(database, org, request.body);
      return reply.status(201).send(await showTeam(database, request, org, team));
    },
  );

  app.get("/teams/:id", { ...organization, schema: { params: TeamParams } }, async (request) => {
    const viewer = signedIn(request).account;
    const { team, org } = await getTeamFor(database, request.params.id, viewer);
    return showTeam(database, request, org, team);
  });

  app.patch(
    "/teams/:id",
    { ...organization, schema: { params: TeamParams, body: EditTeamOption } },
    async (request) => {
      const viewer = signedIn(request).account;
      const { team, org, role } = await getTeamFor(database, request.params.id, viewer);
      requireTeamOwner(viewer, role);
      return showTeam(database, request, org, await editTeam(database, team, request.body));
    },
  );

  app.delete("/teams/:id", { ...organization, schema: { params: TeamParams } }, async (request, reply) => {
    const viewer = signedIn(request).account;
    const { team, role } = await getTeamFor(database, request.params.id, viewer);
    requireTeamOwner(viewer, role);
    await deleteTeam(database, team);
    return reply.status(204).send();
  });

  app.get(
    "/teams/:id/members",
    { ...organization, schema: { params: TeamParams, querystring: PageQuery } },
    async (request, reply) => {
      const viewer = signedIn(request).account;
      const { team } = await getTeamFor(database, request.params.id, viewer);
      const window = paged(context, request);
      const page = await listMembersOfTeam(database, team, window);
      return sendPage(request, reply, window, page, (user) => toApiUser(user, viewer, request.rootUrl));
    },
  );

  app.get(
    "/teams/:id/members/:username",
    { ...organization, schema: { params: TeamMemberParams } },
    async (request) => {
      const viewer = signedIn(request).account;
      const { team } = await getTeamFor(database, request.params.id, viewer);
      const user = await getUser(database, request.params.username);
      await checkTeamMember(database, team, user);
      return toApiUser(user, viewer, request.rootUrl);
    },
  );

  for (const [method, change] of [
    ["PUT", addTeamMember],
    ["DELETE", removeTeamMember],
  ] as const) {
    app.route({
      method,
      url: "/teams/:id/members/:username",
      ...organization,
      schema: { params: TeamMemberParams },
      handler: async (request, reply) => {
        const viewer = signedIn(request).account;
        const { team, role } = await getTeamFor(database, request.params.id, viewer);
        requireTeamOwner(viewer, role);
        await change(database, team, await getUser(database, request.params.username));
        return reply.status(204).send();
      },
    });
  }
}
