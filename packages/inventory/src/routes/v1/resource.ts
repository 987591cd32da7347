import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { isoTimestamp } from "../../convert/format.ts";
import type { Row } from "../../repositories/records.ts";
import { type Caller, requireSuperuser } from "../../services/permissions.ts";
import {
  createResource,
  deleteResource,
  findResource,
  listResource,
  presentRows,
  type ResourceDefinition,
  restoreResource,
  updateResource,
} from "../../services/resource.ts";
import { bodySchema } from "../../services/validation.ts";
import { type ApiContext, authorized, idParam, originOf, sendList, success } from "./context.ts";
import { withImage } from "./images.ts";

// The routes of a table-driven resource (spec §2–§6): index, show, store, update (PATCH and PUT,
// both partial), destroy, and restore where the resource has it. Each checks its permission first.

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.String({ description: "rows per page, at most 500 (0 or missing: 500)" })),
  offset: Type.Optional(Type.String()),
  sort: Type.Optional(Type.String()),
  order: Type.Optional(Type.String({ description: "asc, else desc" })),
  search: Type.Optional(Type.String({ description: 'terms separated by " OR "' })),
});
/** The lists that page by id too (services/listing.ts `keyset`). */
export const KeysetListQuery = Type.Object({
  ...ListQuery.properties,
  after: Type.Optional(
    Type.String({
      description:
        "our addition: only rows with a greater id, in id order (no sort but id, no offset); a Link rel=next header names the next page",
    }),
  ),
});
export const IdParams = Type.Object({ id: Type.String() });

/** The request body when it is an object; anything else reads as no fields. */
export function body(request: FastifyRequest): Record<string, unknown> {
  const given = request.body;
  return typeof given === "object" && given !== null && !Array.isArray(given)
    ? (given as Record<string, unknown>)
    : {};
}

/** A stored row as Laravel serializes it: flat columns, ISO timestamps, no secrets. */
export function rawRow(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key === "password") continue;
    out[key] =
      key.endsWith("_at") || value instanceof Date ? isoTimestamp(value as string | Date | null) : value;
  }
  return out;
}

export function registerResource(context: ApiContext, definition: ResourceDefinition): void {
  const { app, database } = context;
  const { path, permission } = definition;
  const tags = [path];
  const allowed = (request: FastifyRequest, level: "view" | "create" | "edit" | "delete"): Caller => {
    const caller = authorized(request, definition.gates?.[level] ?? `${permission}.${level}`);
    if (definition.superuserOnly) requireSuperuser(caller);
    return caller;
  };
  const present = async (caller: Caller, row: Row) =>
    (await presentRows(database, definition, caller, [row]))[0];
  const payload = (caller: Caller, row: Row) => (definition.rawPayload ? rawRow(row) : present(caller, row));
  const writeSchema = { tags, params: IdParams, body: bodySchema(definition.rules) };

  app.get(`/${path}`, { schema: { tags, querystring: KeysetListQuery } }, async (request, reply) => {
    const caller = allowed(request, "view");
    const page = await listResource(database, definition, caller, request.query as Record<string, unknown>);
    return sendList(request, reply, page.params, page);
  });

  app.get(`/${path}/:id`, { schema: { tags, params: IdParams } }, async (request) => {
    const caller = allowed(request, "view");
    return present(caller, await findResource(database, definition, idParam(request), undefined, caller));
  });

  // Writes check their permission before the body is read (an image upload is not even staged).
  const may = (level: "create" | "edit" | "delete") => ({
    authorize: (request: FastifyRequest) => allowed(request, level),
  });
  const [creates, edits, deletes] = [may("create"), may("edit"), may("delete")];
  app.post(`/${path}`, { schema: { tags, body: writeSchema.body }, config: creates }, async (request) => {
    const caller = allowed(request, "create");
    const input = body(request);
    const row = await withImage(context, request, input, definition.table, undefined, (server) =>
      createResource(database, definition, caller, originOf(request), input, server),
    );
    return success(definition.messages.create, await payload(caller, row));
  });

  const update = async (request: FastifyRequest) => {
    const caller = allowed(request, "edit");
    const input = body(request);
    const row = await withImage(context, request, input, definition.table, idParam(request), (server) =>
      updateResource(database, definition, caller, originOf(request), idParam(request), input, server),
    );
    return success(definition.messages.update, await payload(caller, row));
  };
  app.patch(`/${path}/:id`, { schema: writeSchema, config: edits }, update);
  app.put(`/${path}/:id`, { schema: writeSchema, config: edits }, update);

  app.delete(`/${path}/:id`, { schema: { tags, params: IdParams }, config: deletes }, async (request) => {
    const caller = allowed(request, "delete");
    await deleteResource(database, definition, caller, originOf(request), idParam(request));
    return success(definition.messages.delete);
  });

  const { restore } = definition;
  if (restore) {
    app.post(
      `/${path}/:id/restore`,
      { schema: { tags, params: IdParams }, config: deletes },
      async (request) => {
        const caller = allowed(request, "delete");
        const restored = await restoreResource(
          database,
          definition,
          caller,
          originOf(request),
          idParam(request),
        );
        const message = restored ? restore.success : restore.notDeleted;
        const inPayload =
          restore.messageInPayload === "always" || (!restored && restore.messageInPayload === "not-deleted");
        const status = restored ? "success" : "error";
        return inPayload
          ? { status, messages: null, payload: message }
          : { status, messages: message, payload: null };
      },
    );
  }
}
