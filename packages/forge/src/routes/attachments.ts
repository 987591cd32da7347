import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { HttpServer, LoginLimits } from "@anvil/core";
import { Forbidden, NotFound, readBool } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { findAccountByName } from "../repositories/accounts.ts";
import type { ForgeDatabase } from "../services/accounts.ts";
import { authenticate } from "../services/auth.ts";
import {
  attachmentByTagAndName,
  attachmentByUuid,
  type Download,
  noteDownload,
} from "../services/release-attachments.ts";
import type { Storage } from "../services/repositories.ts";

// Attachment downloads outside the API, where Gitea serves them: /attachments/{uuid} (what
// browser_download_url names) and /{owner}/{repo}/releases/download/{tag}/{name}. Streamed from
// disk, one byte range when asked (206), counted once per download that starts at its first byte.

/** The one range of `Range: bytes=…` within `size`, "unsatisfiable", or undefined to send it all. */
function requestedRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | "unsatisfiable" | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim());
  // Several ranges, or another unit: the whole file, which a client must accept.
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  let start: number;
  let end: number;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return "unsatisfiable";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}

/** `attachment` with the name as ASCII (anything else replaced) and exactly, RFC 5987-encoded. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export async function registerAttachmentDownloads(
  app: HttpServer,
  database: ForgeDatabase,
  storage: Storage,
  loginLimits: LoginLimits,
): Promise<void> {
  const viewerOf = async (request: FastifyRequest) => {
    const caller = await authenticate(database, loginLimits, {
      authorization: request.headers.authorization,
      address: request.ip,
    });
    if (caller && readBool(caller.account.must_change_password))
      throw new Forbidden("You must change your password.");
    return caller?.account;
  };

  const send = async (request: FastifyRequest, reply: FastifyReply, download: Download) => {
    const found = await stat(download.path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") throw new NotFound("attachment does not exist");
      throw error;
    });
    const { size } = found;
    const range = requestedRange(request.headers.range, size);
    reply.header("accept-ranges", "bytes");
    reply.header("content-disposition", contentDisposition(download.attachment.name));
    reply.header("cache-control", "private, max-age=300");
    reply.type("application/octet-stream");
    if (range === "unsatisfiable") {
      reply.header("content-range", `bytes */${size}`);
      return reply.status(416).send();
    }
    const { start, end } = range ?? { start: 0, end: size - 1 };
    if (request.method === "GET" && start === 0) await noteDownload(database, download.attachment);
    if (range) reply.status(206).header("content-range", `bytes ${start}-${end}/${size}`);
    reply.header("content-length", String(Math.max(0, end - start + 1)));
    if (request.method === "HEAD" || size === 0) return reply.send();
    return reply.send(createReadStream(download.path, { start, end }));
  };

  app.get<{ Params: { uuid: string } }>("/attachments/:uuid", async (request, reply) => {
    const download = await attachmentByUuid(database, storage, request.params.uuid, await viewerOf(request));
    return send(request, reply, download);
  });

  app.get<{ Params: { owner: string; repo: string; "*": string } }>(
    "/:owner/:repo/releases/download/*",
    async (request, reply) => {
      const rest = request.params["*"];
      const slash = rest.lastIndexOf("/");
      const viewer = await viewerOf(request);
      const download = await attachmentByTagAndName(
        database,
        storage,
        {
          owner: await findAccountByName(database.db, request.params.owner),
          repo: request.params.repo,
          tag: slash < 0 ? "" : rest.slice(0, slash),
          name: rest.slice(slash + 1),
        },
        viewer,
      );
      return send(request, reply, download);
    },
  );
}
