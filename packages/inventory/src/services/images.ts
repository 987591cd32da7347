import { open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AnyKysely, Invalid, publicUrl, type SavedUpload } from "@anvil/core";
import { findRecord, type Row } from "../repositories/records.ts";
import type { InventoryDatabase } from "./database.ts";
import type { Caller } from "./permissions.ts";
import type { ServerColumns } from "./resource.ts";
import { discard, generatedName, isStoredName, keep, type Storage } from "./storage.ts";

// Images of records (spec §7.4 `image`, and `image` on every resource that has one): sent as a file
// upload or a base64 data URI (`image_source` is the legacy name), removed with `image_delete=1`,
// stored under a generated name, shown as an absolute URL under the root URL, served publicly.

/** The column holding a table's image, and the folder its files are kept and served in. */
export const IMAGE_COLUMNS: Readonly<Record<string, { column: string; folder: string }>> = {
  ...Object.fromEntries(
    [
      "categories",
      "companies",
      "departments",
      "locations",
      "manufacturers",
      "suppliers",
      "accessories",
      "consumables",
      "components",
    ].map((table) => [table, { column: "image", folder: table }]),
  ),
  assets: { column: "image", folder: "assets" },
  models: { column: "image", folder: "models" },
  users: { column: "avatar", folder: "avatars" },
};

export const IMAGE_FOLDERS = new Set(Object.values(IMAGE_COLUMNS).map((image) => image.folder));

// Snipe-IT also takes SVG; an SVG served from the API's own origin can run script, so it is not
// taken here. The types are recognised by their first bytes, whatever the client calls them.
const ACCEPTED = "png, gif, jpg, jpeg, bmp, webp, avif";
const NOT_AN_IMAGE = `The image field must be a file of type: ${ACCEPTED}.`;

export const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  gif: "image/gif",
  jpg: "image/jpeg",
  bmp: "image/bmp",
  webp: "image/webp",
  avif: "image/avif",
};

/** The image type of a file's first bytes, or undefined. */
function sniff(head: Buffer): string | undefined {
  const ascii = (from: number, to: number) => head.subarray(from, to).toString("latin1");
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "png";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpg";
  if (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a") return "gif";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "webp";
  if (ascii(4, 12) === "ftypavif" || ascii(4, 12) === "ftypavis") return "avif";
  if (ascii(0, 2) === "BM" && head.length >= 26) return "bmp";
  return undefined;
}

async function headOf(path: string): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(16), 0, 16, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** What a write asks of a record's image: a new file (staged at `path`), or none any more. */
export type ImageChange = { remove: true } | { remove: false; path: string; extension: string };

const DATA_URI = /^data:[^,;]*(?:;[^,;]*)*;base64,/i;
// A data URI's header (`data:image/png;base64,`) is short; the pattern only ever sees this much.
const DATA_URI_HEADER_LIMIT = 256;

function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === "1" || value === "true" || value === "on";
}

/**
 * The image change of a request body. `uploads` are the files staged for this request: an `image`
 * that is not one of them is text, never a path. A data URI is decoded into a staged file of its
 * own, which `stage` registers for removal with the request's other staged files.
 */
export async function imageChange(
  body: Record<string, unknown>,
  uploads: readonly SavedUpload[],
  storage: Storage,
  stage: (path: string) => void,
): Promise<ImageChange | undefined> {
  const given = body.image ?? body.image_source;
  if (given === undefined || given === null || given === "") {
    return truthy(body.image_delete) ? { remove: true } : undefined;
  }
  let path: string;
  if (uploads.includes(given as SavedUpload)) path = (given as SavedUpload).path;
  else if (typeof given === "string" && DATA_URI.test(given.slice(0, DATA_URI_HEADER_LIMIT))) {
    path = join(storage.incoming, generatedName());
    stage(path);
    await writeFile(path, Buffer.from(given.slice(given.indexOf(",") + 1), "base64"), { flag: "wx" });
  } else throw new Invalid("The given data was invalid.", { image: [NOT_AN_IMAGE] });
  const extension = sniff(await headOf(path));
  if (!extension) throw new Invalid("The given data was invalid.", { image: [NOT_AN_IMAGE] });
  return { remove: false, path, extension };
}

/** Keeps a new image in its table's folder; answers the name to store in the image column. */
export async function storeImage(
  storage: Storage,
  table: string,
  change: { path: string; extension: string },
) {
  const name = generatedName(change.extension);
  await keep(change.path, join(storage.images, IMAGE_COLUMNS[table].folder), name);
  return name;
}

/** Removes an image no record names any more. */
export async function removeImage(storage: Storage, table: string, name: unknown): Promise<void> {
  if (isStoredName(name)) await discard([join(storage.images, IMAGE_COLUMNS[table].folder, name)]);
}

/**
 * Runs a create (`id` undefined) or update of a `table` row with the image change its body asks
 * for (spec §7.4 `image`, `image_source`, `image_delete`): the new file is kept before the write and
 * removed again when the write fails; the file the row named before is removed once the write is
 * done. Tables without images write as they are. `staged` are the request's staged files; a file
 * decoded from a data URI joins them, to be removed with them.
 */
export async function writeWithImage(
  { database, storage }: { database: InventoryDatabase; storage: Storage },
  staged: SavedUpload[],
  body: Record<string, unknown>,
  table: string,
  id: number | undefined,
  write: (server: ServerColumns) => Promise<Row>,
): Promise<Row> {
  const image = IMAGE_COLUMNS[table];
  if (!image) return write({});
  const change = await imageChange(body, staged, storage, (path) =>
    staged.push({ field: "image", filename: "", mimetype: "", path, size: 0 }),
  );
  if (!change) return write({});
  const previous =
    id === undefined || !Number.isSafeInteger(id)
      ? undefined
      : await findRecord(database.db as AnyKysely, table, id, { softDeletes: true, trashed: "with" });
  const name = change.remove ? null : await storeImage(storage, table, change);
  let row: Row;
  try {
    row = await write({ [image.column]: name });
  } catch (error) {
    if (name !== null) await removeImage(storage, table, name);
    throw error;
  }
  // Another write of the same row meanwhile may have named a file that is now unreferenced; it stays.
  const before = previous?.[image.column];
  if (before !== undefined && before !== name) await removeImage(storage, table, before);
  return row;
}

/** The absolute URL of a record's image, or null when it has none. */
export function imageUrl(caller: Pick<Caller, "rootUrl">, table: string, name: unknown): string | null {
  if (!isStoredName(name)) return null;
  return publicUrl(caller.rootUrl, `uploads/${IMAGE_COLUMNS[table].folder}/${name}`).href;
}
