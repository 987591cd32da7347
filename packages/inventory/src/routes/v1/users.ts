import { NotFound } from "@anvil/core";
import { users } from "../../resources/users.ts";
import { presentRows } from "../../services/resource.ts";
import { resetTwoFactor, visibleUser } from "../../services/users.ts";
import { type ApiContext, authorized, callerOf, idParam, originOf, permitted } from "./context.ts";
import { bodyOf } from "./hardware.ts";
import { IdParams } from "./resource.ts";

const tags = ["users"];

const NO_EMAIL = "This user does not have an email address set.";
// Snipe-IT mails the user the list of what they hold. This inventory sends no mail at all, so it
// says so rather than report a notification nobody will receive.
const NO_MAIL = "Mail is not configured: this inventory sends no e-mail, so the user was not notified.";

const TWO_FACTOR = {
  reset: "Two factor device successfully reset",
  noId: "No ID provided",
  unknown: "User not found",
} as const;

/** /users/me and the user actions beside the resource's own routes (spec §19). */
export function registerUserRoutes({ app, database }: ApiContext): void {
  app.get("/users/me", { schema: { tags } }, async (request) => {
    const caller = callerOf(request);
    return (await presentRows(database, users, caller, [caller.user]))[0];
  });

  app.post(
    "/users/:id/email",
    { schema: { tags, params: IdParams }, config: permitted("users.view") },
    async (request) => {
      const caller = authorized(request, "users.view");
      const user = await visibleUser(database, caller, idParam(request));
      if (!user) throw new NotFound(users.notFound);
      return { status: "error", messages: user.email ? NO_MAIL : NO_EMAIL, payload: null };
    },
  );

  // Snipe-IT answers this one with a bare {message}, and a server error for a missing or unknown
  // id; those are the client's mistakes here (422, 404), in the same shape.
  app.post(
    "/users/two_factor_reset",
    { schema: { tags }, config: permitted("users.edit") },
    async (request, reply) => {
      const caller = authorized(request, "users.edit");
      const given = bodyOf(request).id;
      const id =
        typeof given === "number"
          ? given
          : typeof given === "string" && /^\d+$/.test(given)
            ? Number(given)
            : undefined;
      if (id === undefined) return reply.status(422).send({ message: TWO_FACTOR.noId });
      if (!(await resetTwoFactor(database, caller, originOf(request), id)))
        return reply.status(404).send({ message: TWO_FACTOR.unknown });
      return { message: TWO_FACTOR.reset };
    },
  );
}
