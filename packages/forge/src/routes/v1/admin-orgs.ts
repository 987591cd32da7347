import { CreateOrgOption, PageQuery } from "../../schemas/orgs.ts";
import { UsernameParams } from "../../schemas/users.ts";
import { getUser } from "../../services/accounts.ts";
import {
  createOrganization,
  listAllOrganizations,
  listUserOrganizations,
} from "../../services/organizations.ts";
import { type ApiContext, paged, siteAdmin } from "./context.ts";
import { sendOrganizations, showOrganization } from "./orgs.ts";

export function registerAdminOrgs(context: ApiContext): void {
  const { app, database } = context;
  const admin = { config: { scope: "admin" as const } };

  app.get("/admin/orgs", { ...admin, schema: { querystring: PageQuery } }, async (request, reply) => {
    siteAdmin(request);
    const window = paged(context, request);
    const page = await listAllOrganizations(database, window);
    return sendOrganizations(database, request, reply, window, page);
  });

  app.get(
    "/admin/users/:username/orgs",
    { ...admin, schema: { params: UsernameParams, querystring: PageQuery } },
    async (request, reply) => {
      const caller = siteAdmin(request);
      const user = await getUser(database, request.params.username);
      const window = paged(context, request);
      const page = await listUserOrganizations(database, user, caller.account, window);
      return sendOrganizations(database, request, reply, window, page);
    },
  );

  app.post(
    "/admin/users/:username/orgs",
    { ...admin, schema: { params: UsernameParams, body: CreateOrgOption } },
    async (request, reply) => {
      const caller = siteAdmin(request);
      const owner = await getUser(database, request.params.username);
      const org = await createOrganization(database, owner, request.body, caller.account);
      return reply.status(201).send(await showOrganization(database, request, org));
    },
  );
}
