// Answers that do not wait for a command, written straight on the socket. For an unknown hook id,
// a rule mismatch or a hook whose command runs in the background, node:http's own work (parser
// callbacks, IncomingMessage, ServerResponse and their events) costs more than everything else the
// answer takes, and on a busy machine that decides whether the runner keeps up with webhook's Go
// server. So connections come here first: a request this file fully understands (see
// parsePlainRequest) is answered here when the server has an answer for it at once; anything else,
// and everything after it on that connection, goes to node:http as if the connection had been its
// own from the start. The answers are the bytes node:http would send (response.ts builds both).

import type http from "node:http";
import type net from "node:net";
import { isToken } from "./header.ts";

/** A request as the fast path read it. */
export interface PlainRequest {
  method: string;
  target: string;
  /** Names and values in turn, as Node's `rawHeaders` (values without surrounding blanks). */
  rawHeaders: string[];
}

/** The whole response to a request, or undefined to leave the request to node:http. */
export type DirectAnswer = (request: PlainRequest, socket: net.Socket) => string | undefined;

/** Larger reads are not the small requests this path is for. */
const MAX_REQUEST = 8192;
/** A header value here: visible ASCII, space and tab (no obs-text, no control bytes). */
const VALUE = /^[\t\x20-\x7e]*$/;
/** An origin-form target of RFC 3986 characters (Node and Go differ on some others). */
const TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;

export class FastPath {
  readonly #server: http.Server;
  readonly #answer: DirectAnswer;
  /** node:http's own connection handler: it gets the connections the fast path hands over. */
  readonly #nodeConnection: (socket: net.Socket) => void;
  readonly #sockets = new Set<net.Socket>();

  /** Takes over the connections of `server`, a plain HTTP server. */
  constructor(server: http.Server, answer: DirectAnswer) {
    this.#server = server;
    this.#answer = answer;
    const [nodeConnection] = server.listeners("connection") as ((socket: net.Socket) => void)[];
    this.#nodeConnection = nodeConnection;
    server.removeListener("connection", nodeConnection);
    server.prependListener("connection", this.#accept);
  }

  /** Shutdown: connections still here are idle (every answer here is written at once). */
  closeAll(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  readonly #accept = (socket: net.Socket): void => {
    this.#sockets.add(socket);
    const onData = (chunk: Buffer) => {
      const answer = this.#answerOf(chunk, socket);
      if (answer === undefined) return handOver(chunk);
      socket.write(answer, "latin1");
      // A client that does not read its answers: node:http knows how to wait for it.
      if (socket.writableNeedDrain) handOver(undefined);
    };
    // The client closed its sending side; nothing is pending here, so the connection ends (Go
    // does the same for an idle connection).
    const onEnd = () => socket.end();
    const onError = () => socket.destroy();
    const onClose = () => this.#sockets.delete(socket);
    const handOver = (unread: Buffer | undefined) => {
      socket.removeListener("data", onData);
      socket.removeListener("end", onEnd);
      socket.removeListener("error", onError);
      socket.removeListener("close", onClose);
      this.#sockets.delete(socket);
      this.#nodeConnection.call(this.#server, socket);
      if (unread !== undefined) socket.unshift(unread);
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("error", onError);
    socket.on("close", onClose);
  };

  #answerOf(chunk: Buffer, socket: net.Socket): string | undefined {
    const request = chunk.length <= MAX_REQUEST ? parsePlainRequest(chunk) : undefined;
    if (request === undefined) return undefined;
    try {
      return this.#answer(request, socket);
    } catch {
      // node:http's path meets the same fault and answers it as Go's recoverer would, with a log line.
      return undefined;
    }
  }
}

/**
 * `chunk` as a request when it is exactly one whole request of the kind this path serves: `GET`
 * or `POST`, an origin-form target, HTTP/1.1, header lines of a token name and a plain value,
 * exactly one Host, no body (no Transfer-Encoding, at most `Content-Length: 0`), no Expect or
 * Upgrade, no Connection header but `keep-alive`. Anything else is undefined: node:http reads it.
 */
export function parsePlainRequest(chunk: Buffer): PlainRequest | undefined {
  const text = chunk.toString("latin1");
  const end = text.length - 2;
  // The one blank line ends the chunk: no body, no second request, nothing missing.
  if (text.indexOf("\r\n\r\n") !== end - 2) return undefined;
  let lineEnd = text.indexOf("\r\n");
  const firstSpace = text.indexOf(" ");
  const lastSpace = text.lastIndexOf(" ", lineEnd);
  if (firstSpace < 0 || lastSpace <= firstSpace || text.slice(lastSpace + 1, lineEnd) !== "HTTP/1.1") {
    return undefined;
  }
  const method = text.slice(0, firstSpace);
  const target = text.slice(firstSpace + 1, lastSpace);
  if ((method !== "GET" && method !== "POST") || !TARGET.test(target)) return undefined;
  const rawHeaders: string[] = [];
  let hosts = 0;
  let contentLength = false;
  for (let start = lineEnd + 2; start < end; start = lineEnd + 2) {
    lineEnd = text.indexOf("\r\n", start);
    const colon = text.indexOf(":", start);
    if (colon < 0 || colon > lineEnd) return undefined;
    const name = text.slice(start, colon);
    const value = text.slice(colon + 1, lineEnd).replace(/^[ \t]+|[ \t]+$/g, "");
    if (!isToken(name) || !VALUE.test(value)) return undefined;
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === "host") hosts++;
        break;
      case 6:
      case 7:
      case 17: {
        const lower = name.toLowerCase();
        if (lower === "expect" || lower === "upgrade" || lower === "transfer-encoding") return undefined;
        break;
      }
      case 10:
        if (name.toLowerCase() === "connection" && value.toLowerCase() !== "keep-alive") return undefined;
        break;
      case 14:
        if (name.toLowerCase() === "content-length") {
          if (contentLength || value !== "0") return undefined;
          contentLength = true;
        }
        break;
    }
    rawHeaders.push(name, value);
  }
  return hosts === 1 ? { method, target, rawHeaders } : undefined;
}
