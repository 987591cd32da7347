import type { FastifyRequest } from "fastify";
import type { Row } from "../../repositories/records.ts";
import { writeWithImage } from "../../services/images.ts";
import type { ServerColumns } from "../../services/resource.ts";
import type { ApiContext } from "./context.ts";

/**
 * Runs a create (`id` undefined) or update of a `table` row with the image change the request's
 * body asks for (services/images.ts `writeWithImage`); a file it stages is removed with the
 * request's uploads.
 */
export function withImage(
  context: ApiContext,
  request: FastifyRequest,
  body: Record<string, unknown>,
  table: string,
  id: number | undefined,
  write: (server: ServerColumns) => Promise<Row>,
): Promise<Row> {
  request.uploads ??= [];
  return writeWithImage(context, request.uploads, body, table, id, write);
}
