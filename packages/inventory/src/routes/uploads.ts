import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { HttpServer } from "@anvil/core";
import { Type } from "typebox";
import { IMAGE_FOLDERS, IMAGE_TYPES } from "../services/images.ts";
import { isStoredName, type Storage } from "../services/storage.ts";

const Params = Type.Object({ folder: Type.String(), name: Type.String() });

/**
 * Records' images at the absolute URLs their objects show (`image`, `avatar`), without a token, as
 * Snipe-IT's web server serves its public uploads. Only names the server generated are looked up.
 */
export function registerUploadedImages(app: HttpServer, storage: Storage): void {
  app.get("/uploads/:folder/:name", { schema: { hide: true, params: Params } }, async (request, reply) => {
    const { folder, name } = request.params as { folder: string; name: string };
    const type = IMAGE_TYPES[name.slice(name.lastIndexOf(".") + 1)];
    const missing = () =>
      reply.status(404).send({ status: "error", messages: "File not found", payload: null });
    if (!IMAGE_FOLDERS.has(folder) || !isStoredName(name) || !type) return missing();
    const path = join(storage.images, folder, name);
    const found = await stat(path).catch(() => undefined);
    if (!found?.isFile()) return missing();
    return reply
      .header("content-type", type)
      .header("content-length", found.size)
      .header("x-content-type-options", "nosniff")
      .header("cache-control", "public, max-age=86400")
      .send(createReadStream(path));
  });
}
