import { readTime } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { idParam } from "../../routes/v1/context.ts";
import { requireScope } from "../../services/permissions.ts";
import {
  createToken,
  listUserTokens,
  revokeToken,
  scopesOfNewToken,
  storedScopes,
} from "../../services/tokens.ts";
import { changeOwnPassword } from "../../services/users.ts";
import { validate } from "../../services/validation.ts";
import {
  field,
  guard,
  invalidFields,
  pageCaller,
  redirectWith,
  render,
  type WebContext,
} from "../context.ts";

// The signed-in user's own account: their password, and their API tokens (the same services as
// /api/v1/account/personal-access-tokens; a token's secret is shown once, on the page that made it).

const TOKEN_RULES = { name: "required|string|max:255" } as const;

/** Scopes as typed: permission names separated by spaces or commas; none typed means unscoped. */
function typedScopes(text: string): string[] | undefined {
  const names = text.split(/[\s,]+/).filter((name) => name !== "");
  return names.length === 0 ? undefined : names;
}

export function registerAccount(context: WebContext): void {
  const { app, database, web } = context;
  const signedIn = { onRequest: guard(context) };

  app.get("/account/password", signedIn, async (request, reply) =>
    render(context, request, reply, "account-password", { title: "Change Password", errors: {} }),
  );

  app.post("/account/password", signedIn, async (request, reply) => {
    const caller = pageCaller(request);
    try {
      await changeOwnPassword(database, caller.user, {
        current: field(request, "current_password"),
        password: field(request, "password"),
        confirmation: field(request, "password_confirmation"),
      });
    } catch (error) {
      const errors = invalidFields(error);
      return render(context, request, reply, "account-password", { title: "Change Password", errors }, 422);
    }
    // Whoever knew the old password is signed out everywhere; this browser stays signed in.
    const session = await web.session(request);
    await web.signOutEverywhere(caller.user.id);
    await web.signIn(request, reply, caller.user.id, session?.persistent ?? false);
    return redirectWith(context, reply, "/account/password", "success", "Your password has been updated.");
  });

  const showTokens = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      created?: { name: string; secret: string };
      errors?: Record<string, string[]>;
      values?: Record<string, string>;
    } = {},
    status = 200,
  ) => {
    const caller = pageCaller(request);
    requireScope(caller, "self.api");
    const now = Date.now();
    const tokens = (await listUserTokens(database, caller.user)).map((token) => ({
      id: token.id,
      name: token.name,
      readOnly: Boolean(token.read_only),
      scopes: storedScopes(token.scopes),
      createdAt: readTime(token.created_at),
      expiresAt: readTime(token.expires_at),
      lastUsedAt: token.last_used_at === null ? undefined : readTime(token.last_used_at),
      expired: readTime(token.expires_at).getTime() <= now,
    }));
    return render(
      context,
      request,
      reply,
      "account-api",
      { title: "Personal API Keys", tokens, errors: {}, values: {}, ...extra },
      status,
    );
  };

  app.get("/account/api", signedIn, (request, reply) => showTokens(request, reply));

  // Answered with the page itself, not a redirect: the secret is shown this once and is never
  // put in a cookie or a URL to survive a redirect.
  app.post("/account/api", signedIn, async (request, reply) => {
    const caller = pageCaller(request);
    requireScope(caller, "self.api");
    try {
      const input = await validate(database.db, { name: field(request, "name") }, TOKEN_RULES);
      const { token, secret } = await createToken(database, caller.user, {
        name: input.name as string,
        readOnly: field(request, "access") === "read-only",
        scopes: scopesOfNewToken(caller, typedScopes(field(request, "scopes"))),
      });
      return showTokens(request, reply, { created: { name: token.name, secret } }, 201);
    } catch (error) {
      const values = { name: field(request, "name"), scopes: field(request, "scopes") };
      return showTokens(request, reply, { errors: invalidFields(error), values }, 422);
    }
  });

  app.post("/account/api/:id/revoke", signedIn, async (request, reply) => {
    const caller = pageCaller(request);
    requireScope(caller, "self.api");
    const revoked = await revokeToken(database, caller.user, idParam(request));
    return revoked
      ? redirectWith(context, reply, "/account/api", "success", "The API key has been revoked.")
      : redirectWith(context, reply, "/account/api", "error", "No such API key of yours.");
  });
}
