import type { HttpServer } from "@anvil/core";
import { type SavedUpload, saveUploads } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { discard, type Storage } from "../../services/storage.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The files of a multipart request, staged until the route keeps them or the request ends. */
    uploads?: SavedUpload[];
  }
}

/** A multipart request's fields and files as one body: `name[]` gathers a list, as PHP reads it. */
function bodyOf(fields: Record<string, string>, files: SavedUpload[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const put = (name: string, value: unknown) => {
    if (!name.endsWith("[]")) {
      body[name] = value;
      return;
    }
    const key = name.slice(0, -2);
    const list = Array.isArray(body[key]) ? (body[key] as unknown[]) : [];
    body[key] = [...list, value];
  };
  for (const [name, value] of Object.entries(fields)) put(name, value);
  for (const file of files) put(file.field, file);
  return body;
}

/**
 * The files a multipart body sent under `field` (or `field[]`). Only files staged for this request
 * count: anything else there is text, however much it looks like an upload.
 */
export function stagedFiles(request: FastifyRequest, field: string): SavedUpload[] {
  const given = (request.body as Record<string, unknown> | undefined)?.[field];
  const staged = request.uploads ?? [];
  return (Array.isArray(given) ? given : [given]).filter((file): file is SavedUpload =>
    staged.includes(file as SavedUpload),
  );
}

/**
 * Laravel reads a multipart body on any route like a form whose files are uploads (spec §1.1: for
 * images, attachments and imports). Here the files are streamed to the staging folder within the
 * upload limits, and the body the route sees holds their fields and SavedUpload records. A route
 * that keeps a file moves it away; whatever is still staged when the answer is sent is removed.
 */
export function acceptMultipart(api: HttpServer, storage: Storage): void {
  api.decorateRequest("uploads", undefined);
  api.addHook("preValidation", async (request) => {
    if (!request.isMultipart()) return;
    const saved = await saveUploads(request, storage.incoming);
    request.uploads = saved.files;
    request.body = bodyOf(saved.fields, saved.files);
  });
  const cleanUp = async (request: { uploads?: SavedUpload[] }) => {
    if (request.uploads) await discard(request.uploads.map((file) => file.path));
  };
  api.addHook("onResponse", cleanUp);
  api.addHook("onRequestAbort", cleanUp);
}
