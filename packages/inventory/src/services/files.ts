import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { type AnyKysely, Invalid, type SavedUpload } from "@anvil/core";
import { deleteEntry, entriesNaming, uploadedFile, uploadedFiles } from "../repositories/action-logs.ts";
import { findRecord, type Row } from "../repositories/records.ts";
import { logAction, type RequestOrigin } from "./activity.ts";
import { visibleTo } from "./companies.ts";
import type { InventoryDatabase } from "./database.ts";
import type { Caller } from "./permissions.ts";
import { discard, extensionOf, isStoredName, keep, type Storage, slugOf } from "./storage.ts";

// Files attached to assets and models (spec §7.1, §8): kept in a private folder, served only through
// the API, and recorded as "uploaded" entries of the activity log, whose id is the file's id.

/** A kind of record files attach to, as its routes name it. */
export interface Attachable {
  /** URL segment under /api/v1, and the prefix of stored names (`hardware-12-…`). */
  path: "hardware" | "models";
  prefix: string;
  table: "assets" | "models";
  itemType: string;
  /** Permission prefix: view to list and download, edit to upload and delete. */
  permission: string;
  /** Sub-folder of the private uploads. */
  folder: string;
  notFound: string;
}

export const ATTACHABLES: readonly Attachable[] = [
  {
    path: "hardware",
    prefix: "hardware",
    table: "assets",
    itemType: "asset",
    permission: "assets",
    folder: "assets",
    notFound: "Asset does not exist.",
  },
  {
    path: "models",
    prefix: "model",
    table: "models",
    itemType: "assetmodel",
    permission: "models",
    folder: "assetmodels",
    notFound: "Model does not exist.",
  },
];

/** Snipe-IT's UploadFileRequest: what a file may be, by its extension. */
const ALLOWED = [
  "png",
  "gif",
  "jpg",
  "jpeg",
  "doc",
  "docx",
  "pdf",
  "txt",
  "zip",
  "rar",
  "xls",
  "xlsx",
  "lic",
  "xml",
  "rtf",
  "json",
  "webp",
  "avif",
  "csv",
  "odt",
  "ods",
];

/**
 * A stored attachment's name as Snipe-IT forms it, `hardware-12-<random>-<slug>.pdf`: the record,
 * a random part, and the client's name cut down to letters, digits and dashes.
 */
function attachmentName(kind: Attachable, recordId: number, filename: string): string {
  const stem = [kind.prefix, recordId, randomBytes(4).toString("hex"), slugOf(filename)].filter(
    (part) => part !== "",
  );
  return `${stem.join("-")}.${extensionOf(filename)}`;
}

/**
 * The record files attach to, undeleted (Snipe-IT's `find`) and of a company the caller sees;
 * undefined when there is none.
 */
export async function attachedTo(
  db: AnyKysely,
  caller: Caller,
  kind: Attachable,
  id: number,
): Promise<Row | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  const row = await findRecord(db, kind.table, id, { softDeletes: true, trashed: "without" });
  return row && visibleTo(caller, kind.table, row) ? row : undefined;
}

/** The "uploaded" log entries of a record, oldest first. */
export async function listFiles(db: AnyKysely, kind: Attachable, id: number): Promise<Row[]> {
  return uploadedFiles(db, { type: kind.itemType, id });
}

/** One of the record's files, with where it is stored; undefined when the record has no such file. */
export async function findFile(
  db: AnyKysely,
  storage: Storage,
  kind: Attachable,
  id: number,
  fileId: number,
): Promise<{ entry: Row; path: string } | undefined> {
  if (!Number.isSafeInteger(fileId)) return undefined;
  const entry = await uploadedFile(db, { type: kind.itemType, id }, fileId);
  if (!entry || !isStoredName(entry.filename)) return undefined;
  return { entry, path: join(storage.attachments, kind.folder, entry.filename) };
}

/** Whether a stored file is still on disk. */
export async function onDisk(path: string): Promise<number | undefined> {
  const found = await stat(path).catch(() => undefined);
  return found?.isFile() ? found.size : undefined;
}

/**
 * Attaches staged uploads to a record: each is kept under a generated name and logged as
 * "uploaded" with the note, in one transaction; when any step fails, the files kept so far go again.
 */
export async function attachFiles(
  database: InventoryDatabase,
  storage: Storage,
  caller: Caller,
  origin: RequestOrigin,
  kind: Attachable,
  record: Row,
  uploads: readonly SavedUpload[],
  note: string | null,
): Promise<Row[]> {
  const refused = uploads.findIndex((upload) => !ALLOWED.includes(extensionOf(upload.filename) ?? ""));
  if (refused >= 0)
    throw new Invalid("The given data was invalid.", {
      [`file.${refused}`]: [`The file.${refused} field must be a file of type: ${ALLOWED.join(", ")}.`],
    });
  const directory = join(storage.attachments, kind.folder);
  const kept: string[] = [];
  try {
    const names: string[] = [];
    for (const upload of uploads) {
      const name = attachmentName(kind, record.id, upload.filename);
      kept.push(await keep(upload.path, directory, name));
      names.push(name);
    }
    return await (database.db as AnyKysely).transaction().execute(async (trx) => {
      for (const filename of names)
        await logAction(trx, database.dialect, {
          createdBy: caller.user.id,
          actionType: "uploaded",
          item: { type: kind.itemType, id: record.id },
          note,
          filename,
          origin,
        });
      return entriesNaming(trx, { type: kind.itemType, id: record.id }, names);
    });
  } catch (error) {
    await discard(kept);
    throw error;
  }
}

/** Removes one of a record's files: its log entry, then the file. False when it has no such file. */
export async function deleteFile(
  database: InventoryDatabase,
  storage: Storage,
  kind: Attachable,
  id: number,
  fileId: number,
): Promise<boolean> {
  const file = await findFile(database.db as AnyKysely, storage, kind, id, fileId);
  if (!file) return false;
  if (!(await deleteEntry(database.db, file.entry.id))) return false;
  await discard([file.path]);
  return true;
}
