// The hook runner's HTTP surface (spec §6) on plain node:http: every response must match what
// webhook's Go net/http sends, and the hot path must stay lean. Requests that arrive before the
// hooks are loaded wait, as they wait in webhook's listen backlog.

import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import https from "node:https";
import type net from "node:net";
import type { Duplex } from "node:stream";
import type { HooksConfig } from "../cli/flags.ts";
import type { Executor } from "../command/executor.ts";
import { errnoText } from "../go/errors.ts";
import type { Logger } from "../log/logger.ts";
import { DescriptorBudget } from "./descriptors.ts";
import { type Exchange, logExchange, openExchange, remoteAddr } from "./exchange.ts";
import { FastPath, type PlainRequest } from "./fast-path.ts";
import { isToken } from "./header.ts";
import { HookHandler, type HookLookup, TEXT } from "./hook-handler.ts";
import { behaveLikeGo, GO_MAX_HEADER_SIZE, type Listener } from "./listen.ts";
import { type HeaderList, keepAliveResponse, rawResponse, sendResponse, statusText } from "./response.ts";
import { createRouter } from "./route.ts";
import { opensslCiphers, tlsMinVersion } from "./tls.ts";

export interface HooksServerOptions {
  config: HooksConfig;
  listener: Listener;
  hooks: HookLookup;
  executor: Executor;
  logger: Logger;
}

const EMPTY: Buffer = Buffer.alloc(0);
const NO_HEADERS: HeaderList = [];
/** What http.Error writes (the router's 404, the recoverer's 500). */
const ERROR_HEADERS: HeaderList = [
  ["Content-Type", TEXT],
  ["X-Content-Type-Options", "nosniff"],
];
const OK = Buffer.from("OK");
const ROUTER_NOT_FOUND = Buffer.from("404 page not found\n");
const INTERNAL_ERROR = Buffer.from("Internal Server Error\n");
const SHUTTING_DOWN = Buffer.from("The server is shutting down.\n");
const NO_DESCRIPTORS = rawResponse(
  503,
  [["Retry-After", "1"]],
  Buffer.from("Too many open connections for the open file limit; retry later.\n"),
  TEXT,
);
/** net/http's own answer to a request it cannot parse; it closes the connection after. */
function goRequestError(status: 400 | 408 | 431): string {
  const text = `${status} ${statusText(status)}`;
  return `HTTP/1.1 ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${text}`;
}
const BAD_REQUEST = goRequestError(400);
/** Node's parser errors that Go answers with its own status. */
const CLIENT_ERROR_STATUS: Record<string, 408 | 431> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

export class HooksServer {
  readonly #config: HooksConfig;
  readonly #logger: Logger;
  readonly #listener: Listener;
  readonly #route: ReturnType<typeof createRouter>;
  readonly #hooks: HookHandler;
  #tls: https.Server | undefined;
  /** Plain HTTP only: TLS connections reach node:https through the TLS front. */
  readonly #fast: FastPath | undefined;
  #ready = false;
  #waiting: [IncomingMessage, ServerResponse][] = [];
  #closed = false;
  /** Hook requests still being answered, and who waits for them all to finish. */
  #active = 0;
  #onIdle: (() => void) | undefined;
  #budget: DescriptorBudget | undefined;
  /** When a refused connection was last logged (one line a second at most). */
  #refusedLogged = 0;

  constructor(options: HooksServerOptions) {
    this.#config = options.config;
    this.#logger = options.logger;
    this.#listener = options.listener;
    this.#route = createRouter(options.config.urlprefix);
    this.#hooks = new HookHandler(options);
    this.#listener.http.on("request", this.#onRequest);
    this.#listener.http.on("clientError", this.#onClientError);
    if (!options.config.secure) this.#fast = new FastPath(this.#listener.http, this.#answerDirectly);
  }

  /** The address for humans and logs: `http://0.0.0.0:9000`, `http://{unix:/run/hooks.sock}`. */
  get displayAddress(): string {
    const { secure, socket, ip, port } = this.#config;
    return `${secure ? "https" : "http"}://${socket !== "" ? `{unix:${socket}}` : `${ip}:${port}`}`;
  }

  /** The address clients can use (the real port when -port 0 was asked for). */
  get url(): string {
    const address = this.#listener.socket.address();
    if (address === null || typeof address === "string") return this.displayAddress;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return `${this.#config.secure ? "https" : "http"}://${host}:${address.port}`;
  }

  /**
   * Starts answering (queued requests first). With -secure this loads the certificate; webhook
   * logs a failure there and exits 0, so the error is thrown for the caller to do the same.
   */
  async start(): Promise<void> {
    if (this.#config.secure) {
      const load = (file: string) =>
        readFile(file).catch((error) => {
          throw new Error(`open ${file}: ${errnoText(error)}`);
        });
      // In Go's order: with both missing, the certificate is the one named.
      const cert = await load(this.#config.cert);
      const key = await load(this.#config.key);
      this.#tls = https.createServer(
        {
          cert,
          key,
          minVersion: tlsMinVersion(this.#config.tlsMinVersion),
          ciphers: opensslCiphers(this.#config.cipherSuites),
          honorCipherOrder: true,
          ecdhCurve: "P-521:P-384:P-256",
          maxHeaderSize: GO_MAX_HEADER_SIZE,
        },
        this.#onRequest,
      );
      behaveLikeGo(this.#tls);
      this.#tls.on("clientError", this.#onClientError);
      this.#listener.useTls(this.#tls);
    }
    this.#budget = new DescriptorBudget();
    this.#listener.socket.on("connection", this.#onConnection);
    this.#ready = true;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const [req, res] of waiting) this.#serve(req, res);
  }

  /**
   * Stops accepting connections and requests (a request on an open connection gets 503), answers
   * 503 to requests still sending their body, lets the others finish, closes the connections
   * (and a Unix socket file).
   */
  async close(): Promise<void> {
    const socket = this.#listener.socket;
    const closed = this.#closed ? Promise.resolve() : new Promise((resolve) => socket.close(resolve));
    this.#closed = true;
    this.#ready = false;
    for (const [req, res] of this.#waiting.splice(0)) this.#refuse(req, res);
    this.#hooks.close();
    this.#fast?.closeAll();
    this.#listener.http.closeIdleConnections();
    this.#tls?.closeIdleConnections();
    if (this.#active > 0) await new Promise<void>((resolve) => (this.#onIdle = resolve));
    this.#listener.http.closeAllConnections();
    this.#tls?.closeAllConnections();
    await closed;
  }

  /** A connection beyond the open file limit's share: 503 (plain HTTP only) and closed at once. */
  readonly #onConnection = (socket: net.Socket): void => {
    if (this.#budget?.admit(socket) !== false) return;
    if (!this.#config.secure) socket.write(NO_DESCRIPTORS);
    socket.destroy();
    const now = Date.now();
    if (now - this.#refusedLogged >= 1000) {
      this.#refusedLogged = now;
      this.#logger.log("refusing connections: too close to the open file limit (ulimit -n)");
    }
  };

  readonly #onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (this.#ready) this.#serve(req, res);
    else if (this.#closed) this.#refuse(req, res);
    else this.#waiting.push([req, res]);
  };

  /** A request that arrives during shutdown: 503, and the connection is closed after it. */
  #refuse(req: IncomingMessage, res: ServerResponse): void {
    res.shouldKeepAlive = false;
    sendResponse(res, req.method === "HEAD", 503, NO_HEADERS, SHUTTING_DOWN, TEXT);
  }

  /**
   * The fast path's question: the whole answer to a request that does not wait for a command, as
   * node:http's path would send it, or undefined to leave the request to that path. Requests that
   * are logged, and those that arrive before the hooks are loaded or during shutdown, always take
   * that path.
   */
  readonly #answerDirectly = (request: PlainRequest, socket: net.Socket): string | undefined => {
    if (!this.#ready || this.#logger.enabled) return undefined;
    const route = this.#route(request.target);
    if (route.kind === "not-found") return keepAliveResponse(404, ERROR_HEADERS, ROUTER_NOT_FOUND, TEXT);
    if (route.kind !== "hook") return undefined;
    const parts = {
      method: request.method,
      url: request.target,
      rawHeaders: request.rawHeaders,
      remoteAddr: remoteAddr({ socket }),
    };
    const answer = this.#hooks.answerDirectly(parts, route.id);
    // A hook fired here has an answer keepAliveResponse writes: node:http never gets it again.
    return answer && keepAliveResponse(answer.status, answer.headers, answer.body, answer.contentType);
  };

  /** Node's parser refused the request; answer what Go would, as far as it can be known. */
  readonly #onClientError = (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    let answer: string | undefined;
    if (error.code === "HPE_INVALID_METHOD" && error.rawPacket !== undefined) {
      const line = error.rawPacket.toString("latin1", 0, error.rawPacket.indexOf("\r\n"));
      const [method, target, version] = line.split(" ");
      if (isToken(method) && target !== undefined && /^HTTP\/1\.[01]$/.test(version ?? "")) {
        answer = this.#answerUnparsed(method, target);
      }
    }
    const status = error.code === undefined ? undefined : CLIENT_ERROR_STATUS[error.code];
    socket.end(answer ?? goRequestError(status ?? 400));
  };

  #answerUnparsed(method: string, target: string): string | undefined {
    const route = this.#route(target);
    switch (route.kind) {
      case "bad-request":
        return BAD_REQUEST;
      case "redirect":
        return rawResponse(301, [["Location", route.location]], EMPTY);
      case "not-found":
        return rawResponse(404, ERROR_HEADERS, ROUTER_NOT_FOUND, TEXT);
      case "root":
        return rawResponse(200, NO_HEADERS, OK, TEXT);
      case "hook":
        return this.#hooks.refuseUnparsed(method, route.id);
    }
  }

  #serve(req: IncomingMessage, res: ServerResponse): void {
    const target = req.url ?? "/";
    const isHead = req.method === "HEAD";
    if (target === "*" && req.method === "OPTIONS") {
      sendResponse(res, isHead, 200, [["Content-Length", "0"]], EMPTY);
      return;
    }
    const route = this.#route(target);
    switch (route.kind) {
      case "bad-request":
        res.socket?.end(BAD_REQUEST);
        return;
      case "redirect":
        sendResponse(res, isHead, 301, [["Location", route.location]], EMPTY);
        return;
      case "not-found":
        sendResponse(res, isHead, 404, ERROR_HEADERS, ROUTER_NOT_FOUND, TEXT);
        return;
      case "root": {
        // 2.8.0 sends no -header on `/` (2.8.1 started to).
        const exchange = openExchange(req, res, this.#config, this.#logger);
        logExchange(this.#logger, exchange, sendResponse(res, isHead, 200, NO_HEADERS, OK, TEXT), OK);
        return;
      }
      case "hook": {
        const exchange = openExchange(req, res, this.#config, this.#logger);
        let pending: Promise<void> | undefined;
        try {
          pending = this.#hooks.handle(exchange, route.id);
        } catch (error) {
          this.#internalError(exchange, error);
        }
        if (pending !== undefined) this.#track(exchange, pending);
      }
    }
  }

  #track(exchange: Exchange, pending: Promise<void>): void {
    this.#active++;
    const settle = () => {
      if (--this.#active === 0) this.#onIdle?.();
    };
    pending.then(settle, (error: unknown) => {
      this.#internalError(exchange, error);
      settle();
    });
  }

  /** A bug, not a request problem: answered as Go's recoverer middleware answers a panic. */
  #internalError(exchange: Exchange, error: unknown): void {
    const { req, res } = exchange;
    this.#logger.log(`[${exchange.rid}] panic: ${error instanceof Error ? error.stack : String(error)}`);
    if (res.headersSent) res.destroy();
    else sendResponse(res, req.method === "HEAD", 500, ERROR_HEADERS, INTERNAL_ERROR, TEXT);
  }
}
