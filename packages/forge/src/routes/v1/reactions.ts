import type { FastifyRequest } from "fastify";
import { toApiReaction } from "../../convert/comment.ts";
import { CommentParams, EditReactionOption } from "../../schemas/comments.ts";
import { IssueParams } from "../../schemas/issues.ts";
import {
  addReaction,
  type ReactionPlace,
  type ReactionView,
  reactionsOn,
  removeReaction,
} from "../../services/reactions.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";
import { requestedRepository } from "./repos.ts";

/** Reactions on issues and on their comments. */
export function registerReactions(context: ApiContext): void {
  const { app, database } = context;
  const issue = { config: { scope: "issue" as const, readOnlyWhenArchived: true } };

  function render(request: FastifyRequest) {
    return (view: ReactionView) =>
      toApiReaction(view.reaction, view.user, request.caller?.account, request.rootUrl);
  }

  for (const { path, params, placeOf } of [
    {
      path: "/repos/:owner/:repo/issues/:index/reactions",
      params: IssueParams,
      placeOf: (p: { index?: string; id?: string }): ReactionPlace => ({ index: p.index ?? "" }),
    },
    {
      path: "/repos/:owner/:repo/issues/comments/:id/reactions",
      params: CommentParams,
      placeOf: (p: { index?: string; id?: string }): ReactionPlace => ({ commentId: p.id ?? "" }),
    },
  ]) {
    app.get(path, { ...issue, schema: { params } }, async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      const window = paged(context, request);
      const page = await reactionsOn(database, found, placeOf(request.params), window);
      return sendPage(request, reply, window, page, render(request));
    });

    app.post(path, { ...issue, schema: { params, body: EditReactionOption } }, async (request, reply) => {
      const doer = signedIn(request).account;
      const found = await requestedRepository(database, request.params, request);
      const added = await addReaction(
        database,
        found,
        doer,
        placeOf(request.params),
        request.body.content ?? "",
      );
      return reply.status(added.created ? 201 : 200).send(render(request)(added));
    });

    // Gitea reads the reaction to remove from the DELETE's body, and answers 200 with none.
    app.delete(path, { ...issue, schema: { params, body: EditReactionOption } }, async (request, reply) => {
      const doer = signedIn(request).account;
      const found = await requestedRepository(database, request.params, request);
      await removeReaction(database, found, doer, placeOf(request.params), request.body?.content ?? "");
      return reply.status(200).send();
    });
  }
}
