import { NotFound } from "@anvil/core";
import { Type } from "typebox";
import { findAccountById } from "../../repositories/accounts.ts";
import { OrgParams, TeamParams } from "../../schemas/orgs.ts";
import { CreateRepoOption } from "../../schemas/repos.ts";
import {
  changeTeamRepository,
  createOrganizationRepository,
  teamHasRepository,
  teamOrganizationRepository,
  teamRepositories,
} from "../../services/organization-repositories.ts";
import { getVisibleOrganization } from "../../services/organizations.ts";
import { getTeam, getTeamFor, requireTeamOwner } from "../../services/teams.ts";
import { type ApiContext, signedIn, siteAdmin } from "./context.ts";
import { readerOf, renderRepositoryFor, repositoriesWhere, sendRepositories } from "./repos.ts";

const TeamRepoParams = Type.Object({ id: Type.String(), org: Type.String(), repo: Type.String() });
const GogsTeamRepoParams = Type.Object({ id: Type.String(), reponame: Type.String() });

/** Repositories of organizations and of their teams, and Gogs' admin path for team repositories. */
export function registerOrgRepos(context: ApiContext): void {
  const { app, database, storage } = context;
  const organization = { config: { scope: "organization" as const } };

  app.get("/orgs/:org/repos", { ...organization, schema: { params: OrgParams } }, async (request, reply) => {
    const viewer = request.caller?.account;
    const { org } = await getVisibleOrganization(database, request.params.org, viewer);
    const list = repositoriesWhere(context, { ownerId: org.id, reader: readerOf(request.caller) });
    return sendRepositories(context, request, reply, list);
  });

  app.post(
    "/orgs/:org/repos",
    { ...organization, schema: { params: OrgParams, body: CreateRepoOption } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { org } = await getVisibleOrganization(database, request.params.org, doer);
      const created = await createOrganizationRepository(database, storage, org, doer, request.body);
      return reply.status(201).send(await renderRepositoryFor(context, request, created, org, doer));
    },
  );

  app.get("/teams/:id/repos", { ...organization, schema: { params: TeamParams } }, async (request, reply) => {
    const caller = signedIn(request);
    const { team } = await getTeamFor(database, request.params.id, caller.account);
    const publicOnly = caller.scopes?.includes("public-only") ?? false;
    return sendRepositories(context, request, reply, (window) =>
      teamRepositories(database, team, { ...window, publicOnly }),
    );
  });

  app.get(
    "/teams/:id/repos/:org/:repo",
    { ...organization, schema: { params: TeamRepoParams } },
    async (request) => {
      const viewer = signedIn(request).account;
      const { team, org } = await getTeamFor(database, request.params.id, viewer);
      const repository = await teamOrganizationRepository(
        database,
        org,
        request.params.org,
        request.params.repo,
      );
      if (!(await teamHasRepository(database, team, repository)))
        throw new NotFound("repository does not exist");
      return renderRepositoryFor(context, request, repository, org, viewer);
    },
  );

  for (const method of ["put", "delete"] as const) {
    app[method](
      "/teams/:id/repos/:org/:repo",
      { ...organization, schema: { params: TeamRepoParams } },
      async (request, reply) => {
        const viewer = signedIn(request).account;
        const { team, org, role } = await getTeamFor(database, request.params.id, viewer);
        requireTeamOwner(viewer, role);
        const repository = await teamOrganizationRepository(
          database,
          org,
          request.params.org,
          request.params.repo,
        );
        await changeTeamRepository(
          database,
          method === "put" ? "give" : "take",
          team,
          org,
          repository,
          viewer,
        );
        return reply.status(204).send();
      },
    );

    app[method](
      "/admin/teams/:id/repos/:reponame",
      { config: { scope: "admin" }, schema: { params: GogsTeamRepoParams } },
      async (request, reply) => {
        const admin = siteAdmin(request).account;
        const team = await getTeam(database, request.params.id);
        const org = await findAccountById(database.db, team.org_id);
        if (!org) throw new NotFound("organization does not exist");
        const repository = await teamOrganizationRepository(database, org, org.name, request.params.reponame);
        await changeTeamRepository(
          database,
          method === "put" ? "give" : "take",
          team,
          org,
          repository,
          admin,
        );
        return reply.status(204).send();
      },
    );
  }
}
