import { connect } from "node:net";

export interface RawAnswer {
  /** Everything the server sent before the connection ended (latin1). */
  text: string;
  /** How it ended: "closed" after a clean end, the socket error's code (ECONNRESET), or "no answer in time". */
  ending: string;
}

/**
 * Writes `chunks` as they are on a new connection to `base` and reads until the server ends it or
 * `waitMs` passes: for requests no HTTP client sends (CONNECT, unknown methods, a 1 MB URL, a body
 * that never finishes).
 */
export function rawExchange(
  base: string,
  chunks: Array<string | Buffer>,
  waitMs = 10_000,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    const finish = (ending: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, ending });
    };
    const timer = setTimeout(() => finish("no answer in time"), waitMs);
    socket.on("data", (data) => {
      text += data.toString("latin1");
    });
    socket.on("error", (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.on("end", () => finish("closed"));
    socket.on("connect", () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}

/** The JSON body of a raw answer. */
export function rawBody<T = unknown>(answer: RawAnswer): T {
  return JSON.parse(answer.text.slice(answer.text.indexOf("\r\n\r\n") + 4)) as T;
}
