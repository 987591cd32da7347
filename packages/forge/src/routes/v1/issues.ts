import { RowMemo } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { labelPlace, toApiIssue } from "../../convert/issue.ts";
import { toApiLabel } from "../../convert/label.ts";
import { apiTime } from "../../convert/time.ts";
import { toApiUser } from "../../convert/user.ts";
import type { IssueRow } from "../../repositories/issues.ts";
import type { LabelRow } from "../../repositories/labels.ts";
import {
  CreateIssueOption,
  EditDeadlineOption,
  EditIssueOption,
  IssueLabelsOption,
  IssueListQuery,
  IssueParams,
  IssueSearchQuery,
  LockIssueOption,
} from "../../schemas/issues.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { permissionKey } from "../../services/access.ts";
import {
  assignees,
  changeIssueLabels,
  createIssue,
  deleteIssue,
  editIssue,
  getIssue,
  issueLabels,
  issueRepositories,
  issueView,
  issueViews,
  listIssues,
  pinIssue,
  pinnedIssues,
  searchIssues,
  setLocked,
  updateDeadline,
} from "../../services/issues.ts";
import type { RepositoryContext } from "../../services/repositories.ts";
import { ANONYMOUS, type ApiContext, type KeptPage, paged, sendKeptPage, signedIn } from "./context.ts";
import { readerOf, requestedRepository } from "./repos.ts";

const IssueLabelParams = Type.Object({
  owner: Type.String(),
  repo: Type.String(),
  index: Type.String(),
  id: Type.String(),
});
const PinParams = Type.Object({
  owner: Type.String(),
  repo: Type.String(),
  index: Type.String(),
  position: Type.String(),
});

/** An issue as the request's caller sees it. */
export async function renderIssue(
  context: ApiContext,
  request: FastifyRequest,
  found: RepositoryContext,
  issue: IssueRow,
) {
  return toApiIssue(
    await issueView(context.database.db, issue),
    found,
    request.caller?.account,
    request.rootUrl,
  );
}

/** Issues of one repository, in one query per part (labels, assignees, posters, milestones). */
async function renderIssues(
  context: ApiContext,
  request: FastifyRequest,
  repositoryOf: (issue: IssueRow) => RepositoryContext,
  issues: IssueRow[],
) {
  const views = await issueViews(context.database.db, issues);
  return views.map((view) =>
    toApiIssue(view, repositoryOf(view.issue), request.caller?.account, request.rootUrl),
  );
}

// A page of issues costs much more to read and render (30 issues of ~1.6 KB, with their posters,
// labels and repository) than to send: each is kept, serialized, for as long as the rows it
// comes from are unchanged (core's RowMemo; see sendKeptPage). The poster's e-mail shows as the
// caller may see it, so the caller's account is one of the rows.
const listPages = new RowMemo<KeptPage>();
const searchPages = new RowMemo<KeptPage>();

/** A numeric path id, or NaN (which matches nothing). */
function pathNumber(value: string): number {
  return /^-?\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
}

/** Issues of a repository, and the search across repositories. */
export function registerIssues(context: ApiContext): void {
  const { app, database } = context;
  const issue = { config: { scope: "issue" as const, readOnlyWhenArchived: true } };
  const repo = { config: { scope: "repository" as const } };

  /** The repository and issue a `/repos/{o}/{r}/issues/{index}…` path names. */
  async function requestedIssue(
    request: FastifyRequest,
    params: { owner: string; repo: string; index: string },
  ) {
    const found = await requestedRepository(database, params, request);
    return { found, issue: await getIssue(database, found, params.index) };
  }

  function renderLabels(request: FastifyRequest, found: RepositoryContext, labels: LabelRow[]) {
    return labels.map((label) => toApiLabel(label, labelPlace(found, request.rootUrl)));
  }

  app.get(
    "/repos/issues/search",
    { config: { ...repo.config, keptPage: true }, schema: { querystring: IssueSearchQuery } },
    async (request, reply) => {
      const window = paged(context, request);
      const viewer = request.caller?.account;
      // A search reads from every repository the caller may read: sendKeptPage keys it on the
      // database being unchanged, and on the caller.
      return sendKeptPage(
        request,
        reply,
        database,
        window,
        searchPages,
        [viewer ?? ANONYMOUS],
        `${request.caller?.scopes?.join(",")}`,
        async () => {
          const page = await searchIssues(database, readerOf(request.caller), viewer, request.query, window);
          const repositories = await issueRepositories(database, page.rows, viewer);
          const rendered = await renderIssues(
            context,
            request,
            (row) => repositories.get(row.repo_id) as RepositoryContext,
            page.rows,
          );
          return { rows: rendered, total: page.total };
        },
      );
    },
  );

  app.get(
    "/repos/:owner/:repo/issues",
    {
      config: { ...issue.config, keptPage: true },
      schema: { params: RepoParams, querystring: IssueListQuery },
    },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      const window = paged(context, request);
      return sendKeptPage(
        request,
        reply,
        database,
        window,
        listPages,
        [found.repository, found.owner, request.caller?.account ?? ANONYMOUS],
        permissionKey(found.permission),
        async () => {
          const page = await listIssues(database, found, request.query, window);
          return { rows: await renderIssues(context, request, () => found, page.rows), total: page.total };
        },
      );
    },
  );

  app.post(
    "/repos/:owner/:repo/issues",
    { ...issue, schema: { params: RepoParams, body: CreateIssueOption } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const found = await requestedRepository(database, request.params, request);
      const created = await createIssue(database, found, doer, request.body, request.rootUrl);
      return reply.status(201).send(await renderIssue(context, request, found, created));
    },
  );

  app.get(
    "/repos/:owner/:repo/issues/pinned",
    { ...issue, schema: { params: RepoParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      return renderIssues(context, request, () => found, await pinnedIssues(database, found));
    },
  );

  app.get(
    "/repos/:owner/:repo/issues/:index",
    { ...issue, schema: { params: IssueParams } },
    async (request) => {
      const { found, issue } = await requestedIssue(request, request.params);
      return renderIssue(context, request, found, issue);
    },
  );

  // Gitea answers an edit with 201.
  app.patch(
    "/repos/:owner/:repo/issues/:index",
    { ...issue, schema: { params: IssueParams, body: EditIssueOption } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, issue } = await requestedIssue(request, request.params);
      const edited = await editIssue(database, found, doer, issue, request.body, request.rootUrl);
      return reply.status(201).send(await renderIssue(context, request, found, edited));
    },
  );

  app.delete(
    "/repos/:owner/:repo/issues/:index",
    { ...issue, schema: { params: IssueParams } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, issue } = await requestedIssue(request, request.params);
      await deleteIssue(database, found, doer, issue, request.rootUrl);
      return reply.status(204).send();
    },
  );

  app.put(
    "/repos/:owner/:repo/issues/:index/lock",
    {
      ...issue,
      schema: { params: IssueParams, body: LockIssueOption },
      // Gitea's binding takes a request without a body as an empty option.
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
    },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, issue } = await requestedIssue(request, request.params);
      await setLocked(database, found, doer, issue, true, request.body.lock_reason ?? "");
      return reply.status(204).send();
    },
  );

  app.delete(
    "/repos/:owner/:repo/issues/:index/lock",
    { ...issue, schema: { params: IssueParams } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, issue } = await requestedIssue(request, request.params);
      await setLocked(database, found, doer, issue, false);
      return reply.status(204).send();
    },
  );

  app.post(
    "/repos/:owner/:repo/issues/:index/pin",
    { ...issue, schema: { params: IssueParams } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, issue } = await requestedIssue(request, request.params);
      await pinIssue(database, found, doer, issue, { pin: true });
      return reply.status(204).send();
    },
  );

  app.delete(
    "/repos/:owner/:repo/issues/:index/pin",
    { ...issue, schema: { params: IssueParams } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, issue } = await requestedIssue(request, request.params);
      await pinIssue(database, found, doer, issue, { pin: false });
      return reply.status(204).send();
    },
  );

  app.patch(
    "/repos/:owner/:repo/issues/:index/pin/:position",
    { ...issue, schema: { params: PinParams } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, issue } = await requestedIssue(request, request.params);
      await pinIssue(database, found, doer, issue, { moveTo: pathNumber(request.params.position) || 0 });
      return reply.status(204).send();
    },
  );

  app.post(
    "/repos/:owner/:repo/issues/:index/deadline",
    { ...issue, schema: { params: IssueParams, body: EditDeadlineOption } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, issue } = await requestedIssue(request, request.params);
      const deadline = await updateDeadline(database, found, doer, issue, request.body.due_date);
      return reply.status(201).send({ due_date: deadline ? apiTime(deadline) : null });
    },
  );

  app.get(
    "/repos/:owner/:repo/issues/:index/labels",
    { ...issue, schema: { params: IssueParams } },
    async (request) => {
      const { found, issue } = await requestedIssue(request, request.params);
      return renderLabels(request, found, await issueLabels(database, issue));
    },
  );

  for (const [method, kind] of [
    ["POST", "add"],
    ["PUT", "replace"],
  ] as const)
    app.route({
      method,
      url: "/repos/:owner/:repo/issues/:index/labels",
      ...issue,
      schema: { params: IssueParams, body: IssueLabelsOption },
      handler: async (request) => {
        const doer = signedIn(request).account;
        const { found, issue } = await requestedIssue(request, request.params);
        const labels = await changeIssueLabels(
          database,
          found,
          doer,
          issue,
          { kind, labels: request.body.labels ?? [] },
          request.rootUrl,
        );
        return renderLabels(request, found, labels);
      },
    });

  app.delete(
    "/repos/:owner/:repo/issues/:index/labels",
    { ...issue, schema: { params: IssueParams } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, issue } = await requestedIssue(request, request.params);
      await changeIssueLabels(database, found, doer, issue, { kind: "clear" }, request.rootUrl);
      return reply.status(204).send();
    },
  );

  app.delete(
    "/repos/:owner/:repo/issues/:index/labels/:id",
    { ...issue, schema: { params: IssueLabelParams } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const { found, issue } = await requestedIssue(request, request.params);
      const labelId = pathNumber(request.params.id);
      await changeIssueLabels(database, found, doer, issue, { kind: "remove", labelId }, request.rootUrl);
      return reply.status(204).send();
    },
  );

  app.get("/repos/:owner/:repo/assignees", { ...repo, schema: { params: RepoParams } }, async (request) => {
    const found = await requestedRepository(database, request.params, request);
    return (await assignees(database, found)).map((account) =>
      toApiUser(account, request.caller?.account, request.rootUrl),
    );
  });
}
