import { sessionCallerOf } from "../../routes/v1/context.ts";
import { hasAnyUser } from "../../services/users.ts";
import { render, type WebContext } from "../context.ts";

// `/`: the first-run setup until a user exists, the sign-in form for a visitor, else the dashboard.
export function registerHome(context: WebContext): void {
  const { app, database } = context;
  app.get("/", async (request, reply) => {
    if (!(await hasAnyUser(database))) return reply.redirect("/setup", 303);
    const caller = await sessionCallerOf(context, request);
    if (!caller) return reply.redirect("/login", 303);
    request.actor = caller;
    return render(context, request, reply, "dashboard", { title: "Dashboard" });
  });
}
