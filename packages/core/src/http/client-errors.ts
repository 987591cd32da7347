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

/** Node's clientError: the data it failed on comes as `rawPacket` when the parser failed. */
type ClientError = NodeJS.ErrnoException & { rawPacket?: Buffer };

// A request line whose method is not HEAD, at the start of the data Node failed on.
const NOT_HEAD = /^(?!HEAD )[!#$%&'*+.^_`|~0-9A-Za-z-]+ /;

/**
 * Whether the failed request is known to expect a body in its answer. An answer to HEAD never
 * carries one (its bytes would be read as the next answer), and Node tells only the chunk it failed
 * on: a request line split over several chunks (a long URL sent slowly) has a method no one knows,
 * and is answered without a body, as Node itself answers.
 */
function expectsBody(error: ClientError): boolean {
  return error.rawPacket !== undefined && NOT_HEAD.test(error.rawPacket.subarray(0, 32).toString("latin1"));
}

// Node keeps feeding a connection's data to its failed parser and reports each failure again.
const answered = new WeakSet<Duplex>();

/**
 * Node's clientError: a request that could not be read (a method the parser does not know, a URL
 * or headers over the limit, a client too slow). It gets the API's own error body, like any other
 * transport problem, and the connection closes after the answer is out.
 */
export function answerClientError(
  error: ClientError,
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
  // Without a body nor its length, the answer ends where the connection does.
  const body = expectsBody(error) ? JSON.stringify(mapped.body) : "";
  const headers = {
    ...mapped.headers,
    ...(body && {
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(body)),
    }),
    connection: "close",
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  closeAfterAnswer(
    socket,
    `HTTP/1.1 ${mapped.status} ${STATUS_CODES[mapped.status]}\r\n${head.join("")}\r\n${body}`,
  );
}
