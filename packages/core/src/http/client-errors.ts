import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { ErrorBody, HttpProblem } from "./problem.ts";

/** How long a connection answered with an error may go on sending before it is cut. */
const CLOSE_GRACE_MS = 5000;

/**
 * Ends a connection once its answer is written, then reads and drops whatever the client is still
 * sending (the rest of a request line, a body) until it closes or the grace runs out: closing with
 * unread data would reset the connection, and the client could lose the answer it was sent.
 */
export function closeAfterAnswer(socket: Duplex, answer?: string): void {
  socket.end(answer);
  socket.resume();
  const cut = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  cut.unref();
  socket.once("close", () => clearTimeout(cut));
}

const STATUS_OF: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  ERR_HTTP_REQUEST_HEADERS_TIMEOUT: 408,
};

// Node keeps feeding a connection's data to its failed parser and reports each failure again.
const answered = new WeakSet<Duplex>();

/**
 * Node's clientError: a request that could not be read (a method the parser does not know, a URL
 * or headers over the limit, a client too slow). It gets the API's own error body, like any other
 * transport problem, and the connection closes after the answer is out.
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  map: (problem: HttpProblem) => ErrorBody,
): void {
  if (error.code === "ECONNRESET" || socket.destroyed || answered.has(socket)) return;
  answered.add(socket);
  // An answer already under way cannot be followed by another one on the same connection.
  if (
    !socket.writable ||
    (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent
  ) {
    socket.destroy();
    return;
  }
  const status = STATUS_OF[error.code ?? ""] ?? 400;
  const mapped = map({
    kind: "transport",
    status,
    reason: "bad-request",
    message: STATUS_CODES[status] ?? "",
  });
  const body = JSON.stringify(mapped.body);
  const headers = {
    ...mapped.headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  closeAfterAnswer(
    socket,
    `HTTP/1.1 ${mapped.status} ${STATUS_CODES[mapped.status]}\r\n${head.join("")}\r\n${body}`,
  );
}
