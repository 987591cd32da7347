import { toGogsTeam } from "../../convert/team.ts";
import { toApiUser } from "../../convert/user.ts";
import {
  GogsCreateTeamOption,
  OrgParams,
  PageQuery,
  TeamMemberParams,
  TeamParams,
} from "../../schemas/orgs.ts";
import { getUser } from "../../services/accounts.ts";
import { getOrganization } from "../../services/organizations.ts";
import {
  addTeamMember,
  createGogsTeam,
  getTeam,
  listMembersOfTeam,
  removeTeamMember,
} from "../../services/teams.ts";
import { type ApiContext, paged, sendPage, siteAdmin } from "./context.ts";

// Gogs' team administration, which Gitea dropped for /orgs/{org}/teams and /teams/{id}: kept for
// Gogs clients, for site admins only as in Gogs.

export function registerGogsAdmin(context: ApiContext): void {
  const { app, database } = context;
  const admin = { config: { scope: "admin" as const } };

  app.post(
    "/admin/orgs/:org/teams",
    { ...admin, schema: { params: OrgParams, body: GogsCreateTeamOption } },
    async (request, reply) => {
      siteAdmin(request);
      const org = await getOrganization(database, request.params.org);
      return reply.status(201).send(toGogsTeam(await createGogsTeam(database, org, request.body)));
    },
  );

  app.get(
    "/admin/teams/:id/members",
    { ...admin, schema: { params: TeamParams, querystring: PageQuery } },
    async (request, reply) => {
      const caller = siteAdmin(request);
      const team = await getTeam(database, request.params.id);
      const window = paged(context, request);
      const page = await listMembersOfTeam(database, team, window);
      return sendPage(request, reply, window, page, (user) =>
        toApiUser(user, caller.account, request.rootUrl),
      );
    },
  );

  for (const [method, change] of [
    ["PUT", addTeamMember],
    ["DELETE", removeTeamMember],
  ] as const) {
    app.route({
      method,
      url: "/admin/teams/:id/members/:username",
      ...admin,
      schema: { params: TeamMemberParams },
      handler: async (request, reply) => {
        siteAdmin(request);
        const team = await getTeam(database, request.params.id);
        await change(database, team, await getUser(database, request.params.username));
        return reply.status(204).send();
      },
    });
  }
}
