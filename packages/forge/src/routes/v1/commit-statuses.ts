import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { toApiCommitStatus } from "../../convert/commit-status.ts";
import type { CommitStatusRow } from "../../repositories/commit-statuses.ts";
import { CreateStatusOption, StatusListQuery } from "../../schemas/commit-statuses.ts";
import { ACCESS_READ, ACCESS_WRITE } from "../../services/access.ts";
import {
  combinedStatus,
  commitStatuses,
  createCommitStatus,
  statusCreators,
  statusTarget,
} from "../../services/commit-statuses.ts";
import { type RepositoryContext, requireUnit } from "../../services/repositories.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";
import { renderRepository, requestedRepository } from "./repos.ts";

const ShaParams = Type.Object({ owner: Type.String(), repo: Type.String(), sha: Type.String() });
const RefParams = Type.Object({ owner: Type.String(), repo: Type.String(), ref: Type.String() });

/** Commit statuses: reported by clients (CI), listed, and combined per commit. */
export function registerCommitStatuses(context: ApiContext): void {
  const { app, database, storage } = context;
  const repo = { config: { scope: "repository" as const } };

  async function renderStatuses(request: FastifyRequest, found: RepositoryContext, rows: CommitStatusRow[]) {
    const creators = await statusCreators(database, rows);
    const fullName = `${found.owner.name}/${found.repository.name}`;
    return rows.map((row) =>
      toApiCommitStatus(
        row,
        fullName,
        request.rootUrl,
        row.creator_id === null ? undefined : creators.get(row.creator_id),
        request.caller?.account,
      ),
    );
  }

  async function listStatuses(
    request: FastifyRequest,
    reply: FastifyReply,
    params: { owner: string; repo: string },
    ref: string,
    query: { sort?: string; state?: string },
  ) {
    const found = await requestedRepository(database, params, request);
    requireUnit(found, "repo.code", ACCESS_READ);
    const window = paged(context, request);
    const sha = await statusTarget(storage, found, ref);
    // A ref that names no commit has no statuses, as Gitea answers it.
    const page =
      sha === undefined
        ? { rows: [], total: 0 }
        : await commitStatuses(database, found.repository.id, sha, { ...query, ...window });
    const rendered = await renderStatuses(request, found, page.rows);
    return sendPage(request, reply, window, { rows: rendered, total: page.total }, (status) => status);
  }

  app.post(
    "/repos/:owner/:repo/statuses/:sha",
    { ...repo, schema: { params: ShaParams, body: CreateStatusOption } },
    async (request, reply) => {
      const doer = signedIn(request).account;
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_WRITE);
      const row = await createCommitStatus(database, storage, found, doer, request.params.sha, request.body);
      const [status] = await renderStatuses(request, found, [row]);
      return reply.status(201).send(status);
    },
  );

  app.get(
    "/repos/:owner/:repo/statuses/:sha",
    { ...repo, schema: { params: ShaParams, querystring: StatusListQuery } },
    (request, reply) => listStatuses(request, reply, request.params, request.params.sha, request.query),
  );

  app.get(
    "/repos/:owner/:repo/commits/:ref/statuses",
    { ...repo, schema: { params: RefParams, querystring: StatusListQuery } },
    (request, reply) => listStatuses(request, reply, request.params, request.params.ref, request.query),
  );

  app.get(
    "/repos/:owner/:repo/commits/:ref/status",
    { ...repo, schema: { params: RefParams, querystring: StatusListQuery } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      const window = paged(context, request);
      const sha = await statusTarget(storage, found, request.params.ref);
      const combined =
        sha === undefined ? undefined : await combinedStatus(database.db, found.repository.id, sha);
      const all = combined?.statuses ?? [];
      // The state combines every context; the statuses listed are a page of them, as Gitea pages them.
      const statuses = all.slice(window.offset, window.offset + window.limit);
      const repository = await renderRepository(context, request, found);
      reply.header("x-total-count", String(all.length));
      // No status yet: pending, as GitHub's combined status says and Gitea's comment on it quotes.
      return {
        state: combined?.state ?? "pending",
        sha: sha ?? "",
        total_count: statuses.length,
        statuses: await renderStatuses(request, found, statuses),
        repository,
        commit_url: sha === undefined ? "" : `${repository.url}/commits/${sha}`,
        url: sha === undefined ? "" : `${repository.url}/commits/${sha}/status`,
      };
    },
  );
}
