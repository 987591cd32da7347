import { Type } from "typebox";
import { toApiToken } from "../../convert/token.ts";
import { CreateAccessTokenOption, UsernameParams } from "../../schemas/users.ts";
import { getUser } from "../../services/accounts.ts";
import { createToken, deleteAccessToken, listAccessTokens } from "../../services/tokens.ts";
import { type ApiContext, paged, passwordAuthenticated, selfOrAdmin, sendPage } from "./context.ts";

const TokenParams = Type.Object({ username: Type.String(), token: Type.String() });

export function registerTokens(context: ApiContext): void {
  const { app, database } = context;
  // Checked before the body too: a token request without the password reads nothing.
  const user = { config: { scope: "user" as const, authorize: passwordAuthenticated } };

  app.get(
    "/users/:username/tokens",
    { ...user, schema: { params: UsernameParams } },
    async (request, reply) => {
      const caller = passwordAuthenticated(request);
      const owner = await getUser(database, request.params.username);
      selfOrAdmin(caller, owner);
      const window = paged(context, request);
      const page = await listAccessTokens(database, owner, window);
      return sendPage(request, reply, window, page, (token) => toApiToken(token));
    },
  );

  app.post(
    "/users/:username/tokens",
    { ...user, schema: { params: UsernameParams, body: CreateAccessTokenOption } },
    async (request, reply) => {
      const caller = passwordAuthenticated(request);
      const owner = await getUser(database, request.params.username);
      selfOrAdmin(caller, owner);
      const { token, secret } = await createToken(database, owner, request.body);
      return reply.status(201).send(toApiToken(token, secret));
    },
  );

  app.delete(
    "/users/:username/tokens/:token",
    { ...user, schema: { params: TokenParams } },
    async (request, reply) => {
      const caller = passwordAuthenticated(request);
      const owner = await getUser(database, request.params.username);
      selfOrAdmin(caller, owner);
      await deleteAccessToken(database, owner, request.params.token);
      return reply.status(204).send();
    },
  );
}
