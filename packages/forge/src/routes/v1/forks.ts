import { Type } from "typebox";
import { listRepositories } from "../../repositories/repos.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { forkRepository } from "../../services/forks.ts";
import { type ApiContext, signedIn } from "./context.ts";
import { readerOf, renderRepositoryFor, requestedRepository, sendRepositories } from "./repos.ts";

const CreateForkOption = Type.Object({
  organization: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
});

/** Forks: made into the caller or an organization (202, as Gitea), and a repository's forks listed. */
export function registerForks(context: ApiContext): void {
  const { app, database, storage } = context;
  const repo = { config: { scope: "repository" as const } };

  app.post(
    "/repos/:owner/:repo/forks",
    { ...repo, schema: { params: RepoParams, body: CreateForkOption } },
    async (request, reply) => {
      const caller = signedIn(request);
      const parent = await requestedRepository(database, request.params, request);
      const { fork, owner } = await forkRepository(database, storage, parent, caller.account, request.body);
      return reply.status(202).send(await renderRepositoryFor(context, request, fork, owner, caller.account));
    },
  );

  // Only the forks the caller may see, counted as such (Gitea's FindForks).
  app.get(
    "/repos/:owner/:repo/forks",
    { ...repo, schema: { params: RepoParams } },
    async (request, reply) => {
      const parent = await requestedRepository(database, request.params, request);
      return sendRepositories(context, request, reply, (window) =>
        listRepositories(database.db, database.dialect, {
          forkOf: parent.repository.id,
          reader: readerOf(request.caller),
          sort: "id",
          order: "asc",
          offset: window.offset,
          limit: window.limit,
        }),
      );
    },
  );
}
