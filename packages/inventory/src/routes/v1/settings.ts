import { NotFound } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { type Caller, requireSuperuser } from "../../services/permissions.ts";
import {
  getSettings,
  listBackups,
  listLoginAttempts,
  presentSettings,
  SETTINGS_UPDATED,
  updateSettings,
} from "../../services/settings.ts";
import { type ApiContext, callerOf, idParam, originOf, sendList, success } from "./context.ts";
import { bodyOf } from "./hardware.ts";
import { IdParams, ListQuery } from "./resource.ts";

// /settings (spec §23), superusers only: the settings row (Snipe-IT routes it as /settings/{id};
// /settings alone is the same row), the web sign-ins and the backup files.

const tags = ["settings"];
const SETTING_NOT_FOUND = "Setting not found";

function superuser(request: FastifyRequest): Caller {
  const caller = callerOf(request);
  requireSuperuser(caller);
  return caller;
}

const superusersOnly = { authorize: superuser };

export function registerSettings({ app, database, storage }: ApiContext): void {
  app.get(
    "/settings/login-attempts",
    { schema: { tags, querystring: ListQuery } },
    async (request, reply) => {
      superuser(request);
      const page = await listLoginAttempts(database, request.query as Record<string, unknown>);
      return sendList(request, reply, page.params, page);
    },
  );

  app.get("/settings/backups", { schema: { tags } }, async (request) => {
    superuser(request);
    return listBackups(storage.backups);
  });

  /** The row a path names: only the one there is. */
  const named = async (request: FastifyRequest) => {
    const settings = await getSettings(database);
    if (request.params && "id" in (request.params as object) && idParam(request) !== settings.id)
      throw new NotFound(SETTING_NOT_FOUND);
    return settings;
  };

  for (const path of ["/settings", "/settings/:id"]) {
    const params = path.endsWith(":id") ? { params: IdParams } : {};
    app.get(path, { schema: { tags, ...params } }, async (request) => {
      superuser(request);
      return presentSettings(await named(request));
    });
    const update = async (request: FastifyRequest) => {
      const caller = superuser(request);
      await named(request);
      const row = await updateSettings(database, caller, originOf(request), bodyOf(request));
      return success(SETTINGS_UPDATED, presentSettings(row));
    };
    const writes = { schema: { tags, ...params }, config: superusersOnly };
    app.patch(path, writes, update);
    app.put(path, writes, update);
  }
}
