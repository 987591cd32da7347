import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import multipart from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import qs from "qs";

export interface UploadLimits {
  /** Largest single uploaded file in bytes. */
  fileSize: number;
  /** Most files in one request. */
  files: number;
}

export const defaultUploadLimits: UploadLimits = { fileSize: 100 * 1024 * 1024, files: 20 };

/** A client error about the request body itself; classified as a `transport` problem with status 400. */
export class MalformedBody extends Error {
  readonly statusCode = 400;
  readonly code = "ANVIL_MALFORMED_BODY";
}

/**
 * The request bodies both APIs take besides JSON:
 * - JSON, where an empty body counts as no body (clients send `Content-Type: application/json`
 *   on DELETE with nothing after it), so the route's schema decides whether a body was required;
 * - `application/x-www-form-urlencoded`, parsed as PHP does (`a[]=1&a[]=2`, `a[b]=c`), because
 *   Snipe-IT scripts post forms;
 * - `multipart/form-data`, streamed (read it with saveUploads), within `uploads` limits.
 */
export async function registerBodyParsers(
  app: FastifyInstance,
  options: { bodyLimit: number; uploads: UploadLimits },
): Promise<void> {
  const parseJson = app.getDefaultJsonParser("error", "ignore");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (body === "") done(null, undefined);
    else parseJson(request, body as string, done);
  });
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string" },
    (_request, body, done) => {
      // allowPrototypes false (the default) drops __proto__ and friends; depth and count are bounded.
      done(null, qs.parse(String(body), { depth: 5, parameterLimit: 1000, arrayLimit: 1000 }));
    },
  );
  await app.register(multipart, {
    limits: {
      fileSize: options.uploads.fileSize,
      files: options.uploads.files,
      fieldSize: options.bodyLimit,
      fields: 1000,
      parts: 1000 + options.uploads.files,
    },
    throwFileSizeLimit: true,
  });
}

export interface SavedUpload {
  /** The form field the file came in. */
  field: string;
  /** The name the client gave; for display only, never a path. */
  filename: string;
  mimetype: string;
  /** Where it was stored: `<directory>/<generated id>`. */
  path: string;
  size: number;
}

export interface SavedUploads {
  fields: Record<string, string>;
  files: SavedUpload[];
}

function isClientError(error: unknown): boolean {
  const status = (error as { statusCode?: unknown })?.statusCode;
  return typeof status === "number" && status >= 400 && status < 500;
}

/**
 * Streams every file of a multipart request into `directory` under a generated name, and collects
 * the text fields. On any failure nothing is left behind: files already written are removed. A
 * body the multipart parser cannot read is a MalformedBody (400), a file over the limit a 413.
 */
export async function saveUploads(request: FastifyRequest, directory: string): Promise<SavedUploads> {
  if (!request.isMultipart()) throw new MalformedBody("the request is not multipart/form-data");
  await mkdir(directory, { recursive: true });
  const saved: SavedUploads = { fields: {}, files: [] };
  try {
    for await (const part of request.parts()) {
      if (part.type === "field") {
        saved.fields[part.fieldname] = String(part.value);
        continue;
      }
      const path = join(directory, randomUUID());
      const file: SavedUpload = {
        field: part.fieldname,
        filename: part.filename,
        mimetype: part.mimetype,
        path,
        size: 0,
      };
      saved.files.push(file);
      const output = createWriteStream(path, { flags: "wx" });
      await pipeline(part.file, output);
      file.size = output.bytesWritten;
    }
  } catch (error) {
    await Promise.all(saved.files.map((file) => rm(file.path, { force: true })));
    // A write that failed (disk full, permissions) is the server's problem, not the client's.
    if (isClientError(error) || (error as NodeJS.ErrnoException).syscall !== undefined) throw error;
    // busboy reports a truncated or garbled body as a plain Error.
    throw new MalformedBody(`malformed multipart body: ${(error as Error).message}`, { cause: error });
  }
  return saved;
}
