import type { FastifyRequest } from "fastify";
import { redactQuery } from "../log/redact.ts";

/**
 * How a request appears in the log (fastify's "incoming request" line and every line logged with
 * `{req}`): the URL with secret query values hidden, because Gitea clients may send `?token=` or
 * `?access_token=`, and no headers at all.
 */
export function requestLogFields(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactQuery(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
