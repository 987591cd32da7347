import { Readable } from "node:stream";
import { BadRequest, NotFound } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import {
  COMMIT_VERIFICATION,
  type ContentsContext,
  toContentsResponse,
  toFileCommitResponse,
} from "../../convert/contents.ts";
import {
  ARCHIVE_FORMATS,
  gitOutput,
  resolveRef,
  startArchive,
  streamBlob,
  type TreeEntry,
} from "../../git/index.ts";
import {
  ChangeFilesOptions,
  ContentsExtQuery,
  CreateFileOptions,
  DeleteFileOptions,
  FilePathParams,
  RefQuery,
  UpdateFileOptions,
} from "../../schemas/contents.ts";
import { RepoParams } from "../../schemas/repos.ts";
import { ACCESS_READ, ACCESS_WRITE } from "../../services/access.ts";
import {
  type ChangedFiles,
  type ChangeFilesOptions as ChangeOptions,
  type ContentsItem,
  changeFiles,
  commitMessages,
  contentsRef,
  getContents,
  rawEntry,
} from "../../services/contents.ts";
import { editorconfigFor } from "../../services/editorconfig.ts";
import { KeptAnswers } from "../../services/kept.ts";
import { languageStatistics } from "../../services/languages.ts";
import { type RepositoryContext, repositoryFilesPath, requireUnit } from "../../services/repositories.ts";
import { type ApiContext, scopeCovers, signedIn } from "./context.ts";
import { requestedRepository } from "./repos.ts";

// Files of a repository: contents read and changed, raw and media downloads, archives, language
// statistics and editorconfig definitions.

/** The repository a write names, found and checked before its body is read (see `authorize`). */
const writable = new WeakMap<FastifyRequest, RepositoryContext>();

interface FileOptionsBody {
  message?: string;
  branch?: string;
  new_branch?: string;
  author?: { name?: string; email?: string };
  committer?: { name?: string; email?: string };
  dates?: { author?: string; committer?: string };
  signoff?: boolean;
}

function changeOptions(body: FileOptionsBody, files: ChangeOptions["files"]): ChangeOptions {
  return {
    message: body.message,
    branch: body.branch,
    newBranch: body.new_branch,
    author: body.author,
    committer: body.committer,
    dates: body.dates,
    signoff: body.signoff,
    files,
  };
}

// What a browser must never do with a repository's bytes: run them as a page of this site.
const RAW_HEADERS = { "x-content-type-options": "nosniff", "cache-control": "private, no-cache" };
const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
const SNIFF_BYTES = 512;
const CONTENTS_EXT_INCLUDES = new Set(["file_content", "lfs_metadata", "commit_metadata", "commit_message"]);

function startsWith(head: Buffer, bytes: number[], at = 0): boolean {
  return bytes.every((byte, i) => head[at + i] === byte);
}

/**
 * A safe Content-Type for a blob from its first bytes, as Gitea serves one: common images and PDF as
 * themselves, SVG sandboxed, UTF-8 text as text/plain (never text/html), anything else as bytes.
 */
function rawType(
  head: Buffer,
  name: string,
  entry: TreeEntry,
): { type: string; inline: boolean; svg?: boolean } {
  if (entry.mode === "120000") return { type: "text/plain; charset=utf-8", inline: true };
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47])) return { type: "image/png", inline: true };
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { type: "image/jpeg", inline: true };
  if (startsWith(head, [0x47, 0x49, 0x46, 0x38])) return { type: "image/gif", inline: true };
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && startsWith(head, [0x57, 0x45, 0x42, 0x50], 8))
    return { type: "image/webp", inline: true };
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46, 0x2d])) return { type: "application/pdf", inline: true };
  if (head.includes(0)) return { type: "application/octet-stream", inline: false };
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
  } catch {
    return { type: "application/octet-stream", inline: false };
  }
  if (name.toLowerCase().endsWith(".svg") && head.toString("utf8").includes("<svg"))
    return { type: "image/svg+xml", inline: true, svg: true };
  return { type: "text/plain; charset=utf-8", inline: true };
}

function disposition(kind: "inline" | "attachment", name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * Sends a blob, typed from its first bytes: from memory when it is small (`bytes`), else streamed
 * from `git cat-file`; 304 for a matching ETag.
 */
async function sendBlob(
  request: FastifyRequest,
  reply: FastifyReply,
  repoPath: string,
  entry: TreeEntry,
  bytes: Buffer | undefined,
): Promise<FastifyReply> {
  const etag = `"${entry.id}"`;
  const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
  reply.headers({
    ...RAW_HEADERS,
    etag,
    "x-gitea-object-type": entry.mode === "120000" ? "symlink" : "file",
  });
  if (request.headers["if-none-match"] === etag) return reply.status(304).send();
  const typed = (head: Buffer) => {
    const kind = rawType(head, name, entry);
    return reply.headers({
      "content-type": kind.type,
      "content-length": String(entry.size),
      "content-disposition": disposition(kind.inline ? "inline" : "attachment", name),
      ...(kind.svg ? { "content-security-policy": SVG_POLICY } : {}),
    });
  };
  if (bytes) return typed(bytes.subarray(0, SNIFF_BYTES)).send(bytes);
  const git = streamBlob(repoPath, entry.id);
  const chunks = git.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let headSize = 0;
  let ended = false;
  while (headSize < SNIFF_BYTES) {
    const next = await chunks.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    headSize += next.value.length;
  }
  const first = Buffer.concat(head);
  async function* body() {
    yield first;
    if (ended) return;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  const stream = Readable.from(body(), { objectMode: false });
  stream.once("close", () => git.kill());
  return typed(first).send(stream);
}

export function registerContents(context: ApiContext): void {
  const { app, database, storage } = context;
  const read = { config: { scope: "repository" as const } };
  // A change is authorized before its body, which may be megabytes of base64, is read.
  const write = {
    config: {
      scope: "repository" as const,
      readOnlyWhenArchived: true,
      authorize: async (request: FastifyRequest) => {
        signedIn(request);
        scopeCovers(request);
        const found = await requestedRepository(
          database,
          request.params as { owner: string; repo: string },
          request,
        );
        requireUnit(found, "repo.code", ACCESS_WRITE);
        writable.set(request, found);
      },
    },
  };
  const writableRepository = (request: FastifyRequest) => {
    const found = writable.get(request);
    if (!found) throw new NotFound("repository does not exist");
    return found;
  };
  const contentsContext = (
    found: RepositoryContext,
    request: FastifyRequest,
    ref: ContentsContext["ref"],
  ) => ({
    fullName: `${found.owner.name}/${found.repository.name}`,
    rootUrl: request.rootUrl,
    ref,
  });
  const render = (item: ContentsItem, where: ContentsContext) =>
    toContentsResponse(item.entry, where, {
      content: item.content,
      target: item.target,
      lastCommit: item.lastCommit,
      submoduleUrl: item.submoduleUrl,
    });
  const filesAnswer = (found: RepositoryContext, request: FastifyRequest, changed: ChangedFiles) => {
    const where = contentsContext(found, request, changed.ref);
    return {
      files: changed.files.map((item) => (item ? render(item, where) : null)),
      commit: toFileCommitResponse(changed.commit, where.fullName, request.rootUrl),
      verification: COMMIT_VERIFICATION,
    };
  };
  const fileAnswer = (found: RepositoryContext, request: FastifyRequest, changed: ChangedFiles) => {
    const { files, ...rest } = filesAnswer(found, request, changed);
    return { content: files[0] ?? null, ...rest };
  };

  // A GET's JSON is kept as sent, by the commit read, the path, and what the links hold (the ref as
  // named, the repository's name, the root URL): what a commit holds never changes, and the ref is
  // resolved on every request, so a branch that moved is read at its new tip.
  const keptBodies = new KeptAnswers<Buffer>(32 * 1024 * 1024, 1024 * 1024);
  const contents = async (
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    ref: string | undefined,
  ) => {
    const found = await requestedRepository(
      database,
      request.params as { owner: string; repo: string },
      request,
    );
    const resolved = await contentsRef(storage, found, path, ref);
    let body: Buffer | undefined;
    if (resolved) {
      const key = [
        repositoryFilesPath(storage, found),
        resolved.commit,
        path,
        resolved.kind,
        resolved.name,
        found.owner.name,
        found.repository.name,
        request.rootUrl.href,
      ].join("\0");
      body = keptBodies.get(key);
      if (!body) {
        const answer = await getContents(storage, found, path, resolved);
        const where = contentsContext(found, request, resolved);
        body = Buffer.from(
          JSON.stringify(
            answer.item ? render(answer.item, where) : answer.items.map((item) => render(item, where)),
          ),
        );
        keptBodies.keep(key, body, body.length + key.length);
      }
    }
    return reply.type("application/json; charset=utf-8").send(body ?? "[]");
  };

  app.get(
    "/repos/:owner/:repo/contents",
    { ...read, schema: { params: RepoParams, querystring: RefQuery } },
    async (request, reply) => contents(request, reply, "", request.query.ref),
  );

  app.get(
    "/repos/:owner/:repo/contents/*",
    { ...read, schema: { params: FilePathParams, querystring: RefQuery } },
    async (request, reply) => {
      // Gitea lists the root for an empty path or a lone dot, and a directory named with a slash after it.
      const path = request.params["*"].replace(/\/$/, "");
      return contents(request, reply, path === "." ? "" : path, request.query.ref);
    },
  );

  // Gitea's extended contents: metadata only unless `includes` asks for more; one of the two fields.
  const contentsExt = async (
    request: FastifyRequest,
    raw: string,
    query: { ref?: string; includes?: string },
  ) => {
    const includes = new Set((query.includes ?? "").split(",").filter((option) => option !== ""));
    for (const option of includes)
      if (!CONTENTS_EXT_INCLUDES.has(option)) throw new BadRequest(`unknown include option "${option}"`);
    const found = await requestedRepository(
      database,
      request.params as { owner: string; repo: string },
      request,
    );
    const path = raw === "." || raw === "/" ? "" : raw;
    const resolved = await contentsRef(storage, found, path, query.ref);
    if (!resolved) return { dir_contents: [] };
    const answer = await getContents(storage, found, path, resolved);
    const items = answer.item ? [answer.item] : (answer.items ?? []);
    const messages = includes.has("commit_message")
      ? await commitMessages(
          storage,
          found,
          items.flatMap((item) => (item.lastCommit ? [item.lastCommit.id] : [])),
        )
      : undefined;
    const where = contentsContext(found, request, resolved);
    const extRender = (item: ContentsItem, withContent: boolean) =>
      toContentsResponse(item.entry, where, {
        content: withContent ? item.content : undefined,
        target: item.target,
        lastCommit: includes.has("commit_metadata") ? item.lastCommit : undefined,
        lastCommitMessage: item.lastCommit && messages?.get(item.lastCommit.id),
        submoduleUrl: item.submoduleUrl,
      });
    return answer.item
      ? { file_contents: extRender(answer.item, includes.has("file_content")) }
      : { dir_contents: items.map((item) => extRender(item, false)) };
  };
  app.get(
    "/repos/:owner/:repo/contents-ext",
    { ...read, schema: { params: RepoParams, querystring: ContentsExtQuery } },
    async (request) => contentsExt(request, "", request.query),
  );
  app.get(
    "/repos/:owner/:repo/contents-ext/*",
    { ...read, schema: { params: FilePathParams, querystring: ContentsExtQuery } },
    async (request) => contentsExt(request, request.params["*"], request.query),
  );

  app.post(
    "/repos/:owner/:repo/contents",
    { ...write, schema: { params: RepoParams, body: ChangeFilesOptions } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = writableRepository(request);
      const body = request.body;
      const files = body.files.map((file) => ({
        operation: file.operation,
        path: file.path,
        fromPath: file.from_path,
        content: file.content,
        sha: file.sha,
      }));
      const changed = await changeFiles(database, storage, found, caller.account, changeOptions(body, files));
      return reply.status(201).send(filesAnswer(found, request, changed));
    },
  );

  app.post(
    "/repos/:owner/:repo/contents/*",
    { ...write, schema: { params: FilePathParams, body: CreateFileOptions } },
    async (request, reply) => {
      const caller = signedIn(request);
      const found = writableRepository(request);
      const file = { operation: "create" as const, path: request.params["*"], content: request.body.content };
      const changed = await changeFiles(
        database,
        storage,
        found,
        caller.account,
        changeOptions(request.body, [file]),
      );
      return reply.status(201).send(fileAnswer(found, request, changed));
    },
  );

  app.put(
    "/repos/:owner/:repo/contents/*",
    { ...write, schema: { params: FilePathParams, body: UpdateFileOptions } },
    async (request) => {
      const caller = signedIn(request);
      const found = writableRepository(request);
      const body = request.body;
      const file = {
        operation: "update" as const,
        path: request.params["*"],
        fromPath: body.from_path,
        content: body.content,
        sha: body.sha,
      };
      const changed = await changeFiles(
        database,
        storage,
        found,
        caller.account,
        changeOptions(body, [file]),
      );
      return fileAnswer(found, request, changed);
    },
  );

  app.delete(
    "/repos/:owner/:repo/contents/*",
    { ...write, schema: { params: FilePathParams, body: DeleteFileOptions } },
    async (request) => {
      const caller = signedIn(request);
      const found = writableRepository(request);
      const file = { operation: "delete" as const, path: request.params["*"], sha: request.body.sha };
      const changed = await changeFiles(
        database,
        storage,
        found,
        caller.account,
        changeOptions(request.body, [file]),
      );
      const { content: _deleted, ...rest } = fileAnswer(found, request, changed);
      return { content: null, ...rest };
    },
  );

  for (const route of ["raw", "media"]) {
    app.get(
      `/repos/:owner/:repo/${route}/*`,
      { ...read, schema: { params: FilePathParams, querystring: RefQuery } },
      async (request, reply) => {
        const found = await requestedRepository(database, request.params, request);
        const { entry, bytes } = await rawEntry(storage, found, request.params["*"], request.query.ref);
        return sendBlob(request, reply, repositoryFilesPath(storage, found), entry, bytes);
      },
    );
  }

  app.get(
    "/repos/:owner/:repo/archive/*",
    { ...read, schema: { params: FilePathParams } },
    async (request, reply) => {
      const found = await requestedRepository(database, request.params, request);
      requireUnit(found, "repo.code", ACCESS_READ);
      const archive = request.params["*"];
      const suffix = (Object.keys(ARCHIVE_FORMATS) as (keyof typeof ARCHIVE_FORMATS)[]).find((end) =>
        archive.endsWith(end),
      );
      if (!suffix) throw new BadRequest(`unknown format: ${archive}`);
      const refName = archive.slice(0, -suffix.length);
      const repoPath = repositoryFilesPath(storage, found);
      const ref = refName === "" ? undefined : await resolveRef(repoPath, refName);
      if (!ref) throw new NotFound(`unrecognized repository reference: ${refName}`);
      const format = ARCHIVE_FORMATS[suffix];
      const git = startArchive(repoPath, ref.commit, format, `${found.repository.name}/`);
      const output = gitOutput(git, { abandoned: () => git.kill() });
      await output.started;
      const fileName = `${found.repository.name}-${refName.replaceAll("/", "-")}${suffix}`;
      return reply
        .headers({
          "content-type": format === "zip" ? "application/zip" : "application/gzip",
          "content-disposition": disposition("attachment", fileName),
          "x-content-type-options": "nosniff",
        })
        .send(output.body);
    },
  );

  app.get("/repos/:owner/:repo/languages", { ...read, schema: { params: RepoParams } }, async (request) =>
    languageStatistics(storage, await requestedRepository(database, request.params, request)),
  );

  app.get(
    "/repos/:owner/:repo/editorconfig/*",
    { ...read, schema: { params: FilePathParams, querystring: RefQuery } },
    async (request) =>
      editorconfigFor(
        storage,
        await requestedRepository(database, request.params, request),
        request.params["*"],
        request.query.ref,
      ),
  );
}
