import { randomUUID } from "node:crypto";
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";

// Where the inventory keeps what users upload: under `<data dir>/inventory`, each file by a name
// the server made up. A client's file name is only ever shown; a stored name is checked against
// the shape the server gives names before it is joined to a directory.

/** The folders under the data directory, one per kind of upload. */
export interface Storage {
  /** Multipart files of requests in progress; moved out or removed when the request ends. */
  incoming: string;
  /** CSV files waiting to be imported (spec §21). */
  imports: string;
  /** Attachments of assets and models, served only through the API (Snipe-IT's private_uploads). */
  attachments: string;
  /** Images of records, served publicly at /uploads/<folder>/<name> (Snipe-IT's public uploads). */
  images: string;
  /** Copies of an SQLite database taken before an import (`run-backup`). */
  backups: string;
}

export function storageUnder(dataDir: string): Storage {
  const root = join(dataDir, "inventory");
  return {
    incoming: join(root, "incoming"),
    imports: join(root, "imports"),
    attachments: join(root, "private_uploads"),
    images: join(root, "uploads"),
    backups: join(root, "backups"),
  };
}

const STORED_NAME = /^[a-z0-9][a-z0-9-]*(\.[a-z0-9]{1,8})?$/;

/** Whether `name` has the shape of a name the server generated: no separators, no dot segments. */
export function isStoredName(name: unknown): name is string {
  return typeof name === "string" && name.length <= 200 && STORED_NAME.test(name);
}

/** `directory/name`, for a name of the server's making only. */
export function storedPath(directory: string, name: string): string {
  if (!isStoredName(name)) throw new Error(`not a stored file name: ${JSON.stringify(name)}`);
  return join(directory, name);
}

/** A fresh file name: a random id, then `.ext` when one is given. */
export function generatedName(extension?: string): string {
  return extension ? `${randomUUID()}.${extension}` : randomUUID();
}

/** The lower-cased extension of a client's file name, when it is a plain one. */
export function extensionOf(filename: string): string | undefined {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(filename);
  return match ? match[1].toLowerCase() : undefined;
}

/** A client's file name cut down to what is safe inside a stored name: `Q3 Invoice (1).pdf` → `q3-invoice-1`. */
export function slugOf(filename: string): string {
  const base = filename.replace(/^.*[\\/]/, "").replace(/\.[^.]*$/, "");
  return base
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 60);
}

/** Moves a staged upload to its stored place (one file system: both are under the data directory). */
export async function keep(from: string, directory: string, name: string): Promise<string> {
  const path = storedPath(directory, name);
  await mkdir(directory, { recursive: true });
  await rename(from, path);
  return path;
}

/** Removes stored files, ignoring those already gone. */
export async function discard(paths: readonly string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(path, { force: true })));
}
