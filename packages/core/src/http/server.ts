import { randomUUID } from "node:crypto";
import { type IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { defaultUploadLimits, registerBodyParsers, type UploadLimits } from "./bodies.ts";
import { hasNul, refuseNul } from "./body-check.ts";
import { answerClientError, closeAfterAnswer } from "./client-errors.ts";
import { classifyError, type ErrorMapper, type HttpProblem } from "./problem.ts";
import { requestLogFields } from "./request-log.ts";
import { boundNumbers, createValidator } from "./validator.ts";

/** Which proxies may set X-Forwarded-For/-Proto/-Host: none (false), all (true), or a list of addresses and CIDR ranges. */
export type TrustProxy = boolean | string[];

export interface OpenApiOptions {
  title: string;
  version: string;
  /** Paths where the service's OpenAPI document is served as JSON. */
  paths: string[];
}

export interface HttpServerOptions {
  logger: Logger;
  mapError: ErrorMapper;
  /**
   * The public URL clients reach the service at (a reverse proxy's, not the Host header):
   * absolute URLs in Link headers and error bodies are built from it. A function when it is known
   * only after listening (port 0).
   */
  rootUrl: URL | (() => URL);
  /** Largest accepted request body in bytes (JSON and forms; uploads have their own limits). */
  bodyLimit?: number;
  uploads?: UploadLimits;
  trustProxy?: TrustProxy;
  openapi?: OpenApiOptions;
  /**
   * Whether a JSON body value of the wrong type is refused (Gitea: `"username": 12` is a 422)
   * rather than converted (Laravel takes `"status_id": "2"`, and a form has only strings).
   * Query strings and path parameters are always converted: they are text.
   */
  strictBodyTypes?: boolean;
  /**
   * Whether `null` for a member of a JSON body means "not given" (Go's decoder, so Gitea's API):
   * the member is removed before validation, and a `null` body reads as `{}`.
   */
  nullMeansAbsent?: boolean;
}

export type HttpServer = FastifyInstance<
  import("node:http").Server,
  import("node:http").IncomingMessage,
  import("node:http").ServerResponse,
  Logger,
  TypeBoxTypeProvider
>;

declare module "fastify" {
  interface FastifyRequest {
    /** The request's URL as the client sees it, built on the service's root URL. */
    readonly publicUrl: URL;
    /** The service's root URL (the `root-url` setting), for the absolute URLs an answer carries. */
    readonly rootUrl: URL;
  }
  interface FastifyContextConfig {
    /**
     * The route's authentication and permission check, when it is known from the request alone
     * (not from the object it names). It runs before the body is read: a caller who may not call
     * the route costs no body parsing, and no file of theirs is staged (see saveUploads).
     */
    authorize?: (request: FastifyRequest) => unknown;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
// Methods whose body both APIs ignore, as their originals do, unless the route declares one.
const BODY_IGNORED = new Set(["GET", "HEAD", "DELETE"]);
// Node's own limit on a request's headers, request line included (its default --max-http-header-size).
const MAX_PARAM_LENGTH = 16 * 1024;

function rootUrlOf(option: HttpServerOptions["rootUrl"]): () => URL {
  return typeof option === "function" ? option : () => option;
}

/**
 * A request target resolved under the root URL, keeping the root's sub-path. Only the target's
 * path and query count: an absolute-form target (`GET http://elsewhere/x`) or `//host/x` cannot
 * move the result to another host.
 */
export function publicUrl(rootUrl: URL, url: string): URL {
  const target = new URL(url, "http://request.invalid");
  const base = rootUrl.href.endsWith("/") ? rootUrl.href : `${rootUrl.href}/`;
  return new URL(`${target.pathname.replace(/^\/+/, "")}${target.search}`, base);
}

/**
 * The fastify instance every HTTP service starts from: TypeBox schemas, request ids (a client's
 * X-Request-Id is kept when it is sane), body parsers and limits, the OpenAPI document, a log line
 * per request with secrets hidden, and one place where every failure becomes the API's error
 * response (see problem.ts). Add routes after this resolves, so they appear in the OpenAPI document.
 */
export async function createHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const rootUrl = rootUrlOf(options.rootUrl);
  const bodyLimit = options.bodyLimit ?? 10 * 1024 * 1024;
  const answer = (reply: FastifyReply, request: FastifyRequest, problem: HttpProblem) => {
    const mapped = options.mapError(problem, { request, rootUrl: rootUrl() });
    if (mapped.headers) reply.headers(mapped.headers);
    return reply.status(mapped.status).send(mapped.body);
  };
  const app = Fastify({
    loggerInstance: options.logger.child({}, { serializers: { req: requestLogFields } }),
    bodyLimit,
    trustProxy: options.trustProxy ?? false,
    // Read by genReqId, which keeps a client's id only when it is sane.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // A path parameter is as long as the request line lets it be (a milestone is named by a title
    // of up to 255 characters); the route decides what is too long, in the API's words.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // What the router refuses before any route (a path with an invalid percent-escape), too.
    frameworkErrors: (error, request, reply) => answer(reply, request, classifyError(error, request)),
    forceCloseConnections: "idle",
    // A request Node could not read (an unknown method, headers over the limit, too slow): answered
    // in the API's shape too, though no route and no request object exist.
    clientErrorHandler: (error: NodeJS.ErrnoException, socket: Duplex) =>
      answerClientError(error, socket, (problem) => options.mapError(problem, { rootUrl: rootUrl() })),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpServer;

  const bodyValidator = createValidator(options.strictBodyTypes ? false : "array");
  const textValidator = createValidator("array");
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === "body" ? bodyValidator : textValidator).compile(boundNumbers(schema)),
  );

  app.decorateRequest("publicUrl", {
    getter(this: FastifyRequest) {
      return publicUrl(rootUrl(), this.url);
    },
  });
  app.decorateRequest("rootUrl", { getter: rootUrl });

  // A callback hook, not an async one: it runs on every request and has nothing to wait for. It is
  // the first hook, so no service hook (authentication reads `?token=`, `?sudo=`) nor any query
  // sees a NUL character: a path naming one names nothing, a query holding one is invalid.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    // Node refuses a raw NUL in a request line, so one can only come percent-encoded.
    if (!request.url.includes("%00")) return done();
    const params = request.params as Record<string, string> | undefined;
    if (params && Object.values(params).some(hasNul)) {
      const path = request.url.split("?")[0];
      answer(reply, request, { kind: "route-not-found", method: request.method, path, allowedMethods: [] });
      return;
    }
    try {
      refuseNul(request.query);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });

  // A callback hook too: most routes have no `authorize`, and they should not pay for a promise.
  app.addHook("preParsing", (request, _reply, payload, done) => {
    // One read: fastify builds the route options object anew on every access.
    const { schema, config } = request.routeOptions;
    if (BODY_IGNORED.has(request.method) && !schema?.body) {
      // Not read at all, whatever its type: Node discards it once the answer is sent.
      delete request.headers["content-type"];
      delete request.headers["content-length"];
      delete request.headers["transfer-encoding"];
    }
    const authorize = config.authorize;
    if (!authorize) return done(null, payload);
    Promise.resolve()
      .then(() => authorize(request))
      .then(() => done(null, payload), done);
  });

  app.setErrorHandler((error, request, reply) => {
    const problem = classifyError(error, request);
    if (problem.kind === "unexpected") request.log.error({ err: error }, "unhandled error");
    return answer(reply, request, problem);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0];
    const allowedMethods = METHODS.filter(
      (method) => method !== request.method && app.findRoute({ method, url: path }) !== null,
    );
    const page = unknownPathPages.get(app);
    if (page && allowedMethods.length === 0 && wantsPage(request, path)) return page(request, reply);
    return answer(reply, request, { kind: "route-not-found", method: request.method, path, allowedMethods });
  });

  app.server.on("connect", (request: IncomingMessage, socket: Duplex) => answerConnect(app, request, socket));

  await registerBodyParsers(app as unknown as FastifyInstance, {
    bodyLimit,
    uploads: options.uploads ?? defaultUploadLimits,
    nullMeansAbsent: options.nullMeansAbsent ?? false,
  });
  if (options.openapi) await registerOpenApi(app, options.openapi);
  return app;
}

/**
 * Node hands a CONNECT request to `connect` listeners and, without one, drops the connection
 * unanswered. Neither API tunnels, so CONNECT is routed like any method no route knows (404 or
 * 405 in the API's shape), and the connection closes once that answer is out.
 */
/** What answers a browser that asked for a path no route has, where a service has web pages. */
export type UnknownPathPage = (request: FastifyRequest, reply: FastifyReply) => unknown;

const unknownPathPages = new WeakMap<object, UnknownPathPage>();

/**
 * Lets a service's web pages answer a browser's GET of a path no route has (outside /api, asking
 * for HTML) with a page of their own; API clients still get the API's not-found answer.
 */
export function setUnknownPathPage(app: HttpServer, page: UnknownPathPage): void {
  unknownPathPages.set(app, page);
}

function wantsPage(request: FastifyRequest, path: string): boolean {
  return (
    (request.method === "GET" || request.method === "HEAD") &&
    !/^\/api(?:\/|$)/.test(path) &&
    String(request.headers.accept ?? "").includes("text/html")
  );
}

function answerConnect(app: HttpServer, request: IncomingMessage, socket: Duplex): void {
  // Node took its own listeners off the socket when it handed it over: a client that resets the
  // connection must not become an uncaught error.
  socket.on("error", () => socket.destroy());
  const response = new ServerResponse(request);
  response.shouldKeepAlive = false;
  response.assignSocket(socket as import("node:net").Socket);
  response.on("finish", () => {
    response.detachSocket(socket as import("node:net").Socket);
    closeAfterAnswer(socket);
  });
  app.server.emit("request", request, response);
}

async function registerOpenApi(app: HttpServer, openapi: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    openapi: { info: { title: openapi.title, version: openapi.version } },
  });
  for (const path of openapi.paths) {
    app.get(path, { schema: { hide: true } }, async () => app.swagger());
  }
}
