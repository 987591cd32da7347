import { Invalid, type PageWindow, RowMemo, readBool } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { type CloneUrls, toApiRepository } from "../../convert/repository.ts";
import { type AccountRow, findAccountsByIds } from "../../repositories/accounts.ts";
import {
  listRepositories,
  type RepositoryQuery,
  type RepositoryReader,
  type RepositoryRow,
  topicRowsOfRepository,
  topicsOf,
} from "../../repositories/repos.ts";
import { CreateRepoOption, EditRepoOption, RepoParams, RepoSearchQuery } from "../../schemas/repos.ts";
import { UsernameParams } from "../../schemas/users.ts";
import { permissionKey, repositoriesPermission, repositoryPermission } from "../../services/access.ts";
import { checkVisible, getAccount, getUser, isAdmin } from "../../services/accounts.ts";
import type { Caller } from "../../services/auth.ts";
import { visibleParents } from "../../services/forks.ts";
import {
  createRepository,
  deleteRepository,
  editRepository,
  getRepository,
  getRepositoryById,
  mustNotBeArchived,
  type RepositoryContext,
} from "../../services/repositories.ts";
import { ANONYMOUS, type ApiContext, paged, READS, sendPage, signedIn, siteAdmin } from "./context.ts";

const SORT_COLUMNS = {
  alpha: "lower_name",
  created: "created_at",
  updated: "updated_at",
  id: "id",
  // Not tracked: these order by id, which is stable.
  size: "id",
  git_size: "id",
  lfs_size: "id",
  stars: "id",
  forks: "id",
} as const;

const SEARCH_MODES = new Set(["fork", "source", "mirror", "collaborative"]);

export function cloneUrls(context: ApiContext, request: FastifyRequest): CloneUrls {
  const { rootUrl } = request;
  return {
    rootUrl,
    ssh: context.sshPort === undefined ? undefined : { host: rootUrl.hostname, port: context.sshPort },
  };
}

/**
 * The repository a `/repos/{owner}/{repo}…` request names, as its caller may see it; a write to
 * what an archived one holds is refused here, for every route that says so (readOnlyWhenArchived).
 */
export async function requestedRepository(
  database: ApiContext["database"],
  params: { owner: string; repo: string },
  request: FastifyRequest,
): Promise<RepositoryContext> {
  const found = await getRepository(
    database,
    params.owner,
    params.repo,
    request.caller?.account,
    request.caller?.scopes,
  );
  if (request.routeOptions.config.readOnlyWhenArchived && !READS.has(request.method))
    mustNotBeArchived(found.repository);
  return found;
}

/** A repository already in hand (one just made, one found through a team), as `viewer` may see it. */
export async function renderRepositoryFor(
  context: ApiContext,
  request: FastifyRequest,
  repository: RepositoryRow,
  owner: AccountRow,
  viewer: AccountRow,
) {
  const permission = await repositoryPermission(context.database, repository, owner, viewer);
  return renderRepository(context, request, { repository, owner, permission });
}

/** A fork's parent as the request's caller may see it, with its topic rows; undefined otherwise. */
async function parentOf(context: ApiContext, request: FastifyRequest, repository: RepositoryRow) {
  if (repository.fork_id === null) return undefined;
  const parent = (await visibleParents(context.database, [repository], request.caller?.account)).get(
    repository.id,
  );
  return (
    parent && { ...parent, topics: await topicRowsOfRepository(context.database.db, parent.repository.id) }
  );
}

type Shown = RepositoryContext & { topics: readonly { name: string }[] };

/** A repository as the API shows it to the request's caller, from its topic rows (and its parent's). */
function repositoryAnswer(context: ApiContext, request: FastifyRequest, found: Shown, parent?: Shown) {
  const urls = cloneUrls(context, request);
  const render = (shown: Shown, parentJson: object | null) =>
    toApiRepository(
      shown.repository,
      shown.owner,
      request.caller?.account,
      shown.permission,
      urls,
      shown.topics.map((row) => row.name),
      parentJson,
    );
  return render(found, parent ? render(parent, null) : null);
}

export async function renderRepository(
  context: ApiContext,
  request: FastifyRequest,
  found: RepositoryContext,
) {
  const [topics, parent] = await Promise.all([
    topicRowsOfRepository(context.database.db, found.repository.id),
    parentOf(context, request, found.repository),
  ]);
  return repositoryAnswer(context, request, { ...found, topics }, parent);
}

// GET /repos/{owner}/{repo} is the forge's most frequent call, and most of its cost was rendering
// and serializing the same unchanged repository again: its JSON is kept for as long as the rows
// it comes from are the ones the database hands out (core's RowMemo).
const repositoryAnswers = new RowMemo<string>();

/** Sends a repository as GET /repos/{owner}/{repo} answers it. */
async function sendRepository(
  context: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  found: RepositoryContext,
) {
  const [topics, parent] = await Promise.all([
    topicRowsOfRepository(context.database.db, found.repository.id),
    parentOf(context, request, found.repository),
  ]);
  // A memo's chain has the same length for every answer: a repository without a visible parent
  // stands in ANONYMOUS for its parent's rows.
  const parentRows = parent
    ? [parent.repository, parent.owner, parent.topics]
    : [ANONYMOUS, ANONYMOUS, ANONYMOUS];
  const answer = repositoryAnswers.get(
    [found.repository, found.owner, request.caller?.account ?? ANONYMOUS, topics, ...parentRows],
    // The rest of what the answer depends on: the access, and the root URL and SSH port in its URLs.
    `${permissionKey(found.permission)} ${parent ? permissionKey(parent.permission) : "-"} ${request.rootUrl.href} ${context.sshPort}`,
    () => JSON.stringify(repositoryAnswer(context, request, { ...found, topics }, parent)),
  );
  return reply.type("application/json; charset=utf-8").send(answer);
}

export async function renderRepositories(
  context: ApiContext,
  request: FastifyRequest,
  rows: RepositoryRow[],
) {
  const viewer = request.caller?.account;
  const owners = await findAccountsByIds(
    context.database.db,
    rows.map((row) => row.owner_id),
  );
  const pairs = rows.map((repository) => ({
    repository,
    owner: owners.get(repository.owner_id) as AccountRow,
  }));
  const [permissions, parents] = await Promise.all([
    repositoriesPermission(context.database, pairs, viewer),
    visibleParents(context.database, rows, viewer),
  ]);
  const topics = await topicsOf(context.database.db, [
    ...new Set([...rows.map((row) => row.id), ...[...parents.values()].map((p) => p.repository.id)]),
  ]);
  const urls = cloneUrls(context, request);
  const render = (shown: RepositoryContext, parent: object | null) =>
    toApiRepository(
      shown.repository,
      shown.owner,
      viewer,
      shown.permission,
      urls,
      topics.get(shown.repository.id) ?? [],
      parent,
    );
  return pairs.map((pair, i) => {
    const parent = parents.get(pair.repository.id);
    return render({ ...pair, permission: permissions[i] }, parent ? render(parent, null) : null);
  });
}

/** A page of repositories as a list route answers it: paged, rendered, with Link and X-Total-Count. */
export async function sendRepositories(
  context: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  list: (window: PageWindow) => Promise<{ rows: RepositoryRow[]; total: number }>,
) {
  const window = paged(context, request);
  const page = await list(window);
  const data = await renderRepositories(context, request, page.rows);
  return sendPage(request, reply, window, { rows: data, total: page.total }, (row) => row);
}

/** listRepositories in id order, for the plain lists of a user, an organization or oneself. */
export function repositoriesWhere(
  context: ApiContext,
  filter: Pick<RepositoryQuery, "ownerId" | "involvedId" | "reader">,
): (window: PageWindow) => Promise<{ rows: RepositoryRow[]; total: number }> {
  return (window) =>
    listRepositories(context.database.db, context.database.dialect, {
      ...filter,
      sort: "id",
      order: "asc",
      offset: window.offset,
      limit: window.limit,
    });
}

/** Who reads a list: public-only tokens read as anonymous callers do. */
export function readerOf(caller: Caller | undefined): RepositoryReader {
  const viewer = caller?.account;
  if (!viewer || caller?.scopes?.includes("public-only")) return undefined;
  return isAdmin(viewer) ? "all" : { id: viewer.id, restricted: readBool(viewer.restricted) };
}

export function registerRepos(context: ApiContext): void {
  const { app, database, storage } = context;
  const repo = { config: { scope: "repository" as const } };

  app.post("/user/repos", { ...repo, schema: { body: CreateRepoOption } }, async (request, reply) => {
    const caller = signedIn(request);
    const created = await createRepository(database, storage, caller.account, caller.account, request.body);
    return reply
      .status(201)
      .send(await renderRepositoryFor(context, request, created, caller.account, caller.account));
  });

  app.post(
    "/admin/users/:username/repos",
    { config: { scope: "admin" }, schema: { params: UsernameParams, body: CreateRepoOption } },
    async (request, reply) => {
      const caller = siteAdmin(request);
      const owner = await getAccount(database, request.params.username);
      const created = await createRepository(database, storage, owner, caller.account, request.body);
      return reply
        .status(201)
        .send(await renderRepositoryFor(context, request, created, owner, caller.account));
    },
  );

  app.get("/repos/:owner/:repo", { ...repo, schema: { params: RepoParams } }, async (request, reply) => {
    const found = await requestedRepository(database, request.params, request);
    return sendRepository(context, request, reply, found);
  });

  app.get(
    "/repositories/:id",
    { ...repo, schema: { params: Type.Object({ id: Type.String() }) } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await getRepositoryById(database, request.params.id, caller.account, caller.scopes);
      return sendRepository(context, request, reply, found);
    },
  );

  app.patch(
    "/repos/:owner/:repo",
    { ...repo, schema: { params: RepoParams, body: EditRepoOption } },
    async (request) => {
      signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const edited = await editRepository(database, storage, found, request.body);
      return renderRepository(context, request, { ...found, repository: edited });
    },
  );

  app.delete("/repos/:owner/:repo", { ...repo, schema: { params: RepoParams } }, async (request, reply) => {
    const caller = signedIn(request);
    const found = await requestedRepository(database, request.params, request);
    await deleteRepository(database, storage, found, caller.account);
    return reply.status(204).send();
  });

  app.get("/repos/search", { ...repo, schema: { querystring: RepoSearchQuery } }, async (request, reply) => {
    const query = request.query;
    const sort = query.sort ?? "alpha";
    if (!(sort in SORT_COLUMNS)) throw new Invalid(`Invalid sort: ${sort}`);
    const order = query.order ?? "asc";
    if (order !== "asc" && order !== "desc") throw new Invalid(`Invalid order: ${order}`);
    if (query.mode !== undefined && !SEARCH_MODES.has(query.mode))
      throw new Invalid(`Invalid search mode: "${query.mode}"`);
    const window = paged(context, request);
    // There are no mirrors: asking only for them finds nothing.
    const none = query.mode === "mirror";
    const page = none
      ? { rows: [], total: 0 }
      : await listRepositories(database.db, database.dialect, {
          keyword: query.q?.toLowerCase(),
          includeDescription: query.includeDesc,
          ownerId: query.uid && (query.exclusive || query.mode !== "collaborative") ? query.uid : undefined,
          collaboratorId: query.uid && query.mode === "collaborative" ? query.uid : undefined,
          reader: readerOf(request.caller),
          isPrivate: query.is_private,
          archived: query.archived,
          template: query.template,
          isFork: query.mode === "fork" ? true : query.mode === "source" ? false : undefined,
          sort: SORT_COLUMNS[sort as keyof typeof SORT_COLUMNS],
          order,
          offset: window.offset,
          limit: window.limit,
        });
    const data = await renderRepositories(context, request, page.rows);
    sendPage(request, reply, window, { rows: data, total: page.total }, (row) => row);
    return { ok: true, data };
  });

  app.get("/user/repos", repo, async (request, reply) => {
    const viewer = signedIn(request).account;
    return sendRepositories(
      context,
      request,
      reply,
      repositoriesWhere(context, { involvedId: viewer.id, reader: readerOf(request.caller) }),
    );
  });

  app.get(
    "/users/:username/repos",
    { ...repo, schema: { params: UsernameParams } },
    async (request, reply) => {
      const viewer = request.caller?.account;
      const owner = checkVisible(await getUser(database, request.params.username), viewer);
      return sendRepositories(
        context,
        request,
        reply,
        repositoriesWhere(context, { ownerId: owner.id, reader: readerOf(request.caller) }),
      );
    },
  );
}
