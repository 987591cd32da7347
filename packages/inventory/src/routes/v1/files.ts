import { createReadStream } from "node:fs";
import { type AnyKysely, Invalid, publicUrl } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { datetime, escaped, related } from "../../convert/format.ts";
import { namesOf, type Row } from "../../repositories/records.ts";
import {
  ATTACHABLES,
  type Attachable,
  attachedTo,
  attachFiles,
  deleteFile,
  findFile,
  listFiles,
  onDisk,
} from "../../services/files.ts";
import type { Caller } from "../../services/permissions.ts";
import { extensionOf } from "../../services/storage.ts";
import { type ApiContext, authorized, idParam, originOf, permitted, success } from "./context.ts";
import { stagedFiles } from "./multipart.ts";
import { IdParams, rawRow } from "./resource.ts";

// Files attached to assets and models (spec §7.1, §8): list, upload (multipart `file[]`, `notes`),
// download, delete. Snipe-IT answers these with real HTTP codes: 404 for an unknown record or file.
// Where it answers 500 (no file came; a file to delete is not there) we answer its envelope as a
// refused request instead. Download and delete have two paths each: `file/{file_id}` of the older
// controllers, and `files/{file_id}` (delete: `files/{file_id}/delete`) of Snipe-IT 8's.

const FileParams = Type.Object({ id: Type.String(), file_id: Type.String() });

const MESSAGES = {
  uploaded: "File(s) successfully uploaded.",
  noFiles: "You did not select any files for upload, or the file you are trying to upload is too large",
  noMatch: "No matching record for that asset/file",
  missing: "No file exists",
  deleted: "File successfully deleted.",
  notDeleted: "File not deleted. Please try again.",
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  gif: "image/gif",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  avif: "image/avif",
  pdf: "application/pdf",
  txt: "text/plain; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  json: "application/json",
  xml: "application/xml",
  zip: "application/zip",
};

function failure(reply: FastifyReply, status: number, messages: string) {
  return reply.status(status).send({ status: "error", messages, payload: null });
}

async function presentFiles(db: AnyKysely, caller: Caller, kind: Attachable, recordId: number, rows: Row[]) {
  const creators = await namesOf(
    db,
    "users",
    rows.map((row) => row.created_by),
  );
  return rows.map((row) => ({
    id: row.id,
    filename: escaped(row.filename as string),
    note: escaped((row.note as string | null) || null),
    url: publicUrl(caller.rootUrl, `api/v1/${kind.path}/${recordId}/file/${row.id}`).href,
    created_by: related(row.created_by as number | null, creators),
    created_at: datetime(row.created_at as string),
    updated_at: datetime(row.updated_at as string),
    deleted_at: null,
  }));
}

export function registerFiles({ app, database, storage }: ApiContext): void {
  const db = () => database.db as AnyKysely;

  for (const kind of ATTACHABLES) {
    const tags = [kind.path];
    const base = `/${kind.path}/:id`;

    app.get(`${base}/files`, { schema: { tags, params: IdParams } }, async (request, reply) => {
      const caller = authorized(request, `${kind.permission}.view`);
      const record = await attachedTo(db(), caller, kind, idParam(request));
      if (!record) return failure(reply, 404, kind.notFound);
      const files = await presentFiles(db(), caller, kind, record.id, await listFiles(db(), kind, record.id));
      // Assets answer in the envelope, models with a datatable (as their controllers do).
      return kind.path === "hardware"
        ? success(MESSAGES.uploaded, files)
        : { total: files.length, rows: files };
    });

    // Checked before the body is read, so no file is staged for a caller who may not attach one.
    const upload = { schema: { tags, params: IdParams }, config: permitted(`${kind.permission}.edit`) };
    app.post(`${base}/files`, upload, async (request, reply) => {
      const caller = authorized(request, `${kind.permission}.edit`);
      const record = await attachedTo(db(), caller, kind, idParam(request));
      if (!record) return failure(reply, 404, kind.notFound);
      const uploads = stagedFiles(request, "file");
      if (uploads.length === 0) throw new Invalid(MESSAGES.noFiles);
      const notes = (request.body as Record<string, unknown>).notes;
      await attachFiles(
        database,
        storage,
        caller,
        originOf(request),
        kind,
        record,
        uploads,
        typeof notes === "string" && notes !== "" ? notes : null,
      );
      return success(MESSAGES.uploaded, rawRow(record));
    });

    const download = async (request: FastifyRequest, reply: FastifyReply) => {
      const caller = authorized(request, `${kind.permission}.view`);
      const record = await attachedTo(db(), caller, kind, idParam(request));
      if (!record) return failure(reply, 404, kind.notFound);
      const file = await findFile(db(), storage, kind, record.id, idParam(request, "file_id"));
      if (!file) return failure(reply, 404, MESSAGES.noMatch);
      const size = await onDisk(file.path);
      if (size === undefined) return failure(reply, 404, MESSAGES.missing);
      const name = String(file.entry.filename);
      const inline = (request.query as Record<string, unknown>).inline === "true";
      // The stored name is the server's own (letters, digits, dashes), so it needs no quoting rules.
      return reply
        .header("content-type", CONTENT_TYPES[extensionOf(name) ?? ""] ?? "application/octet-stream")
        .header("content-length", size)
        .header("content-disposition", `${inline ? "inline" : "attachment"}; filename="${name}"`)
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", "default-src 'none'; sandbox")
        .send(createReadStream(file.path));
    };
    app.get(`${base}/file/:file_id`, { schema: { tags, params: FileParams } }, download);
    app.get(`${base}/files/:file_id`, { schema: { tags, params: FileParams } }, download);

    const remove = async (request: FastifyRequest, reply: FastifyReply) => {
      const caller = authorized(request, `${kind.permission}.edit`);
      const record = await attachedTo(db(), caller, kind, idParam(request));
      if (!record) return failure(reply, 404, kind.notFound);
      const deleted = await deleteFile(database, storage, kind, record.id, idParam(request, "file_id"));
      return deleted ? success(MESSAGES.deleted) : failure(reply, 404, MESSAGES.notDeleted);
    };
    const removal = { schema: { tags, params: FileParams }, config: upload.config };
    app.delete(`${base}/file/:file_id`, removal, remove);
    app.delete(`${base}/files/:file_id/delete`, removal, remove);
  }
}
