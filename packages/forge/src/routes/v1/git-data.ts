import { BadRequest, NotFound } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { toApiAnnotatedTag, toApiBlob, toApiReference, toApiTree } from "../../convert/git-data.ts";
import { NOT_FOUND_MESSAGE } from "../../errors.ts";
import {
  checkRevision,
  isBranchName,
  listReferences,
  listTreePage,
  readAnnotatedTag,
  readBlob,
  readNote,
} from "../../git/index.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { ACCESS_READ } from "../../services/access.ts";
import { type RepositoryContext, repositoryFilesPath, requireUnit } from "../../services/repositories.ts";
import { commitFlags, renderCommits } from "./commits.ts";
import type { ApiContext } from "./context.ts";
import { requestedRepository } from "./repos.ts";

const ShaParams = Type.Object({ owner: Type.String(), repo: Type.String(), sha: Type.String() });
const RefParams = Type.Object({ owner: Type.String(), repo: Type.String(), "*": Type.String() });
const TreeQuery = Type.Object({
  recursive: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  per_page: Type.Optional(Type.String()),
});
const NoteQuery = Type.Object({
  verification: Type.Optional(Type.String()),
  files: Type.Optional(Type.String()),
});

/** Gitea's API.DEFAULT_GIT_TREES_PER_PAGE: the largest and the default page of a tree. */
const TREE_PAGE = 1000;
/** Gitea's API.DEFAULT_MAX_BLOB_SIZE: a larger blob is answered without its content. */
const MAX_BLOB_BYTES = 10 * 1024 * 1024;

/** Go's FormInt: a whole number, or 0 for anything else. */
function formInt(value: string | undefined): number {
  return value !== undefined && /^-?\d{1,15}$/.test(value) ? Number(value) : 0;
}

/**
 * A sha or ref of the object routes, which Gitea answers with 400 when it names nothing; one git
 * could take for an option or a range (`-x`, `a..b`, NUL) names nothing and never reaches git.
 */
function objectName(sha: string, message: string): string {
  if (!isBranchName(sha)) throw new BadRequest(message);
  return sha;
}

function fullNameOf(found: RepositoryContext): string {
  return `${found.owner.name}/${found.repository.name}`;
}

/** Gitea's Git data API: refs, trees, blobs, annotated tags and notes, read from the repository. */
export function registerGitData(context: ApiContext): void {
  const { app, database, storage } = context;
  const repo = { config: { scope: "repository" as const } };

  // One ref when the filter names it exactly, else every ref it starts (404 when none), as Gitea.
  async function references(
    request: FastifyRequest,
    params: { owner: string; repo: string },
    filter: string,
  ) {
    const found = await requestedRepository(database, params, request);
    requireUnit(found, "repo.code", ACCESS_READ);
    const prefix = filter === "" ? "" : `refs/${filter}`;
    const refs = await listReferences(repositoryFilesPath(storage, found), prefix);
    if (refs.length === 0) throw new NotFound(NOT_FOUND_MESSAGE);
    const rendered = refs.map((ref) => toApiReference(ref, fullNameOf(found), request.rootUrl));
    return refs.length === 1 && refs[0].name === prefix ? rendered[0] : rendered;
  }

  app.get("/repos/:owner/:repo/git/refs", { ...repo, schema: { params: RepoParams } }, (request) =>
    references(request, request.params, ""),
  );

  app.get("/repos/:owner/:repo/git/refs/*", { ...repo, schema: { params: RefParams } }, (request) =>
    references(request, request.params, request.params["*"]),
  );

  app.get(
    "/repos/:owner/:repo/git/trees/:sha",
    { ...repo, schema: { params: ShaParams, querystring: TreeQuery } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      const { sha } = request.params;
      const notFound = `sha not found [${sha.slice(0, 100)}]`;
      const page = Math.max(formInt(request.query.page), 1);
      const asked = formInt(request.query.per_page);
      const perPage = asked <= 0 || asked > TREE_PAGE ? TREE_PAGE : asked;
      const tree = await listTreePage(repositoryFilesPath(storage, found), objectName(sha, notFound), {
        recursive: ["1", "t", "T", "true", "TRUE", "True"].includes(request.query.recursive ?? ""),
        page,
        perPage,
      });
      if (!tree) throw new BadRequest(notFound);
      return toApiTree(tree, fullNameOf(found), request.rootUrl, page, perPage);
    },
  );

  app.get(
    "/repos/:owner/:repo/git/blobs/:sha",
    { ...repo, schema: { params: ShaParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      const { sha } = request.params;
      const notFound = `object does not exist [id: ${sha.slice(0, 100)}, rel_path: ]`;
      const blob = await readBlob(
        repositoryFilesPath(storage, found),
        objectName(sha, notFound),
        MAX_BLOB_BYTES,
      );
      if (!blob) throw new BadRequest(notFound);
      return toApiBlob(blob, fullNameOf(found), request.rootUrl);
    },
  );

  app.get(
    "/repos/:owner/:repo/git/tags/:sha",
    { ...repo, schema: { params: ShaParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      const { sha } = request.params;
      const notFound = `tag does not exist [id: ${sha.slice(0, 100)}]`;
      const tag = await readAnnotatedTag(repositoryFilesPath(storage, found), objectName(sha, notFound));
      if (!tag) throw new BadRequest(notFound);
      return toApiAnnotatedTag(tag, fullNameOf(found), request.rootUrl);
    },
  );

  app.get(
    "/repos/:owner/:repo/git/notes/:sha",
    { ...repo, schema: { params: ShaParams, querystring: NoteQuery } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      const { sha } = request.params;
      checkRevision(sha);
      const note = await readNote(repositoryFilesPath(storage, found), sha);
      if (!note) throw new NotFound(NOT_FOUND_MESSAGE);
      const [commit] = await renderCommits(
        context,
        request,
        found,
        [note.commit],
        commitFlags(request.query),
      );
      return { message: note.message, commit };
    },
  );
}
