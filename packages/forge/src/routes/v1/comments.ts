import { pageWindow, RowMemo } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type CommentPlace, toApiComment, toTimelineComment } from "../../convert/comment.ts";
import { labelPlace } from "../../convert/issue.ts";
import { toApiLabel } from "../../convert/label.ts";
import { toApiMilestone } from "../../convert/milestone.ts";
import { toApiUser } from "../../convert/user.ts";
import type { AccountRow } from "../../repositories/accounts.ts";
import type { CommentInIssue } from "../../repositories/comments.ts";
import {
  CommentListQuery,
  CommentParams,
  CreateIssueCommentOption,
  EditIssueCommentOption,
  IssueCommentParams,
} from "../../schemas/comments.ts";
import { IssueParams } from "../../schemas/issues.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { permissionKey } from "../../services/access.ts";
import {
  type CommentLookup,
  commentPlace,
  createComment,
  deleteComment,
  editComment,
  getComment,
  issueComments,
  issueTimeline,
  repositoryComments,
  timeFilter,
} from "../../services/comments.ts";
import { getIssue } from "../../services/issues.ts";
import type { RepositoryContext } from "../../services/repositories.ts";
import { type ApiContext, type KeptPage, paged, sendKeptPage, sendPage, signedIn } from "./context.ts";
import { requestedRepository } from "./repos.ts";

/** A comment found by id, or the bare status Gitea answers instead (no body at all). */
function sendLookup(reply: FastifyReply, found: CommentLookup, place: CommentPlace) {
  if ("bare" in found) return reply.status(found.bare).send();
  return toApiComment(found.comment.row, found.comment.poster, place);
}

// One issue's comments cost more to read and render than to send: they are kept, serialized, for
// as long as the rows they come from are unchanged (core's RowMemo; see sendKeptPage). Comments
// show their posters as anyone may see them, so the caller is not part of the key.
const issueCommentPages = new RowMemo<KeptPage>();

// Gitea lists one issue's comments with no page or limit, all of them, and clients read the
// answer as the whole discussion; the bound is one no real discussion reaches, with Link beyond.
const ONE_ISSUE_COMMENTS = { defaultLimit: 1000, maxLimit: 1000 };

/** Comments on issues, by issue and by id (with Gitea's deprecated Gogs paths), and the timeline. */
export function registerComments(context: ApiContext): void {
  const { app, database } = context;
  const issue = { config: { scope: "issue" as const, readOnlyWhenArchived: true } };

  function place(request: FastifyRequest, found: RepositoryContext): CommentPlace {
    return commentPlace(found, request.rootUrl);
  }

  function renderer(request: FastifyRequest, found: RepositoryContext, posters: Map<number, AccountRow>) {
    const where = place(request, found);
    return (row: CommentInIssue) => toApiComment(row, posters.get(row.poster_id) as AccountRow, where);
  }

  app.get(
    "/repos/:owner/:repo/issues/:index/comments",
    {
      config: { ...issue.config, keptPage: true },
      schema: { params: IssueParams, querystring: CommentListQuery },
    },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      const window = pageWindow(request.query as Record<string, unknown>, ONE_ISSUE_COMMENTS);
      const times = timeFilter(database, request.query);
      const issue = await getIssue(database, found, request.params.index);
      return sendKeptPage(
        request,
        reply,
        database,
        window,
        issueCommentPages,
        [found.repository, found.owner, issue],
        permissionKey(found.permission),
        async () => {
          const page = await issueComments(database, issue, times, window);
          return { rows: page.rows.map(renderer(request, found, page.posters)), total: page.total };
        },
      );
    },
  );

  app.post(
    "/repos/:owner/:repo/issues/:index/comments",
    { ...issue, schema: { params: IssueParams, body: CreateIssueCommentOption } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const found = await requestedRepository(database, request.params, request);
      const made = await createComment(
        database,
        found,
        doer,
        request.params.index,
        request.body.body,
        request.rootUrl,
      );
      return reply.status(201).send(toApiComment(made.row, made.poster, place(request, found)));
    },
  );

  app.get(
    "/repos/:owner/:repo/issues/comments",
    { ...issue, schema: { params: RepoParams, querystring: CommentListQuery } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      const window = paged(context, request);
      const page = await repositoryComments(database, found, timeFilter(database, request.query), window);
      return sendPage(request, reply, window, page, renderer(request, found, page.posters));
    },
  );

  app.get(
    "/repos/:owner/:repo/issues/comments/:id",
    { ...issue, schema: { params: CommentParams } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      return sendLookup(reply, await getComment(database, found, request.params.id), place(request, found));
    },
  );

  // The current path and Gitea's deprecated one (whose index is ignored) do the same.
  for (const { path, params } of [
    { path: "/repos/:owner/:repo/issues/comments/:id", params: CommentParams },
    { path: "/repos/:owner/:repo/issues/:index/comments/:id", params: IssueCommentParams },
  ]) {
    app.patch(
      path,
      { ...issue, schema: { params, body: EditIssueCommentOption } },
      async (request, reply) => {
        const doer = signedIn(request).account;
        const found = await requestedRepository(database, request.params, request);
        const edited = await editComment(
          database,
          found,
          doer,
          request.params.id,
          request.body.body,
          request.rootUrl,
        );
        return sendLookup(reply, edited, place(request, found));
      },
    );

    app.delete(path, { ...issue, schema: { params } }, async (request, reply) => {
      const doer = signedIn(request).account;
      const found = await requestedRepository(database, request.params, request);
      const deleted = await deleteComment(database, found, doer, request.params.id, request.rootUrl);
      return reply.status(deleted.bare).send();
    });
  }

  app.get(
    "/repos/:owner/:repo/issues/:index/timeline",
    { ...issue, schema: { params: IssueParams, querystring: CommentListQuery } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      const window = paged(context, request);
      const page = await issueTimeline(
        database,
        found,
        request.params.index,
        timeFilter(database, request.query),
        window,
      );
      const where = place(request, found);
      const milestone = (id: number | null) => {
        const row = id === null ? undefined : page.milestones.get(id);
        return row && toApiMilestone(row);
      };
      return sendPage(request, reply, window, page, (row) => {
        const label = row.label_id === null ? undefined : page.labels.get(row.label_id);
        const assignee = row.assignee_id === null ? undefined : page.users.get(row.assignee_id);
        return toTimelineComment(row, page.posters.get(row.poster_id) as AccountRow, where, {
          label: label && toApiLabel(label, labelPlace(found, request.rootUrl)),
          milestone: milestone(row.milestone_id),
          oldMilestone: milestone(row.old_milestone_id),
          assignee: assignee && toApiUser(assignee, undefined, request.rootUrl),
        });
      });
    },
  );
}
