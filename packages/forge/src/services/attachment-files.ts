import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";

// Attachment files under the data directory, by generated uuid, never by a client's name: a
// `<root>/<u>/<u>/<uuid>` file (Gitea's layout) exists once its row does. An upload is streamed to
// `<root>/.incoming/<uuid>` within the size limit, moved into place in the transaction that
// writes its row, and removed on any failure before that.

/** Gitea's [attachment] settings, as GET /settings/attachment shows them. */
export interface AttachmentSettings {
  enabled: boolean;
  /** Comma-separated extensions (`.zip`) and MIME types (`image/*`); empty: every type. */
  allowedTypes: string;
  /** In megabytes, as Gitea counts MAX_SIZE. */
  maxSize: number;
  maxFiles: number;
}

export const DEFAULT_ATTACHMENT_SETTINGS: AttachmentSettings = {
  enabled: true,
  // The forge's attachments are release assets, which Gitea takes of any type unless its
  // [repository.release] ALLOWED_TYPES narrows them: a build (`.tar.xz`, `.deb`, an extensionless
  // binary) must not be refused by the narrower list Gitea keeps for issue attachments.
  allowedTypes: "",
  maxSize: 2048,
  maxFiles: 5,
};

const INCOMING = ".incoming";

/** Where attachment files live: the storage's own setting, else `attachments` beside the repositories. */
export function attachmentRoot(storage: { root: string; attachments?: string }): string {
  return storage.attachments ?? join(dirname(storage.root), "attachments");
}

/** An upload over the size limit: Gitea's 413, and nothing kept of it. */
export class AttachmentTooLarge extends Error {
  readonly statusCode = 413;
  readonly code = "ANVIL_ATTACHMENT_TOO_LARGE";
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isAttachmentUuid(text: string): boolean {
  return UUID.test(text);
}

export function attachmentPath(root: string, uuid: string): string {
  if (!isAttachmentUuid(uuid)) throw new Error(`not an attachment uuid: ${uuid}`);
  return join(root, uuid[0], uuid[1], uuid);
}

/** A file received but not yet placed: its uuid, where it waits, and its size. */
export interface ReceivedFile {
  uuid: string;
  incoming: string;
  size: number;
}

/**
 * Streams `source` to a new incoming file, refusing it (AttachmentTooLarge) once it passes
 * `maxBytes`; the partial file is removed on any failure.
 */
export async function receiveFile(root: string, source: Readable, maxBytes: number): Promise<ReceivedFile> {
  const uuid = randomUUID();
  const incoming = join(root, INCOMING, uuid);
  await mkdir(dirname(incoming), { recursive: true });
  let size = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      size += chunk.length;
      if (size > maxBytes)
        next(new AttachmentTooLarge(`attachment is too large: more than ${maxBytes} bytes`));
      else next(null, chunk);
    },
  });
  try {
    await pipeline(source, limit, createWriteStream(incoming, { flags: "wx" }));
    return { uuid, incoming, size };
  } catch (error) {
    await rm(incoming, { force: true });
    throw error;
  }
}

/** Moves a received file to its place; call it inside the transaction that writes its row. */
export async function placeFile(root: string, file: ReceivedFile): Promise<void> {
  const target = attachmentPath(root, file.uuid);
  await mkdir(dirname(target), { recursive: true });
  await rename(file.incoming, target);
}

/** Removes a received file wherever it is (its row did not commit). */
export async function discardFile(root: string, file: ReceivedFile): Promise<void> {
  await Promise.all([
    rm(file.incoming, { force: true }),
    rm(attachmentPath(root, file.uuid), { force: true }),
  ]);
}

/** Removes the files of deleted attachment rows; missing ones are no error. */
export async function removeFiles(root: string, uuids: readonly string[]): Promise<void> {
  await Promise.all(uuids.map((uuid) => rm(attachmentPath(root, uuid), { force: true })));
}

/**
 * Removes uploads a crash cut off in `.incoming`, once older than `graceMs` (a younger one may be
 * arriving in another process on the same storage). Answers how many went.
 */
export async function sweepIncoming(root: string, graceMs: number): Promise<number> {
  const folder = join(root, INCOMING);
  const entries = await readdir(folder).catch(() => [] as string[]);
  const cutoff = Date.now() - graceMs;
  let swept = 0;
  for (const entry of entries) {
    const path = join(folder, entry);
    const since = (await stat(path).catch(() => undefined))?.mtimeMs;
    if (since === undefined || since > cutoff) continue;
    await rm(path, { force: true });
    swept++;
  }
  return swept;
}
