import { createFirstUser, hasAnyUser, SETUP_DONE } from "../../services/users.ts";
import { validate } from "../../services/validation.ts";
import { field, invalidFields, redirectWith, render, type WebContext } from "../context.ts";

// First run: the form that makes the first superuser, open only while no user exists. The check
// is made again inside the transaction that creates the user (createFirstUser's onlyFirst).

const SETUP_RULES = {
  first_name: "required|string|max:191",
  username: "required|string|max:191",
  email: "required|email|max:191",
  password: "required|string|min:8|confirmed",
} as const;

export function registerSetup(context: WebContext): void {
  const { app, database, web } = context;
  const values = (request: Parameters<typeof field>[0]) =>
    Object.fromEntries(["first_name", "username", "email"].map((name) => [name, field(request, name)]));

  app.get("/setup", async (request, reply) => {
    if (await hasAnyUser(database)) return redirectWith(context, reply, "/login", "info", SETUP_DONE);
    return render(context, request, reply, "setup", { title: "Create a User", values: {}, errors: {} });
  });

  app.post("/setup", async (request, reply) => {
    const input = { ...values(request), password: field(request, "password") };
    try {
      const checked = await validate(
        database.db,
        { ...input, password_confirmation: field(request, "password_confirmation") },
        SETUP_RULES,
      );
      const user = await createFirstUser(
        database,
        {
          firstName: checked.first_name as string,
          username: checked.username as string,
          email: checked.email as string,
          password: checked.password as string,
          superuser: true,
        },
        { onlyFirst: true },
      );
      await web.signIn(request, reply, user.id, false);
      return redirectWith(context, reply, "/", "success", "Your account has been created.");
    } catch (error) {
      const errors = invalidFields(error);
      return render(context, request, reply, "setup", { title: "Create a User", values: input, errors }, 422);
    }
  });
}
