import { paginationHeaders } from "@anvil/core";
import { Type } from "typebox";
import {
  AuthSource,
  AuthSourceParams,
  AuthSourceTrial,
  CreateAuthSourceOption,
  EditAuthSourceOption,
  TestAuthSourceOption,
} from "../../schemas/auth-sources.ts";
import {
  createAuthSource,
  deleteAuthSource,
  directorySettings,
  editAuthSource,
  getAuthSource,
  listSources,
  toApiAuthSource,
} from "../../services/auth-sources.ts";
import { tryDirectory } from "../../services/directory.ts";
import { type ApiContext, paged } from "./context.ts";

// Authentication sources over the API (our addition: Gitea manages them only with its CLI and
// web pages). Site admins only, checked before a body is read, as the whole admin group.

const ListQuery = Type.Object({
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

export function registerAdminAuths(context: ApiContext): void {
  const { app, database } = context;
  const config = { scope: "admin" as const };
  const tags = ["admin"];

  app.get(
    "/admin/auths",
    {
      config,
      schema: {
        tags,
        summary: "List authentication sources",
        querystring: ListQuery,
        response: { 200: Type.Array(AuthSource) },
      },
    },
    async (request, reply) => {
      const window = paged(context, request);
      const page = await listSources(database, window);
      reply.headers(paginationHeaders(request.publicUrl, window, page.total));
      return Promise.all(page.rows.map((row) => toApiAuthSource(database, row)));
    },
  );

  app.post(
    "/admin/auths",
    {
      config,
      schema: {
        tags,
        summary: "Add an authentication source (LDAP via bind DN, or LDAP simple auth)",
        body: CreateAuthSourceOption,
        response: { 201: AuthSource },
      },
    },
    async (request, reply) => {
      const created = await createAuthSource(database, request.body);
      return reply.status(201).send(await toApiAuthSource(database, created));
    },
  );

  app.get(
    "/admin/auths/:id",
    {
      config,
      schema: {
        tags,
        summary: "Get an authentication source",
        params: AuthSourceParams,
        response: { 200: AuthSource },
      },
    },
    async (request) => toApiAuthSource(database, await getAuthSource(database, request.params.id)),
  );

  app.patch(
    "/admin/auths/:id",
    {
      config,
      schema: {
        tags,
        summary: "Edit an authentication source; fields not sent stay as they are",
        params: AuthSourceParams,
        body: EditAuthSourceOption,
        response: { 200: AuthSource },
      },
    },
    async (request) =>
      toApiAuthSource(database, await editAuthSource(database, request.params.id, request.body)),
  );

  app.delete(
    "/admin/auths/:id",
    {
      config,
      schema: {
        tags,
        summary: "Delete an authentication source no user belongs to",
        params: AuthSourceParams,
      },
    },
    async (request, reply) => {
      await deleteAuthSource(database, request.params.id);
      return reply.status(204).send();
    },
  );

  app.post(
    "/admin/auths/:id/test",
    {
      config,
      schema: {
        tags,
        summary:
          "Bind and search once: with a username and password, sign that user in; without, list the first users the filter matches",
        params: AuthSourceParams,
        body: TestAuthSourceOption,
        response: { 200: AuthSourceTrial },
      },
      // Without a body (curl -X POST), the trial lists users.
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
    },
    async (request) => {
      const source = await getAuthSource(database, request.params.id);
      const given = request.body;
      const started = performance.now();
      const trial = await tryDirectory(
        await directorySettings(database, source),
        given.username === undefined
          ? undefined
          : { username: given.username, password: given.password ?? "" },
      );
      return {
        ok: trial.ok,
        users: trial.users.map((user) => ({
          dn: user.dn,
          username: user.username,
          full_name: user.fullName,
          email: user.email,
          ssh_keys: user.sshKeys.length,
          is_admin: user.isAdmin,
          is_restricted: user.isRestricted,
        })),
        error: trial.error,
        elapsed_ms: Math.round(performance.now() - started),
      };
    },
  );
}
