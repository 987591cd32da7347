import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import multipart from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import qs from "qs";
import { checkBody, hasNul, NulCharacter } from "./body-check.ts";

export interface UploadLimits {
  /** Largest single uploaded file in bytes. */
  fileSize: number;
  /** Most files in one request. */
  files: number;
  /** Most bytes of all text fields of one request together (default: 1 MiB, at most the body limit). */
  fieldsSize?: number;
}

export const defaultUploadLimits: UploadLimits = { fileSize: 100 * 1024 * 1024, files: 20 };

const DEFAULT_FIELDS_SIZE = 1024 * 1024;

/** A client error about the request body itself; classified as a `transport` problem with status 400. */
export class MalformedBody extends Error {
  readonly statusCode = 400;
  readonly code = "ANVIL_MALFORMED_BODY";
}

/** The text fields of a multipart body together went over their limit. */
export class FieldsTooLarge extends Error {
  readonly statusCode = 413;
  readonly code = "ANVIL_FIELDS_TOO_LARGE";
}

declare module "fastify" {
  interface FastifyRequest {
    /** Most bytes of all text fields of a multipart body together. */
    readonly multipartFieldsSize: number;
  }
}

/**
 * The request bodies both APIs take, each checked once decoded (body-check.ts: depth, NUL
 * characters, and `null` members dropped where null means "not given"):
 * - JSON, where an empty body counts as no body (clients send `Content-Type: application/json`
 *   on DELETE with nothing after it), so the route's schema decides whether a body was required;
 * - `application/x-www-form-urlencoded`, parsed as PHP does (`a[]=1&a[]=2`, `a[b]=c`), because
 *   Snipe-IT scripts post forms;
 * - `multipart/form-data`, streamed (read it with saveUploads), within `uploads` limits; its text
 *   fields together within `uploads.fieldsSize`.
 */
export async function registerBodyParsers(
  app: FastifyInstance,
  options: { bodyLimit: number; uploads: UploadLimits; nullMeansAbsent: boolean },
): Promise<void> {
  const parseJson = app.getDefaultJsonParser("error", "ignore");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (body === "") return done(null, undefined);
    parseJson(request, body as string, (error, value) => {
      if (error) return done(error);
      try {
        checkBody(value, options);
        // Go decodes a `null` body into an untouched option struct: as if `{}` were sent.
        done(null, value === null && options.nullMeansAbsent ? {} : value);
      } catch (refusal) {
        done(refusal as Error);
      }
    });
  });
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string" },
    (_request, body, done) => {
      // allowPrototypes false (the default) drops __proto__ and friends; depth and count are bounded.
      const value = qs.parse(String(body), { depth: 5, parameterLimit: 1000, arrayLimit: 1000 });
      try {
        checkBody(value, { nullMeansAbsent: false });
        done(null, value);
      } catch (refusal) {
        done(refusal as Error);
      }
    },
  );
  const fieldsSize = Math.min(options.uploads.fieldsSize ?? DEFAULT_FIELDS_SIZE, options.bodyLimit);
  app.decorateRequest("multipartFieldsSize", { getter: () => fieldsSize });
  await app.register(multipart, {
    limits: {
      fileSize: options.uploads.fileSize,
      files: options.uploads.files,
      fieldSize: fieldsSize,
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
 * the text fields. Files are kept only on a route whose `authorize` ran before the body was read
 * (server.ts): elsewhere the caller's right to upload is unknown, so the files are read past and
 * dropped. On any failure nothing is left behind: files already written are removed. A body the
 * multipart parser cannot read is a MalformedBody (400); a file over the limit, or text fields
 * over `fieldsSize` together, a 413; text holding a NUL character a NulCharacter.
 */
export async function saveUploads(request: FastifyRequest, directory: string): Promise<SavedUploads> {
  if (!request.isMultipart()) throw new MalformedBody("the request is not multipart/form-data");
  const keepFiles = request.routeOptions.config.authorize !== undefined;
  if (keepFiles) await mkdir(directory, { recursive: true });
  const saved: SavedUploads = { fields: {}, files: [] };
  let fieldsSize = 0;
  try {
    for await (const part of request.parts()) {
      if (hasNul(part.fieldname)) throw new NulCharacter("");
      if (part.type === "field") {
        const value = String(part.value);
        fieldsSize += Buffer.byteLength(part.fieldname) + Buffer.byteLength(value);
        if (part.valueTruncated || fieldsSize > request.multipartFieldsSize)
          throw new FieldsTooLarge(`the text fields are larger than ${request.multipartFieldsSize} bytes`);
        if (hasNul(value)) throw new NulCharacter(part.fieldname);
        saved.fields[part.fieldname] = value;
        continue;
      }
      if (!keepFiles) {
        await pipeline(part.file, new Writable({ write: (_chunk, _encoding, next) => next() }));
        continue;
      }
      if (hasNul(part.filename)) throw new NulCharacter(part.fieldname);
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
