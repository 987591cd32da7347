import { BadRequest, NotFound } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { type CommitDetails, toApiCommit } from "../../convert/commit.ts";
import { toApiUser } from "../../convert/user.ts";
import { NOT_FOUND_MESSAGE } from "../../errors.ts";
import {
  type Commit,
  checkRevision,
  compareCommits,
  getCommit,
  isBranchName,
  listCommits,
  rawDiff,
  readCommitChanges,
} from "../../git/index.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { ACCESS_READ } from "../../services/access.ts";
import { type RepositoryContext, repositoryFilesPath, requireUnit } from "../../services/repositories.ts";
import { type ApiContext, paged, sendPage } from "./context.ts";
import { commitUsers } from "./repo-parts.ts";
import { requestedRepository } from "./repos.ts";

const CommitParams = Type.Object({ owner: Type.String(), repo: Type.String(), sha: Type.String() });
const CompareParams = Type.Object({ owner: Type.String(), repo: Type.String(), "*": Type.String() });
const DetailsQuery = {
  stat: Type.Optional(Type.String()),
  files: Type.Optional(Type.String()),
  verification: Type.Optional(Type.String()),
};
const CommitsQuery = Type.Object({
  sha: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  since: Type.Optional(Type.String()),
  until: Type.Optional(Type.String()),
  not: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
  ...DetailsQuery,
});
const CommitQuery = Type.Object(DetailsQuery);

// Gitea's compare lists every commit; this many are listed (as GitHub's compare does), all counted.
const MAX_COMPARED_COMMITS = 250;

/** Go's strconv.ParseBool, as Gitea's FormBool reads a flag: anything else is false. */
function formBool(value: string): boolean {
  return ["1", "t", "T", "true", "TRUE", "True"].includes(value);
}

/** Gitea's `stat`, `files` and `verification` flags: each on unless given and not true. */
export function commitFlags(query: { stat?: string; files?: string; verification?: string }) {
  const flag = (value: string | undefined) => value === undefined || value === "" || formBool(value);
  return { stat: flag(query.stat), files: flag(query.files), verification: flag(query.verification) };
}

/**
 * Renders commits as Gitea does, with the forge users their author and committer e-mails name
 * and, when asked, their stats and files, read for all of them in one git command.
 */
export async function renderCommits(
  context: ApiContext,
  request: FastifyRequest,
  found: RepositoryContext,
  commits: Commit[],
  flags: Omit<CommitDetails, "changes">,
) {
  const path = repositoryFilesPath(context.storage, found);
  const [userOf, changes] = await Promise.all([
    commitUsers(context.database, commits),
    flags.stat || flags.files
      ? readCommitChanges(
          path,
          commits.map((commit) => commit.id),
        )
      : undefined,
  ]);
  const apiUser = (email: string) => {
    const account = userOf(email);
    return account && toApiUser(account, request.caller?.account, request.rootUrl);
  };
  const fullName = `${found.owner.name}/${found.repository.name}`;
  return commits.map((commit) =>
    toApiCommit(
      commit,
      fullName,
      request.rootUrl,
      { author: apiUser(commit.author.email), committer: apiUser(commit.committer.email) },
      { ...flags, changes: changes?.get(commit.id) },
    ),
  );
}

function parseTime(name: string, value: string | undefined): Date | undefined {
  if (value === undefined || value === "") return undefined;
  const time = new Date(value);
  if (value.length > 64 || Number.isNaN(time.getTime()))
    throw new BadRequest(`invalid ${name}: ${value.slice(0, 64)} is not an ISO 8601 time`);
  return time;
}

function revisionOrUndefined(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  checkRevision(value);
  return value;
}

/** A repository's history: commits, one commit (and its diff or patch), and compare. */
export function registerCommits(context: ApiContext): void {
  const { app, database, storage } = context;
  const repo = { config: { scope: "repository" as const } };

  app.get(
    "/repos/:owner/:repo/commits",
    { ...repo, schema: { params: RepoParams, querystring: CommitsQuery } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      const window = paged(context, request);
      const { query } = request;
      const page = await listCommits(repositoryFilesPath(storage, found), {
        ref: revisionOrUndefined(query.sha),
        path: query.path || undefined,
        since: parseTime("since", query.since),
        until: parseTime("until", query.until),
        not: revisionOrUndefined(query.not),
        page: window.page,
        limit: window.limit,
      });
      const pageCount = Math.max(1, Math.ceil(page.total / window.limit));
      // Gitea's own paging headers for commits, besides Link and X-Total-Count.
      reply.headers({
        "x-page": String(window.page),
        "x-perpage": String(window.limit),
        "x-total": String(page.total),
        "x-pagecount": String(pageCount),
        "x-hasmore": String(window.page < pageCount),
      });
      const rendered = await renderCommits(context, request, found, page.commits, commitFlags(query));
      return sendPage(request, reply, window, { rows: rendered, total: page.total }, (commit) => commit);
    },
  );

  app.get(
    "/repos/:owner/:repo/git/commits/:sha",
    { ...repo, schema: { params: CommitParams, querystring: CommitQuery } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      // `{sha}.diff` and `{sha}.patch` share the path, as in Gitea's routes.
      const raw = /^(.*)\.(diff|patch)$/.exec(request.params.sha);
      const sha = raw ? raw[1] : request.params.sha;
      checkRevision(sha);
      const path = repositoryFilesPath(storage, found);
      const commit = await getCommit(path, sha);
      if (!commit) throw new NotFound(NOT_FOUND_MESSAGE);
      if (raw) {
        const output = rawDiff(path, commit, raw[2] as "diff" | "patch");
        await output.started;
        return reply.type("text/plain; charset=utf-8").send(output.body);
      }
      return (await renderCommits(context, request, found, [commit], commitFlags(request.query)))[0];
    },
  );

  app.get(
    "/repos/:owner/:repo/compare/*",
    { ...repo, schema: { params: CompareParams, querystring: CommitQuery } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      const basehead = request.params["*"];
      const separator = basehead.includes("...") ? "..." : "..";
      const at = basehead.indexOf(separator);
      if (at === -1) throw new NotFound(NOT_FOUND_MESSAGE);
      const base = basehead.slice(0, at);
      const head = basehead.slice(at + separator.length);
      for (const revision of [base, head])
        if (!isBranchName(revision))
          throw new NotFound(`commit does not exist [id: ${revision.slice(0, 100)}]`);
      const comparison = await compareCommits(
        repositoryFilesPath(storage, found),
        base,
        head,
        MAX_COMPARED_COMMITS,
      );
      // Gitea's compare always counts the stats; files and verification follow the flags.
      const flags = { ...commitFlags(request.query), stat: true };
      return {
        total_commits: comparison.total,
        commits: await renderCommits(context, request, found, comparison.commits, flags),
      };
    },
  );
}
