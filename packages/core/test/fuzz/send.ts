import { type Agent, request } from "node:http";
import type { FuzzRequest } from "./requests.ts";

export type Outcome =
  | {
      kind: "answer";
      status: number;
      excerpt: string;
      ms: number;
      /** An error answer (4xx, 5xx) whole, up to ERROR_BODY characters, and its content type. */
      error?: { contentType: string; body: string };
    }
  | { kind: "timeout"; ms: number }
  | { kind: "error"; code: string; ms: number };

const EXCERPT = 300;
const ERROR_BODY = 64 * 1024;

/**
 * Sends a request with node:http (not fetch: the path must reach the server as written, `..`,
 * `%00` and invalid escapes included) and waits at most `boundMs` for the whole answer.
 */
export function send(base: URL, agent: Agent, fuzz: FuzzRequest, boundMs: number): Promise<Outcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const headers = { ...fuzz.headers };
    if (fuzz.body) headers["content-length"] = String(fuzz.body.length);
    const outgoing = request(
      { host: base.hostname, port: base.port, method: fuzz.method, path: fuzz.path, headers, agent },
      (incoming) => {
        const status = incoming.statusCode ?? 0;
        const keep = status >= 400 ? ERROR_BODY : EXCERPT;
        let text = "";
        incoming.setEncoding("utf8");
        incoming.on("data", (chunk: string) => {
          if (text.length < keep) text += chunk.slice(0, keep - text.length);
        });
        incoming.on("end", () => {
          const contentType = String(incoming.headers["content-type"] ?? "");
          const error = status >= 400 ? { contentType, body: text } : undefined;
          settle({ kind: "answer", status, excerpt: text.slice(0, EXCERPT), ms: ms(), error });
        });
        incoming.on("error", (error: NodeJS.ErrnoException) =>
          settle({ kind: "error", code: error.code ?? error.message, ms: ms() }),
        );
      },
    );
    const timer = setTimeout(() => {
      settle({ kind: "timeout", ms: ms() });
      outgoing.destroy();
    }, boundMs);
    outgoing.on("error", (error: NodeJS.ErrnoException) =>
      settle({ kind: "error", code: error.code ?? error.message, ms: ms() }),
    );
    outgoing.end(fuzz.body);
  });
}
