import { Type } from "typebox";
import { toApiKey } from "../../convert/key.ts";
import { UsernameParams } from "../../schemas/users.ts";
import { checkVisible, getUser } from "../../services/accounts.ts";
import { addKey, getKey, removeKey, userKeys } from "../../services/keys.ts";
import { type ApiContext, paged, sendPage, signedIn, siteAdmin } from "./context.ts";

const CreateKeyOption = Type.Object({
  title: Type.String(),
  key: Type.String(),
  read_only: Type.Optional(Type.Boolean()),
});
const KeyParams = Type.Object({ id: Type.Integer() });
const UserKeyParams = Type.Object({ username: Type.String(), id: Type.Integer() });

/** SSH public keys: one's own at /user/keys, anyone's public list, and the admin routes. */
export function registerKeys(context: ApiContext): void {
  const { app, database } = context;
  const user = { config: { scope: "user" as const } };
  const admin = { config: { scope: "admin" as const } };

  app.get("/user/keys", user, async (request, reply) => {
    const caller = signedIn(request);
    const window = paged(context, request);
    const page = await userKeys(database, caller.account, window);
    return sendPage(request, reply, window, page, (key) =>
      toApiKey(key, caller.account, caller.account, request.rootUrl),
    );
  });

  app.post("/user/keys", { ...user, schema: { body: CreateKeyOption } }, async (request, reply) => {
    const caller = signedIn(request);
    const key = await addKey(database, caller.account, request.body);
    return reply.status(201).send(toApiKey(key, caller.account, caller.account, request.rootUrl));
  });

  app.get("/user/keys/:id", { ...user, schema: { params: KeyParams } }, async (request) => {
    const caller = signedIn(request);
    const key = await getKey(database, caller.account, request.params.id);
    return toApiKey(key, caller.account, caller.account, request.rootUrl);
  });

  app.delete("/user/keys/:id", { ...user, schema: { params: KeyParams } }, async (request, reply) => {
    const caller = signedIn(request);
    await removeKey(database, caller.account, request.params.id);
    return reply.status(204).send();
  });

  app.get(
    "/users/:username/keys",
    { ...user, schema: { params: UsernameParams } },
    async (request, reply) => {
      const viewer = request.caller?.account;
      const owner = checkVisible(await getUser(database, request.params.username), viewer);
      const window = paged(context, request);
      const page = await userKeys(database, owner, window);
      return sendPage(request, reply, window, page, (key) => toApiKey(key, owner, viewer, request.rootUrl));
    },
  );

  app.post(
    "/admin/users/:username/keys",
    { ...admin, schema: { params: UsernameParams, body: CreateKeyOption } },
    async (request, reply) => {
      const caller = siteAdmin(request);
      const owner = await getUser(database, request.params.username);
      const key = await addKey(database, owner, request.body);
      return reply.status(201).send(toApiKey(key, owner, caller.account, request.rootUrl));
    },
  );

  app.delete(
    "/admin/users/:username/keys/:id",
    { ...admin, schema: { params: UserKeyParams } },
    async (request, reply) => {
      siteAdmin(request);
      const owner = await getUser(database, request.params.username);
      await removeKey(database, owner, request.params.id);
      return reply.status(204).send();
    },
  );
}
