import { Type } from "typebox";
import { toApiEmail } from "../../convert/email.ts";
import { addUserEmails, deleteUserEmails, userEmails } from "../../services/emails.ts";
import { type ApiContext, signedIn } from "./context.ts";

// Gitea's CreateEmailOption and DeleteEmailOption: the same list of addresses.
const EmailOption = Type.Object({ emails: Type.Optional(Type.Array(Type.String())) });

/** The caller's e-mail addresses: the account's own (primary) and those added beside it. */
export function registerEmails(context: ApiContext): void {
  const { app, database } = context;
  const user = { config: { scope: "user" as const } };

  app.get("/user/emails", user, async (request) => {
    const { account } = signedIn(request);
    return (await userEmails(database, account)).map((email) => toApiEmail(email, account));
  });

  app.post("/user/emails", { ...user, schema: { body: EmailOption } }, async (request, reply) => {
    const { account } = signedIn(request);
    const emails = await addUserEmails(database, account, request.body.emails ?? []);
    return reply.status(201).send(emails.map((email) => toApiEmail(email, account)));
  });

  app.delete(
    "/user/emails",
    {
      ...user,
      schema: { body: EmailOption },
      // Gitea binds a missing or null body as an empty list, which deletes nothing.
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
    },
    async (request, reply) => {
      const { account } = signedIn(request);
      await deleteUserEmails(database, account, request.body.emails ?? []);
      return reply.status(204).send();
    },
  );
}
