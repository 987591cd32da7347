import { Type } from "typebox";
import { RepoParams } from "../../schemas/repos.ts";
import { ACCESS_ADMIN } from "../../services/access.ts";
import {
  acceptTransfer,
  rejectTransfer,
  startTransfer,
  transferringRepository,
} from "../../services/transfers.ts";
import type { ApiContext } from "./context.ts";
import { signedIn } from "./context.ts";
import { renderRepository, renderRepositoryFor, requestedRepository } from "./repos.ts";

const TransferRepoOption = Type.Object({
  new_owner: Type.String(),
  team_ids: Type.Optional(Type.Union([Type.Array(Type.Integer()), Type.Null()])),
});

/** Repository transfers: started by the owner, accepted or rejected by the recipient. */
export function registerTransfers(context: ApiContext): void {
  const { app, database, storage } = context;
  const repo = { config: { scope: "repository" as const } };

  app.post(
    "/repos/:owner/:repo/transfer",
    { ...repo, schema: { params: RepoParams, body: TransferRepoOption } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const outcome = await startTransfer(database, storage, found, caller.account, request.body);
      // Gitea answers 201 for a transfer that waits, 202 for one done, with admin permissions.
      return reply
        .status(outcome.pending ? 201 : 202)
        .send(await renderRepository(context, request, { ...outcome, permission: { mode: ACCESS_ADMIN } }));
    },
  );

  app.post(
    "/repos/:owner/:repo/transfer/accept",
    { ...repo, schema: { params: RepoParams } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await transferringRepository(database, request.params, caller);
      const { repository, owner } = await acceptTransfer(database, storage, found, caller.account);
      return reply
        .status(202)
        .send(await renderRepositoryFor(context, request, repository, owner, caller.account));
    },
  );

  app.post(
    "/repos/:owner/:repo/transfer/reject",
    { ...repo, schema: { params: RepoParams } },
    async (request) => {
      const caller = signedIn(request);
      const found = await transferringRepository(database, request.params, caller);
      await rejectTransfer(database, found, caller.account);
      return renderRepository(context, request, found);
    },
  );
}
