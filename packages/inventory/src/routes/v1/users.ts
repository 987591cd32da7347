import { users } from "../../resources/users.ts";
import { presentRows } from "../../services/resource.ts";
import { type ApiContext, callerOf } from "./context.ts";

/** /users/me: the token's own user, whatever their permissions (spec §19). */
export function registerUserRoutes({ app, database }: ApiContext): void {
  app.get("/users/me", { schema: { tags: ["users"] } }, async (request) => {
    const caller = callerOf(request);
    return (await presentRows(database, users, caller, [caller.user]))[0];
  });
}
