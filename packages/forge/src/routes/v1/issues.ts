import type { FastifyRequest } from "fastify";
import { toApiIssue } from "../../convert/issue.ts";
import type { IssueRow } from "../../repositories/issues.ts";
import { CreateIssueOption, IssueParams } from "../../schemas/issues.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { createIssue, getIssue, issueView } from "../../services/issues.ts";
import type { RepositoryContext } from "../../services/repositories.ts";
import { type ApiContext, signedIn } from "./context.ts";
import { requestedRepository } from "./repos.ts";

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

/** Issues of a repository, and the search across repositories. */
export function registerIssues(context: ApiContext): void {
  const { app, database } = context;
  const issue = { config: { scope: "issue" as const } };

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
    "/repos/:owner/:repo/issues/:index",
    { ...issue, schema: { params: IssueParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      return renderIssue(context, request, found, await getIssue(database, found, request.params.index));
    },
  );
}
