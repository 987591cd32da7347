import { Type } from "typebox";
import { toApiUser } from "../../convert/user.ts";
import { CreateUserOption, EditUserOption, UsernameParams } from "../../schemas/users.ts";
import { createUser, deleteUser, editUser, listUsers } from "../../services/accounts.ts";
import { type ApiContext, paged, sendPage, siteAdmin } from "./context.ts";

const ListQuery = Type.Object({
  source_id: Type.Optional(Type.Integer()),
  login_name: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

export function registerAdminUsers(context: ApiContext): void {
  const { app, database } = context;
  const admin = { config: { scope: "admin" as const } };

  app.get("/admin/users", { ...admin, schema: { querystring: ListQuery } }, async (request, reply) => {
    const caller = siteAdmin(request);
    const window = paged(context, request);
    const page = await listUsers(database, { offset: window.offset, limit: window.limit });
    return sendPage(request, reply, window, page, (row) => toApiUser(row, caller.account, request.rootUrl));
  });

  app.post("/admin/users", { ...admin, schema: { body: CreateUserOption } }, async (request, reply) => {
    const caller = siteAdmin(request);
    const created = await createUser(database, request.body);
    return reply.status(201).send(toApiUser(created, caller.account, request.rootUrl));
  });

  app.patch(
    "/admin/users/:username",
    { ...admin, schema: { params: UsernameParams, body: EditUserOption } },
    async (request) => {
      const caller = siteAdmin(request);
      const edited = await editUser(database, request.params.username, request.body);
      return toApiUser(edited, caller.account, request.rootUrl);
    },
  );

  app.delete(
    "/admin/users/:username",
    { ...admin, schema: { params: UsernameParams } },
    async (request, reply) => {
      siteAdmin(request);
      await deleteUser(database, request.params.username);
      return reply.status(204).send();
    },
  );
}
