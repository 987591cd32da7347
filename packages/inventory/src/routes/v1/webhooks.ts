import type { FastifyRequest } from "fastify";
import { requireSuperuser } from "../../services/permissions.ts";
import { bodySchema } from "../../services/validation.ts";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
  WEBHOOK_MESSAGES,
  WEBHOOK_RULES,
  webhookDeliveries,
} from "../../services/webhooks.ts";
import { type ApiContext, callerOf, idParam, success } from "./context.ts";
import { bodyOf } from "./hardware.ts";
import { IdParams, ListQuery } from "./resource.ts";

// /webhooks (our addition, spec §26), superusers only: the generic endpoints that hear of asset
// and item changes, each delivery signed with the endpoint's secret, and each one's delivery history.

const tags = ["webhooks"];

function superuser(request: FastifyRequest) {
  const caller = callerOf(request);
  requireSuperuser(caller);
  return caller;
}

// Checked before the body is read.
const superusersOnly = { authorize: superuser };

/** `limit` (default 50, at most 500) and `offset` of a history page. */
function windowOf(query: Record<string, unknown>) {
  const number = (value: unknown) =>
    typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
  return { limit: Math.min(number(query.limit) || 50, 500), offset: number(query.offset) ?? 0 };
}

export function registerWebhooks({ app, database }: ApiContext): void {
  app.get("/webhooks", { schema: { tags } }, async (request) => {
    superuser(request);
    return listWebhookEndpoints(database);
  });

  const body = bodySchema(WEBHOOK_RULES);
  app.post("/webhooks", { schema: { tags, body }, config: superusersOnly }, async (request) => {
    const webhook = await createWebhookEndpoint(database, superuser(request), bodyOf(request));
    return success(WEBHOOK_MESSAGES.create, webhook);
  });

  app.get("/webhooks/:id", { schema: { tags, params: IdParams } }, async (request) => {
    superuser(request);
    return getWebhookEndpoint(database, idParam(request));
  });

  const update = async (request: FastifyRequest) => {
    superuser(request);
    return success(
      WEBHOOK_MESSAGES.update,
      await updateWebhookEndpoint(database, idParam(request), bodyOf(request)),
    );
  };
  const writes = { schema: { tags, params: IdParams, body }, config: superusersOnly };
  app.patch("/webhooks/:id", writes, update);
  app.put("/webhooks/:id", writes, update);

  app.delete(
    "/webhooks/:id",
    { schema: { tags, params: IdParams }, config: superusersOnly },
    async (request) => {
      superuser(request);
      await deleteWebhookEndpoint(database, idParam(request));
      return success(WEBHOOK_MESSAGES.delete);
    },
  );

  app.get(
    "/webhooks/:id/deliveries",
    { schema: { tags, params: IdParams, querystring: ListQuery } },
    async (request) => {
      superuser(request);
      return webhookDeliveries(
        database,
        idParam(request),
        windowOf(request.query as Record<string, unknown>),
      );
    },
  );
}
