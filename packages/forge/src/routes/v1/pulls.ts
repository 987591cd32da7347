import { NotFound } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { link } from "../../convert/link.ts";
import { type ReviewPlace, toApiPullRequest, toApiReview, toApiReviewComment } from "../../convert/pull.ts";
import { NOT_FOUND_MESSAGE } from "../../errors.ts";
import type { FileChange } from "../../git/index.ts";
import { findAccountsByIds } from "../../repositories/accounts.ts";
import type { IssueRow } from "../../repositories/issues.ts";
import { type ReviewRow, reviewCommentCounts } from "../../repositories/pulls.ts";
import {
  CreatePullRequestOption,
  CreatePullReviewOptions,
  DismissPullReviewOptions,
  EditPullRequestOption,
  MergePullRequestOption,
  PullBaseHeadParams,
  PullCommitsQuery,
  PullListQuery,
  PullParams,
  PullReviewRequestOptions,
  ReviewParams,
  SubmitPullReviewOptions,
} from "../../schemas/pulls.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { isMerged, mergePull } from "../../services/pull-merge.ts";
import { pullViews } from "../../services/pull-views.ts";
import {
  createPull,
  editPull,
  getPull,
  getPullByBaseHead,
  listPulls,
  type PullInContext,
  pullCommits,
  pullDiff,
  pullFiles,
} from "../../services/pulls.ts";
import type { RepositoryContext } from "../../services/repositories.ts";
import {
  commentsOfReview,
  createReview,
  deleteReview,
  dismissReview,
  getReview,
  listReviews,
  removeReviewRequests,
  requestReviewers,
  submitReview,
} from "../../services/reviews.ts";
import { commitFlags, renderCommits } from "./commits.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";
import { cloneUrls, requestedRepository } from "./repos.ts";

const DIFF_INDEX = /^(\d{1,15})\.(diff|patch)$/;

/** Pull requests of a repository and their reviews. */
export function registerPulls(context: ApiContext): void {
  const { app, database, storage } = context;
  const pulls = { config: { scope: "repository" as const, readOnlyWhenArchived: true } };

  async function requestedPull(
    request: FastifyRequest,
    params: { owner: string; repo: string; index: string },
  ) {
    const found = await requestedRepository(database, params, request);
    return { found, pull: await getPull(database, found, params.index) };
  }

  async function renderPulls(request: FastifyRequest, found: RepositoryContext, issues: IssueRow[]) {
    const viewer = request.caller?.account;
    const views = await pullViews(database, found, issues, viewer);
    return views.map((view) => toApiPullRequest(view, viewer, cloneUrls(context, request)));
  }

  async function renderPull(request: FastifyRequest, found: RepositoryContext, issue: IssueRow) {
    return (await renderPulls(request, found, [issue]))[0];
  }

  function placeOf(request: FastifyRequest, found: RepositoryContext, pull: PullInContext): ReviewPlace {
    return {
      rootUrl: request.rootUrl,
      path: `${encodeURIComponent(found.owner.name)}/${encodeURIComponent(found.repository.name)}`,
      number: pull.issue.number,
    };
  }

  async function renderReviews(
    request: FastifyRequest,
    found: RepositoryContext,
    pull: PullInContext,
    reviews: ReviewRow[],
  ) {
    const [reviewers, counts] = await Promise.all([
      findAccountsByIds(
        database.db,
        reviews.map((review) => review.reviewer_id),
      ),
      reviewCommentCounts(
        database.db,
        reviews.map((review) => review.id),
      ),
    ]);
    const place = placeOf(request, found, pull);
    return reviews.flatMap((review) => {
      const reviewer = reviewers.get(review.reviewer_id);
      return reviewer
        ? [toApiReview(review, reviewer, counts.get(review.id) ?? 0, place, request.caller?.account)]
        : [];
    });
  }

  app.get(
    "/repos/:owner/:repo/pulls",
    { ...pulls, schema: { params: RepoParams, querystring: PullListQuery } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      const window = paged(context, request);
      const page = await listPulls(database, found, request.query, window);
      reply.headers({ "x-total-count": String(page.total) });
      return sendPage(
        request,
        reply,
        window,
        { rows: await renderPulls(request, found, page.rows), total: page.total },
        (row) => row,
      );
    },
  );

  app.post(
    "/repos/:owner/:repo/pulls",
    { ...pulls, schema: { params: RepoParams, body: CreatePullRequestOption } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const found = await requestedRepository(database, request.params, request);
      const issue = await createPull(database, storage, found, doer, request.body, request.rootUrl);
      return reply.status(201).send(await renderPull(request, found, issue));
    },
  );

  // GET /pulls/{index}, and /pulls/{index}.diff and .patch, which share its path segment.
  app.get(
    "/repos/:owner/:repo/pulls/:index",
    { ...pulls, schema: { params: PullParams } },
    async (request, reply) => {
      const raw = DIFF_INDEX.exec(request.params.index);
      const params = raw ? { ...request.params, index: raw[1] } : request.params;
      const { found, pull } = await requestedPull(request, params);
      if (!raw) return renderPull(request, found, pull.issue);
      const text = await pullDiff(storage, found, pull, raw[2] === "patch");
      return reply.type("text/plain; charset=utf-8").send(text);
    },
  );

  app.get(
    "/repos/:owner/:repo/pulls/:index/*",
    { ...pulls, schema: { params: PullBaseHeadParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      const pull = await getPullByBaseHead(
        database,
        found,
        request.params.index,
        request.params["*"],
        request.caller?.account,
      );
      return renderPull(request, found, pull.issue);
    },
  );

  // Gitea answers an edit with 201.
  app.patch(
    "/repos/:owner/:repo/pulls/:index",
    { ...pulls, schema: { params: PullParams, body: EditPullRequestOption } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, pull } = await requestedPull(request, request.params);
      await editPull(database, storage, found, doer, pull, request.body, request.rootUrl);
      const edited = await getPull(database, found, request.params.index);
      return reply.status(201).send(await renderPull(request, found, edited.issue));
    },
  );

  app.get(
    "/repos/:owner/:repo/pulls/:index/commits",
    { ...pulls, schema: { params: PullParams, querystring: PullCommitsQuery } },
    async (request, reply) => {
      const { found, pull } = await requestedPull(request, request.params);
      const window = paged(context, request);
      const page = await pullCommits(storage, found, pull, window);
      const pageCount = Math.max(1, Math.ceil(page.total / window.limit));
      reply.headers({
        "x-page": String(window.page),
        "x-perpage": String(window.limit),
        "x-pagecount": String(pageCount),
        "x-hasmore": String(window.page < pageCount),
      });
      const rendered = await renderCommits(context, request, found, page.rows, commitFlags(request.query));
      return sendPage(request, reply, window, { rows: rendered, total: page.total }, (commit) => commit);
    },
  );

  app.get(
    "/repos/:owner/:repo/pulls/:index/files",
    { ...pulls, schema: { params: PullParams } },
    async (request, reply) => {
      const { found, pull } = await requestedPull(request, request.params);
      const window = paged(context, request);
      const page = await pullFiles(storage, found, pull, window);
      const head = pull.pull.head_commit_id;
      const path = `${encodeURIComponent(found.owner.name)}/${encodeURIComponent(found.repository.name)}`;
      const file = (change: FileChange) => {
        const name = change.filename.split("/").map(encodeURIComponent).join("/");
        return {
          filename: change.filename,
          previous_filename: change.previous_filename,
          status: change.status,
          additions: change.additions,
          deletions: change.deletions,
          changes: change.additions + change.deletions,
          html_url: link(request.rootUrl, `${path}/src/commit/${head}/${name}`),
          contents_url: link(request.rootUrl, `api/v1/repos/${path}/contents/${name}?ref=${head}`),
          raw_url: link(request.rootUrl, `${path}/raw/commit/${head}/${name}`),
        };
      };
      return sendPage(request, reply, window, page, file);
    },
  );

  app.get(
    "/repos/:owner/:repo/pulls/:index/merge",
    { ...pulls, schema: { params: PullParams } },
    async (request, reply) => {
      const { pull } = await requestedPull(request, request.params);
      if (!isMerged(pull)) throw new NotFound(NOT_FOUND_MESSAGE);
      return reply.status(204).send();
    },
  );

  app.post(
    "/repos/:owner/:repo/pulls/:index/merge",
    { ...pulls, schema: { params: PullParams, body: MergePullRequestOption } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, pull } = await requestedPull(request, request.params);
      await mergePull(database, storage, found, doer, pull, request.body, request.rootUrl);
      return reply.status(200).send();
    },
  );

  app.post(
    "/repos/:owner/:repo/pulls/:index/requested_reviewers",
    { ...pulls, schema: { params: PullParams, body: PullReviewRequestOptions } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, pull } = await requestedPull(request, request.params);
      const made = await requestReviewers(database, found, doer, pull, request.body.reviewers ?? []);
      return reply.status(201).send(await renderReviews(request, found, pull, made));
    },
  );

  app.delete(
    "/repos/:owner/:repo/pulls/:index/requested_reviewers",
    { ...pulls, schema: { params: PullParams, body: PullReviewRequestOptions } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, pull } = await requestedPull(request, request.params);
      await removeReviewRequests(database, found, doer, pull, request.body.reviewers ?? []);
      return reply.status(204).send();
    },
  );

  app.get(
    "/repos/:owner/:repo/pulls/:index/reviews",
    { ...pulls, schema: { params: PullParams } },
    async (request, reply) => {
      const { found, pull } = await requestedPull(request, request.params);
      const window = paged(context, request);
      const all = await listReviews(database, pull, request.caller?.account);
      const rows = await renderReviews(
        request,
        found,
        pull,
        all.slice(window.offset, window.offset + window.limit),
      );
      return sendPage(request, reply, window, { rows, total: all.length }, (row) => row);
    },
  );

  app.post(
    "/repos/:owner/:repo/pulls/:index/reviews",
    { ...pulls, schema: { params: PullParams, body: CreatePullReviewOptions } },
    async (request) => {
      const doer = signedIn(request).account;
      const { found, pull } = await requestedPull(request, request.params);
      const review = await createReview(database, found, doer, pull, request.body);
      return (await renderReviews(request, found, pull, [review]))[0];
    },
  );

  app.get(
    "/repos/:owner/:repo/pulls/:index/reviews/:id",
    { ...pulls, schema: { params: ReviewParams } },
    async (request) => {
      const { found, pull } = await requestedPull(request, request.params);
      const review = await getReview(database, pull, request.params.id, request.caller?.account);
      return (await renderReviews(request, found, pull, [review]))[0];
    },
  );

  app.post(
    "/repos/:owner/:repo/pulls/:index/reviews/:id",
    { ...pulls, schema: { params: ReviewParams, body: SubmitPullReviewOptions } },
    async (request) => {
      const doer = signedIn(request).account;
      const { found, pull } = await requestedPull(request, request.params);
      const review = await getReview(database, pull, request.params.id, doer);
      const submitted = await submitReview(database, found, doer, pull, review, request.body);
      return (await renderReviews(request, found, pull, [submitted]))[0];
    },
  );

  app.delete(
    "/repos/:owner/:repo/pulls/:index/reviews/:id",
    { ...pulls, schema: { params: ReviewParams } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { pull } = await requestedPull(request, request.params);
      const review = await getReview(database, pull, request.params.id, doer);
      await deleteReview(database, doer, review);
      return reply.status(204).send();
    },
  );

  app.get(
    "/repos/:owner/:repo/pulls/:index/reviews/:id/comments",
    { ...pulls, schema: { params: ReviewParams } },
    async (request) => {
      const { found, pull } = await requestedPull(request, request.params);
      const review = await getReview(database, pull, request.params.id, request.caller?.account);
      const comments = await commentsOfReview(database, review);
      const posters = await findAccountsByIds(
        database.db,
        comments.map((comment) => comment.poster_id),
      );
      const place = placeOf(request, found, pull);
      return comments.flatMap((comment) => {
        const poster = posters.get(comment.poster_id);
        return poster ? [toApiReviewComment(comment, poster, place, request.caller?.account)] : [];
      });
    },
  );

  for (const [path, dismiss] of [
    ["dismissals", true],
    ["undismissals", false],
  ] as const)
    app.post(
      `/repos/:owner/:repo/pulls/:index/reviews/:id/${path}`,
      {
        ...pulls,
        schema: { params: ReviewParams, body: DismissPullReviewOptions },
        preValidation: (request, _reply, done) => {
          request.body ??= {};
          done();
        },
      },
      async (request) => {
        const doer = signedIn(request).account;
        const { found, pull } = await requestedPull(request, request.params);
        const review = await getReview(database, pull, request.params.id, doer);
        const changed = await dismissReview(
          database,
          found,
          doer,
          pull,
          review,
          dismiss,
          request.body.message,
        );
        return (await renderReviews(request, found, pull, [changed]))[0];
      },
    );
}
