import type { Readable } from "node:stream";
import type { HttpServer } from "@anvil/core";
import { BadRequest, NotFound } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { toApiAttachment } from "../../convert/release.ts";
import { attachmentsOf, type ReleaseRow } from "../../repositories/releases.ts";
import { RepoItemParams } from "../../schemas/labels.ts";
import {
  CreateReleaseOption,
  EditAttachmentOptions,
  EditReleaseOption,
  ReleaseAssetParams,
  ReleaseListQuery,
  ReleaseTagParams,
  UploadQuery,
} from "../../schemas/releases.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { type AttachmentSettings, DEFAULT_ATTACHMENT_SETTINGS } from "../../services/attachment-files.ts";
import {
  type AttachmentUpload,
  deleteReleaseAttachment,
  editReleaseAttachment,
  getReleaseAttachment,
  releaseForUpload,
  storeReleaseAttachment,
} from "../../services/release-attachments.ts";
import {
  createRelease,
  deleteRelease,
  editRelease,
  getLatestRelease,
  getRelease,
  getReleaseByTag,
  listRepositoryReleases,
  renderReleases,
} from "../../services/releases.ts";
import type { RepositoryContext } from "../../services/repositories.ts";
import { type ApiContext, paged, sendPage, signedIn } from "./context.ts";
import { requestedRepository } from "./repos.ts";

/** A release or attachment id from a path; anything but a number names nothing, as in Gitea. */
function pathId(text: string, what: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new NotFound(`${what} does not exist`);
  return Number(text);
}

/**
 * The upload in a POST …/assets request: the multipart field `attachment` (its file name, or
 * `?name=`), else the raw body named by `?name=`. `store` gets it before the rest is read.
 */
async function readUpload<T>(
  request: FastifyRequest,
  maxBytes: number,
  store: (upload: AttachmentUpload) => Promise<T>,
): Promise<T> {
  const named = (request.query as { name?: string }).name;
  if (!request.isMultipart()) {
    if (!named) throw new BadRequest("Could not determine name of attachment.");
    return store({
      name: named,
      contentType: request.headers["content-type"] ?? "",
      content: request.body as Readable,
    });
  }
  // One byte past the limit reaches the size check, which refuses the file with a 413.
  for await (const part of request.parts({ limits: { fileSize: maxBytes + 1 } })) {
    if (part.type !== "file") continue;
    if (part.fieldname !== "attachment") {
      part.file.resume();
      continue;
    }
    return store({ name: named || part.filename, contentType: part.mimetype, content: part.file });
  }
  throw new BadRequest("Could not determine name of attachment.");
}

/** Releases and their attachments (Gitea's /repos/{owner}/{repo}/releases…). */
export function registerReleases(context: ApiContext): void {
  const { app, database, storage } = context;
  const settings: AttachmentSettings = context.attachmentSettings ?? DEFAULT_ATTACHMENT_SETTINGS;
  const repo = { config: { scope: "repository" as const, readOnlyWhenArchived: true } };

  const render = async (request: FastifyRequest, found: RepositoryContext, release: ReleaseRow) =>
    (await renderReleases(database, found, [release], request.rootUrl))[0];

  app.get(
    "/repos/:owner/:repo/releases",
    { ...repo, schema: { params: RepoParams, querystring: ReleaseListQuery } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      const window = paged(context, request);
      const page = await listRepositoryReleases(database, found, {
        draft: request.query.draft,
        prerelease: request.query["pre-release"],
        offset: window.offset,
        limit: window.limit,
      });
      const rows = await renderReleases(database, found, page.rows, request.rootUrl);
      return sendPage(request, reply, window, { rows, total: page.total }, (row) => row);
    },
  );

  app.post(
    "/repos/:owner/:repo/releases",
    { ...repo, schema: { params: RepoParams, body: CreateReleaseOption } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const release = await createRelease(database, storage, found, caller.account, request.body);
      return reply.status(201).send(await render(request, found, release));
    },
  );

  app.get(
    "/repos/:owner/:repo/releases/latest",
    { ...repo, schema: { params: RepoParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      return render(request, found, await getLatestRelease(database, found));
    },
  );

  app.get(
    "/repos/:owner/:repo/releases/tags/:tag",
    { ...repo, schema: { params: ReleaseTagParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      return render(request, found, await getReleaseByTag(database, found, request.params.tag));
    },
  );

  app.delete(
    "/repos/:owner/:repo/releases/tags/:tag",
    { ...repo, schema: { params: ReleaseTagParams } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const release = await getReleaseByTag(database, found, request.params.tag);
      await deleteRelease(database, storage, found, caller.account, release);
      return reply.status(204).send();
    },
  );

  app.get(
    "/repos/:owner/:repo/releases/:id",
    { ...repo, schema: { params: RepoItemParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      return render(request, found, await getRelease(database, found, pathId(request.params.id, "release")));
    },
  );

  app.patch(
    "/repos/:owner/:repo/releases/:id",
    { ...repo, schema: { params: RepoItemParams, body: EditReleaseOption } },
    async (request) => {
      const caller = signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const id = pathId(request.params.id, "release");
      const release = await editRelease(database, storage, found, caller.account, id, request.body);
      return render(request, found, release);
    },
  );

  app.delete(
    "/repos/:owner/:repo/releases/:id",
    { ...repo, schema: { params: RepoItemParams } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = await requestedRepository(database, request.params, request);
      const release = await getRelease(database, found, pathId(request.params.id, "release"));
      await deleteRelease(database, storage, found, caller.account, release);
      return reply.status(204).send();
    },
  );

  app.get(
    "/repos/:owner/:repo/releases/:id/assets",
    { ...repo, schema: { params: RepoItemParams } },
    async (request) => {
      const found = await requestedRepository(database, request.params, request);
      const release = await getRelease(database, found, pathId(request.params.id, "release"));
      const attachments = (await attachmentsOf(database.db, [release.id])).get(release.id) ?? [];
      return attachments.map((attachment) => toApiAttachment(attachment, request.rootUrl));
    },
  );

  // Uploads take any body: this scope reads JSON, forms and text as bytes too, and the route
  // streams them itself, after the permission checks (nothing is read before).
  app.register(async (scope) => {
    const uploads = scope as unknown as HttpServer;
    uploads.removeContentTypeParser(["application/json", "application/x-www-form-urlencoded", "text/plain"]);
    uploads.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
    uploads.post(
      "/repos/:owner/:repo/releases/:id/assets",
      { ...repo, schema: { params: RepoItemParams, querystring: UploadQuery } },
      async (request, reply) => {
        const caller = signedIn(request);
        const found = await requestedRepository(database, request.params, request);
        const release = await releaseForUpload(
          database,
          found,
          pathId(request.params.id, "release"),
          settings,
        );
        const attachment = await readUpload(request, settings.maxSize * 1024 * 1024, (upload) =>
          storeReleaseAttachment(database, storage, release, caller.account, upload, settings),
        );
        return reply.status(201).send(toApiAttachment(attachment, request.rootUrl));
      },
    );
  });

  const assetOf = async (
    request: FastifyRequest,
    params: { owner: string; repo: string; id: string; attachment_id: string },
  ) => {
    const found = await requestedRepository(database, params, request);
    const release = await getRelease(database, found, pathId(params.id, "release"));
    return { found, release, id: pathId(params.attachment_id, "attachment") };
  };

  app.get(
    "/repos/:owner/:repo/releases/:id/assets/:attachment_id",
    { ...repo, schema: { params: ReleaseAssetParams } },
    async (request) => {
      const { release, id } = await assetOf(request, request.params);
      return toApiAttachment(await getReleaseAttachment(database, release, id), request.rootUrl);
    },
  );

  // 201, as Gitea answers an edit of an asset.
  app.patch(
    "/repos/:owner/:repo/releases/:id/assets/:attachment_id",
    { ...repo, schema: { params: ReleaseAssetParams, body: EditAttachmentOptions } },
    async (request, reply) => {
      signedIn(request);
      const { found, release, id } = await assetOf(request, request.params);
      const edited = await editReleaseAttachment(database, found, release, id, request.body, settings);
      return reply.status(201).send(toApiAttachment(edited, request.rootUrl));
    },
  );

  app.delete(
    "/repos/:owner/:repo/releases/:id/assets/:attachment_id",
    { ...repo, schema: { params: ReleaseAssetParams } },
    async (request, reply) => {
      signedIn(request);
      const { found, release, id } = await assetOf(request, request.params);
      await deleteReleaseAttachment(database, storage, found, release, id);
      return reply.status(204).send();
    },
  );
}
