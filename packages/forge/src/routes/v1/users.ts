import { Type } from "typebox";
import { toApiUser } from "../../convert/user.ts";
import { UsernameParams } from "../../schemas/users.ts";
import { checkVisible, getUser, listUsers, visibleVisibilities } from "../../services/accounts.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";

const SearchQuery = Type.Object({
  q: Type.Optional(Type.String()),
  uid: Type.Optional(Type.Integer()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

export function registerUsers(context: ApiContext): void {
  const { app, database } = context;
  const user = { config: { scope: "user" as const } };

  app.get("/user", user, async (request) => {
    const caller = signedIn(request);
    return toApiUser(caller.account, caller.account, request.rootUrl);
  });

  app.get("/users/search", { ...user, schema: { querystring: SearchQuery } }, async (request, reply) => {
    const window = paged(context, request);
    const viewer = request.caller?.account;
    const visibilities = visibleVisibilities(viewer);
    const page = await listUsers(database, {
      keyword: request.query.q?.toLowerCase(),
      id: request.query.uid || undefined,
      visibilities,
      offset: window.offset,
      limit: window.limit,
    });
    const data = sendPage(request, reply, window, page, (row) => toApiUser(row, viewer, request.rootUrl));
    return { ok: true, data };
  });

  app.get("/users/:username", { ...user, schema: { params: UsernameParams } }, async (request) => {
    const viewer = request.caller?.account;
    const account = checkVisible(await getUser(database, request.params.username), viewer);
    return toApiUser(account, viewer, request.rootUrl);
  });
}
