// A minimal HTTP/1.1 client over a plain socket. node:http would upper-case the method, add its own
// headers and normalise the path, and some cases must send exactly what a user's client could send
// (`get`, `//hooks/x`, a header twice), so the request bytes are written by hand here.
import net from "node:net";
import tls from "node:tls";

export interface HttpRequest {
  method: string;
  /** Sent verbatim on the request line, query string included. */
  path: string;
  /** In order; a name may repeat. Host, Content-Length and Connection are added unless given. */
  headers: [string, string][];
  body: Buffer;
  /** Over TLS (for -secure servers; their certificate is a throw-away self-signed one). */
  tls?: boolean;
  /** Close the sending side once the request is written (shutdown(SHUT_WR)), then read the answer. */
  halfClose?: boolean;
}

export interface HttpResponse {
  status: number;
  /** The reason phrase of the status line (`OK`, `Not Found`, …). */
  reason: string;
  /** As received, in order, names as the server spelled them. */
  headers: [string, string][];
  body: Buffer;
}

const timeoutMs = 10_000;

export function sendRequest(port: number, request: HttpRequest): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const socket = request.tls
      ? tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false })
      : net.connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => {
      socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`));
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks), request.method));
      } catch (error) {
        reject(error);
      }
    });
    const bytes = serialiseRequest(port, request);
    if (request.halfClose) socket.end(bytes);
    else socket.write(bytes);
  });
}

function serialiseRequest(port: number, request: HttpRequest): Buffer {
  const has = (name: string) => request.headers.some(([n]) => n.toLowerCase() === name);
  const lines = [`${request.method} ${request.path} HTTP/1.1`];
  if (!has("host")) lines.push(`Host: 127.0.0.1:${port}`);
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (request.body.length > 0 && !has("content-length") && !has("transfer-encoding")) {
    lines.push(`Content-Length: ${request.body.length}`);
  }
  // One request per connection: the answer ends when the server closes it.
  if (!has("connection")) lines.push("Connection: close");
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), request.body]);
}

function parseResponse(raw: Buffer, method: string): HttpResponse {
  const headEnd = raw.indexOf("\r\n\r\n");
  if (headEnd < 0) throw new Error(`incomplete HTTP answer: ${JSON.stringify(raw.toString("latin1"))}`);
  const [statusLine, ...headerLines] = raw.subarray(0, headEnd).toString("latin1").split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(statusLine);
  if (!status) throw new Error(`bad status line: ${JSON.stringify(statusLine)}`);
  const headers = headerLines.map((line): [string, string] => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  const code = Number(status[1]);
  const header = (name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1];
  let body = raw.subarray(headEnd + 4);
  if (method === "HEAD" || code === 204 || code === 304) body = Buffer.alloc(0);
  else if (header("transfer-encoding")?.toLowerCase() === "chunked") body = dechunk(body);
  else if (header("content-length") !== undefined) body = body.subarray(0, Number(header("content-length")));
  return { status: code, reason: status[2], headers, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd < 0) throw new Error("truncated chunked body");
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (size === 0) return Buffer.concat(parts);
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
