import type { AnyKysely } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import type { Row } from "../../repositories/records.ts";
import { IMAGE_COLUMNS, imageChange, removeImage, storeImage } from "../../services/images.ts";
import type { ServerColumns } from "../../services/resource.ts";
import type { ApiContext } from "./context.ts";

/**
 * Runs a create (`id` undefined) or update of a `table` row with the image change its body asks
 * for (spec §7.4 `image`, `image_source`, `image_delete`): the new file is kept before the write and
 * removed again when the write fails; the file the row named before is removed once the write is
 * done. Tables without images write as they are.
 */
export async function withImage(
  { database, storage }: ApiContext,
  request: FastifyRequest,
  body: Record<string, unknown>,
  table: string,
  id: number | undefined,
  write: (server: ServerColumns) => Promise<Row>,
): Promise<Row> {
  const image = IMAGE_COLUMNS[table];
  if (!image) return write({});
  request.uploads ??= [];
  const staged = request.uploads;
  const change = await imageChange(body, staged, storage, (path) =>
    staged.push({ field: "image", filename: "", mimetype: "", path, size: 0 }),
  );
  if (!change) return write({});
  const previous =
    id === undefined || !Number.isSafeInteger(id)
      ? undefined
      : await (database.db as AnyKysely)
          .selectFrom(table)
          .select(image.column)
          .where("id", "=", id)
          .executeTakeFirst();
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
