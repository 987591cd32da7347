import { readTime } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { datetime } from "../../convert/format.ts";
import type { TokenRow } from "../../repositories/tokens.ts";
import { type Caller, requireScope } from "../../services/permissions.ts";
import {
  createToken,
  listUserTokens,
  revokeToken,
  scopesOfNewToken,
  storedScopes,
} from "../../services/tokens.ts";
import { validate } from "../../services/validation.ts";
import { type ApiContext, callerOf, idParam } from "./context.ts";
import { IdParams } from "./resource.ts";

// /account/personal-access-tokens (spec §1.2). Snipe-IT gates them on `self.api`, which every
// user it creates holds; tokens are for oneself only. A scoped token reaches them only when its
// scopes hold `self.api`, so a leaked narrow token neither mints nor revokes others.

const tags = ["account"];
const TOKEN_RULES = { name: "required|string|max:255", read_only: "boolean" } as const;

function presentToken(token: TokenRow) {
  return {
    id: token.id,
    name: token.name,
    read_only: Boolean(token.read_only),
    scopes: storedScopes(token.scopes) ?? null,
    created_at: datetime(token.created_at),
    expires_at: datetime(token.expires_at),
    last_used_at: datetime(token.last_used_at),
    revoked: false,
    expired: readTime(token.expires_at).getTime() <= Date.now(),
  };
}

function tokenHolder(request: FastifyRequest): Caller {
  const caller = callerOf(request);
  requireScope(caller, "self.api");
  return caller;
}

export function registerTokens({ app, database }: ApiContext): void {
  const path = "/account/personal-access-tokens";
  app.get(path, { schema: { tags } }, async (request) =>
    (await listUserTokens(database, tokenHolder(request).user)).map(presentToken),
  );

  app.post(
    path,
    {
      schema: {
        tags,
        body: Type.Object({
          name: Type.String(),
          read_only: Type.Optional(Type.Boolean({ description: "our addition: a token that may only read" })),
          scopes: Type.Optional(
            Type.Array(Type.String(), {
              description:
                "our addition: the permissions (e.g. assets.view, assets.*) the token is limited to",
            }),
          ),
        }),
      },
    },
    async (request) => {
      const caller = tokenHolder(request);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const input = await validate(database.db, body, TOKEN_RULES);
      const { token, secret } = await createToken(database, caller.user, {
        name: input.name as string,
        readOnly: input.read_only === true,
        scopes: scopesOfNewToken(caller, body.scopes),
      });
      return {
        status: "success",
        messages: "Token created successfully.",
        payload: { id: token.id, token: secret, name: token.name },
      };
    },
  );

  app.delete(`${path}/:id`, { schema: { tags, params: IdParams } }, async (request, reply) => {
    if (await revokeToken(database, tokenHolder(request).user, idParam(request)))
      return reply.status(204).send();
    return reply.status(404).send({ status: "error", messages: "404 endpoint not found", payload: null });
  });
}
