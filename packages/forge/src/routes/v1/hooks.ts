import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { toApiHook, toApiHookDelivery } from "../../convert/hook.ts";
import { ACCOUNT_ORGANIZATION } from "../../schemas/tables.ts";
import { ACCESS_ADMIN } from "../../services/access.ts";
import { getVisibleOrganization, requireOrgOwner } from "../../services/organizations.ts";
import { requireAccess } from "../../services/repositories.ts";
import type { ScopeCategory } from "../../services/scopes.ts";
import {
  createHook,
  deleteHook,
  editHook,
  getHook,
  type HookPlace,
  hookDeliveries,
  listHooks,
  redeliverHookDelivery,
  testHook,
} from "../../services/webhooks.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";
import { requestedRepository } from "./repos.ts";

const MAX_CONFIG_KEYS = 32;
const MAX_EVENTS = 128;

const CreateHookOption = Type.Object({
  type: Type.String({ maxLength: 64 }),
  config: Type.Record(Type.String(), Type.String(), { maxProperties: MAX_CONFIG_KEYS }),
  events: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_EVENTS })),
  branch_filter: Type.Optional(Type.String()),
  authorization_header: Type.Optional(Type.String()),
  active: Type.Optional(Type.Boolean()),
});

const EditHookOption = Type.Object({
  config: Type.Optional(Type.Record(Type.String(), Type.String(), { maxProperties: MAX_CONFIG_KEYS })),
  events: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_EVENTS })),
  branch_filter: Type.Optional(Type.String()),
  authorization_header: Type.Optional(Type.String()),
  active: Type.Optional(Type.Boolean()),
});

const RepoParams = { owner: Type.String(), repo: Type.String() };
const OrgParams = { org: Type.String() };
const HookId = { id: Type.Integer() };
const DeliveryId = { delivery: Type.Integer() };
const AdminListQuery = Type.Object({
  type: Type.Optional(Type.Union([Type.Literal("system"), Type.Literal("default"), Type.Literal("all")])),
});
const TestQuery = Type.Object({ ref: Type.Optional(Type.String({ maxLength: 1024 })) });

type Params = Record<string, string | number>;

/**
 * One family of hook routes (repository, organization, user, site): where its hooks are for a
 * request, after the family's own permission check.
 */
interface HookFamily {
  prefix: string;
  params: Record<string, ReturnType<typeof Type.String>>;
  scope: ScopeCategory;
  place(request: FastifyRequest, params: Params): Promise<HookPlace>;
}

/**
 * Webhooks as Gitea's API has them at /repos/{o}/{r}/hooks (repository admins),
 * /orgs/{org}/hooks (organization owners), /user/hooks (one's own) and /admin/hooks (site admins:
 * system and default hooks), plus the forge's delivery history and redelivery under each hook.
 */
export function registerHooks(context: ApiContext): void {
  const { app, database, storage } = context;

  const repository: HookFamily = {
    prefix: "/repos/:owner/:repo/hooks",
    params: RepoParams,
    scope: "repository",
    async place(request, params) {
      signedIn(request);
      const found = await requestedRepository(
        database,
        { owner: String(params.owner), repo: String(params.repo) },
        request,
      );
      requireAccess(found, ACCESS_ADMIN);
      return {
        owner: { kind: "repository", repoId: found.repository.id },
        target: "repository",
        repository: found,
      };
    },
  };
  const organization: HookFamily = {
    prefix: "/orgs/:org/hooks",
    params: OrgParams,
    scope: "organization",
    async place(request, params) {
      const caller = signedIn(request);
      const { org, role } = await getVisibleOrganization(database, String(params.org), caller.account);
      requireOrgOwner(caller.account, role);
      return { owner: { kind: "account", ownerId: org.id }, target: "organization" };
    },
  };
  const user: HookFamily = {
    prefix: "/user/hooks",
    params: {},
    scope: "user",
    async place(request) {
      const caller = signedIn(request);
      const target = caller.account.type === ACCOUNT_ORGANIZATION ? "organization" : "user";
      return { owner: { kind: "account", ownerId: caller.account.id }, target };
    },
  };
  const site: HookFamily = {
    prefix: "/admin/hooks",
    params: {},
    scope: "admin",
    // The admin group has checked the caller (see routes/v1/index.ts).
    async place() {
      return { owner: { kind: "site" }, target: "system" };
    },
  };

  for (const family of [repository, organization, user, site]) {
    const config = { scope: family.scope };
    const listParams = Type.Object(family.params);
    const hookParams = Type.Object({ ...family.params, ...HookId });
    const deliveryParams = Type.Object({ ...family.params, ...HookId, ...DeliveryId });

    app.get(
      family.prefix,
      {
        config,
        schema:
          family === site ? { params: listParams, querystring: AdminListQuery } : { params: listParams },
      },
      async (request, reply) => {
        const place = await family.place(request, request.params as Params);
        if (family === site) {
          const kind = (request.query as { type?: string }).type ?? "system";
          place.owner = { kind: "site", system: kind === "all" ? undefined : kind === "system" };
        }
        const window = paged(context, request);
        const page = await listHooks(database, place, window);
        return sendPage(request, reply, window, page, toApiHook);
      },
    );

    app.post(
      family.prefix,
      { config, schema: { params: listParams, body: CreateHookOption } },
      async (request, reply) => {
        const place = await family.place(request, request.params as Params);
        const hook = await createHook(database, place, signedIn(request).account, request.body);
        return reply.status(201).send(toApiHook(hook));
      },
    );

    app.get(`${family.prefix}/:id`, { config, schema: { params: hookParams } }, async (request) => {
      const params = request.params as Params;
      const place = await family.place(request, params);
      return toApiHook(await getHook(database, place, Number(params.id)));
    });

    app.patch(
      `${family.prefix}/:id`,
      { config, schema: { params: hookParams, body: EditHookOption } },
      async (request) => {
        const params = request.params as Params;
        const place = await family.place(request, params);
        return toApiHook(await editHook(database, place, Number(params.id), request.body));
      },
    );

    app.delete(`${family.prefix}/:id`, { config, schema: { params: hookParams } }, async (request, reply) => {
      const params = request.params as Params;
      const place = await family.place(request, params);
      await deleteHook(database, place, Number(params.id));
      return reply.status(204).send();
    });

    // Not in Gitea's API: the deliveries of a hook, newest first, and sending one again.
    app.get(
      `${family.prefix}/:id/deliveries`,
      { config, schema: { params: hookParams } },
      async (request, reply) => {
        const params = request.params as Params;
        const place = await family.place(request, params);
        const window = paged(context, request);
        const page = await hookDeliveries(database, place, Number(params.id), window);
        return sendPage(request, reply, window, page, toApiHookDelivery);
      },
    );

    app.post(
      `${family.prefix}/:id/deliveries/:delivery/redeliver`,
      { config, schema: { params: deliveryParams } },
      async (request, reply) => {
        const params = request.params as Params;
        const place = await family.place(request, params);
        const delivery = await redeliverHookDelivery(
          database,
          place,
          Number(params.id),
          Number(params.delivery),
        );
        return reply.status(201).send(toApiHookDelivery(delivery));
      },
    );
  }

  // Gitea has the test delivery for repository hooks only.
  app.post(
    `${repository.prefix}/:id/tests`,
    {
      config: { scope: repository.scope },
      schema: { params: Type.Object({ ...RepoParams, ...HookId }), querystring: TestQuery },
    },
    async (request, reply) => {
      const place = await repository.place(request, request.params);
      await testHook(
        database,
        storage,
        place,
        request.params.id,
        signedIn(request).account,
        request.query.ref,
      );
      return reply.status(204).send();
    },
  );
}
