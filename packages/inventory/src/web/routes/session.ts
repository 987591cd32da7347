import { readBool, TooManyRequests } from "@anvil/core";
import { sessionCallerOf } from "../../routes/v1/context.ts";
import { checkSignIn, hasAnyUser } from "../../services/users.ts";
import { field, guard, pageCaller, redirectWith, render, ticked, type WebContext } from "../context.ts";

// Signing in and out. Every attempt goes through the inventory's sign-in check (core's login
// throttle: counted per username and per address in the database, so every process shares it)
// and is logged among the login attempts superusers see.

const WRONG = "The username or password is incorrect.";
const NOT_ACTIVATED = "This user account is not activated.";

export function registerSession(context: WebContext): void {
  const { app, database, web } = context;

  const showForm = (
    request: Parameters<typeof render>[1],
    reply: Parameters<typeof render>[2],
    error?: string,
    status = 200,
  ) =>
    render(
      context,
      request,
      reply,
      "login",
      { title: "Login", username: field(request, "username"), remember: ticked(request, "remember"), error },
      status,
    );

  app.get("/login", async (request, reply) => {
    if (!(await hasAnyUser(database))) return reply.redirect("/setup", 303);
    if (await sessionCallerOf(context, request)) return reply.redirect("/", 303);
    return showForm(request, reply);
  });

  app.post("/login", async (request, reply) => {
    const agent = request.headers["user-agent"];
    let user: Awaited<ReturnType<typeof checkSignIn>>;
    try {
      user = await checkSignIn(database, context.loginLimits, {
        username: field(request, "username"),
        password: field(request, "password"),
        address: request.ip,
        userAgent: typeof agent === "string" ? agent : undefined,
      });
    } catch (error) {
      if (!(error instanceof TooManyRequests)) throw error;
      reply.header("retry-after", String(error.retryAfter));
      const minutes = Math.ceil(error.retryAfter / 60);
      const wait = minutes === 1 ? "1 minute" : `${minutes} minutes`;
      return showForm(request, reply, `Too many failed login attempts. Please try again in ${wait}.`, 429);
    }
    if (!user) return showForm(request, reply, WRONG, 422);
    if (!readBool(user.activated)) return showForm(request, reply, NOT_ACTIVATED, 422);
    await web.signIn(request, reply, user.id, ticked(request, "remember"));
    return reply.redirect("/", 303);
  });

  app.post("/logout", { onRequest: guard(context) }, async (request, reply) => {
    await web.signOut(request, reply);
    return redirectWith(context, reply, "/login", "success", "You have successfully logged out.");
  });

  // Every session of the user ends, in every process (a lost laptop, a shared computer).
  app.post("/account/logout-everywhere", { onRequest: guard(context) }, async (request, reply) => {
    await web.signOutEverywhere(pageCaller(request).user.id);
    await web.signOut(request, reply);
    return redirectWith(context, reply, "/login", "success", "You have been logged out everywhere.");
  });
}
