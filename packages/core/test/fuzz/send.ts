import { type Agent, request } from "node:http";
import type { FuzzRequest } from "./requests.ts";

export type Outcome =
  | { kind: "answer"; status: number; excerpt: string; ms: number }
  | { kind: "timeout"; ms: number }
  | { kind: "error"; code: string; ms: number };

const EXCERPT = 300;

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
        let excerpt = "";
        incoming.setEncoding("utf8");
        incoming.on("data", (chunk: string) => {
          if (excerpt.length < EXCERPT) excerpt += chunk.slice(0, EXCERPT - excerpt.length);
        });
        incoming.on("end", () =>
          settle({ kind: "answer", status: incoming.statusCode ?? 0, excerpt, ms: ms() }),
        );
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
