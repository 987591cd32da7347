import type { PageWindow } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type ApiOrganization, toApiOrganization } from "../../convert/organization.ts";
import { toApiUser } from "../../convert/user.ts";
import { type AccountRow, findAccountsByIds } from "../../repositories/accounts.ts";
import {
  CreateOrgOption,
  EditOrgOption,
  OrgMemberParams,
  OrgParams,
  PageQuery,
  UserOrgParams,
} from "../../schemas/orgs.ts";
import { UsernameParams } from "../../schemas/users.ts";
import { checkVisible, type ForgeDatabase, getUser } from "../../services/accounts.ts";
import {
  checkMember,
  createOrganization,
  deleteOrganization,
  editOrganization,
  getVisibleOrganization,
  listOrganizationMembers,
  listUserOrganizations,
  listVisibleOrganizations,
  organizationPermissions,
  ownersVisibleTo,
  removeMember,
  requireOrgMember,
  requireOrgOwner,
  seesAllMembers,
  setPublicMembership,
} from "../../services/organizations.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";

/** An organization as the caller may see it, with its owners when the caller may see those. */
export async function showOrganization(database: ForgeDatabase, request: FastifyRequest, org: AccountRow) {
  const viewer = request.caller?.account;
  const owners = await ownersVisibleTo(database, [org], viewer);
  return toApiOrganization(org, viewer, request.rootUrl, owners.get(org.id));
}

/** Organizations by id, as the caller may see them (with owners where the caller may see those). */
export async function showOrganizations(
  database: ForgeDatabase,
  request: FastifyRequest,
  ids: number[],
): Promise<Map<number, ApiOrganization>> {
  const viewer = request.caller?.account;
  const orgs = [...(await findAccountsByIds(database.db, ids)).values()];
  const owners = await ownersVisibleTo(database, orgs, viewer);
  return new Map(
    orgs.map((org) => [org.id, toApiOrganization(org, viewer, request.rootUrl, owners.get(org.id))]),
  );
}

export async function sendOrganizations(
  database: ForgeDatabase,
  request: FastifyRequest,
  reply: FastifyReply,
  window: PageWindow,
  page: { rows: AccountRow[]; total: number },
) {
  const viewer = request.caller?.account;
  const owners = await ownersVisibleTo(database, page.rows, viewer);
  return sendPage(request, reply, window, page, (org) =>
    toApiOrganization(org, viewer, request.rootUrl, owners.get(org.id)),
  );
}

export function registerOrgs(context: ApiContext): void {
  const { app, database } = context;
  const organization = { config: { scope: "organization" as const } };

  app.get("/orgs", { ...organization, schema: { querystring: PageQuery } }, async (request, reply) => {
    const window = paged(context, request);
    const page = await listVisibleOrganizations(database, request.caller?.account, window);
    return sendOrganizations(database, request, reply, window, page);
  });

  // POST /user/orgs is Gogs' way to create an organization; Gitea's is POST /orgs.
  for (const path of ["/orgs", "/user/orgs"]) {
    app.post(path, { ...organization, schema: { body: CreateOrgOption } }, async (request, reply) => {
      const caller = signedIn(request);
      const org = await createOrganization(database, caller.account, request.body);
      return reply.status(201).send(await showOrganization(database, request, org));
    });
  }

  app.get("/user/orgs", { ...organization, schema: { querystring: PageQuery } }, async (request, reply) => {
    const caller = signedIn(request);
    const window = paged(context, request);
    const page = await listUserOrganizations(database, caller.account, caller.account, window);
    return sendOrganizations(database, request, reply, window, page);
  });

  app.get(
    "/users/:username/orgs",
    { ...organization, schema: { params: UsernameParams, querystring: PageQuery } },
    async (request, reply) => {
      const viewer = signedIn(request).account;
      const user = checkVisible(await getUser(database, request.params.username), viewer);
      const window = paged(context, request);
      const page = await listUserOrganizations(database, user, viewer, window);
      return sendOrganizations(database, request, reply, window, page);
    },
  );

  app.get(
    "/users/:username/orgs/:org/permissions",
    { ...organization, schema: { params: UserOrgParams } },
    async (request) => {
      const viewer = signedIn(request).account;
      const user = checkVisible(await getUser(database, request.params.username), viewer);
      const { org } = await getVisibleOrganization(database, request.params.org, viewer);
      return organizationPermissions(database, org, user);
    },
  );

  app.get("/orgs/:org", { ...organization, schema: { params: OrgParams } }, async (request) => {
    const { org } = await getVisibleOrganization(database, request.params.org, request.caller?.account);
    return showOrganization(database, request, org);
  });

  app.patch(
    "/orgs/:org",
    { ...organization, schema: { params: OrgParams, body: EditOrgOption } },
    async (request) => {
      const viewer = signedIn(request).account;
      const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
      requireOrgOwner(viewer, role);
      return showOrganization(database, request, await editOrganization(database, org, request.body));
    },
  );

  app.delete("/orgs/:org", { ...organization, schema: { params: OrgParams } }, async (request, reply) => {
    const viewer = signedIn(request).account;
    const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
    requireOrgOwner(viewer, role);
    await deleteOrganization(database, org);
    return reply.status(204).send();
  });

  app.get(
    "/orgs/:org/members",
    { ...organization, schema: { params: OrgParams, querystring: PageQuery } },
    async (request, reply) => {
      const viewer = signedIn(request).account;
      const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
      const window = paged(context, request);
      const publicOnly = !seesAllMembers(viewer, role);
      const page = await listOrganizationMembers(database, org, { publicOnly, ...window });
      return sendPage(request, reply, window, page, (user) => toApiUser(user, viewer, request.rootUrl));
    },
  );

  app.get(
    "/orgs/:org/members/:username",
    { ...organization, schema: { params: OrgMemberParams } },
    async (request, reply) => {
      const viewer = signedIn(request).account;
      const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
      const user = await getUser(database, request.params.username);
      if (seesAllMembers(viewer, role) || viewer.id === user.id) {
        await checkMember(database, org, user, false);
        return reply.status(204).send();
      }
      // As Gitea: whoever may not see private memberships is sent to the public one.
      const membership = `${encodeURIComponent(org.name)}/public_members/${encodeURIComponent(user.name)}`;
      return reply.redirect(new URL(`api/v1/orgs/${membership}`, request.rootUrl).pathname, 302);
    },
  );

  app.delete(
    "/orgs/:org/members/:username",
    { ...organization, schema: { params: OrgMemberParams } },
    async (request, reply) => {
      const viewer = signedIn(request).account;
      const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
      requireOrgOwner(viewer, role);
      await removeMember(database, org, await getUser(database, request.params.username));
      return reply.status(204).send();
    },
  );

  app.get(
    "/orgs/:org/public_members",
    { ...organization, schema: { params: OrgParams, querystring: PageQuery } },
    async (request, reply) => {
      const viewer = request.caller?.account;
      const { org } = await getVisibleOrganization(database, request.params.org, viewer);
      const window = paged(context, request);
      const page = await listOrganizationMembers(database, org, { publicOnly: true, ...window });
      return sendPage(request, reply, window, page, (user) => toApiUser(user, viewer, request.rootUrl));
    },
  );

  app.get(
    "/orgs/:org/public_members/:username",
    { ...organization, schema: { params: OrgMemberParams } },
    async (request, reply) => {
      const { org } = await getVisibleOrganization(database, request.params.org, request.caller?.account);
      await checkMember(database, org, await getUser(database, request.params.username), true);
      return reply.status(204).send();
    },
  );

  for (const [method, isPublic] of [
    ["PUT", true],
    ["DELETE", false],
  ] as const) {
    app.route({
      method,
      url: "/orgs/:org/public_members/:username",
      ...organization,
      schema: { params: OrgMemberParams },
      handler: async (request, reply) => {
        const viewer = signedIn(request).account;
        const { org, role } = await getVisibleOrganization(database, request.params.org, viewer);
        requireOrgMember(viewer, role);
        const user = await getUser(database, request.params.username);
        await setPublicMembership(database, org, viewer, user, isPublic);
        return reply.status(204).send();
      },
    });
  }
}
