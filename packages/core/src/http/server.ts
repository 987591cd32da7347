import { randomUUID } from "node:crypto";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import type { Logger } from "pino";
import { DomainError, Invalid, NotFound } from "../errors.ts";

export interface ErrorBody {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Turns a domain error into the API's own error body; one per service. */
export type ErrorMapper = (error: DomainError, request: FastifyRequest) => ErrorBody;

export interface HttpServerOptions {
  logger: Logger;
  mapError: ErrorMapper;
  /** Largest accepted request body in bytes (JSON and forms; uploads set their own). */
  bodyLimit?: number;
}

export type HttpServer = FastifyInstance<
  import("node:http").Server,
  import("node:http").IncomingMessage,
  import("node:http").ServerResponse,
  Logger,
  TypeBoxTypeProvider
>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The fastify instance every HTTP service starts from: TypeBox schemas, request ids (a client's
 * X-Request-Id is kept when it is sane), a body limit, and one place where thrown errors become
 * the API's error shape. Anything that is not a DomainError is logged and answered as a 500
 * without internals.
 */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: options.bodyLimit ?? 10 * 1024 * 1024,
    // Read by genReqId, which keeps a client's id only when it is sane.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    forceCloseConnections: "idle",
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpServer;

  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  const send = (reply: FastifyReply, request: FastifyRequest, error: DomainError) => {
    const mapped = options.mapError(error, request);
    if (mapped.headers) reply.headers(mapped.headers);
    return reply.status(mapped.status).send(mapped.body);
  };

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DomainError) return send(reply, request, error);
    if (error.validation) {
      const details: Record<string, string[]> = {};
      for (const issue of error.validation) {
        const field =
          issue.instancePath.replace(/^\//, "").replaceAll("/", ".") ||
          String(issue.params?.missingProperty ?? error.validationContext ?? "body");
        details[field] = [...(details[field] ?? []), issue.message ?? "is invalid"];
      }
      return send(reply, request, new Invalid(error.message, details));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // fastify's own client errors (bad JSON, body too large, unsupported media type).
      return send(reply, request, new Invalid(error.message));
    }
    request.log.error({ err: error }, "unhandled error");
    return reply.status(500).send({ message: "internal server error" });
  });

  app.setNotFoundHandler((request, reply) =>
    send(reply, request, new NotFound(`${request.method} ${request.url.split("?")[0]} not found`)),
  );

  return app;
}
