import { createHttpServer, createLogger, NotFound } from "@anvil/core";
import { listenLocal } from "@anvil/core/testing";
import { mapForgeError } from "../../../src/errors.ts";
import {
  parseGitTransportPath,
  type RpcOptions,
  registerGitContentTypes,
  repositoryPath,
  serveInfoRefs,
  serveRpc,
} from "../../../src/git/index.ts";

export interface Exchange {
  method: string;
  url: string;
  contentEncoding: string | undefined;
  status: number;
}

export interface GitServer {
  url: string;
  /** Every request answered so far. */
  exchanges: Exchange[];
  /** Log entries at level error or above (a failure the server could not answer as a client error). */
  errors: Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * A smart HTTP server over the repositories under `root`, routed as the forge routes them but
 * without authentication (the forge's job): any `/{owner}/{repo}[.git]/…` transport path.
 */
export async function startGitServer(root: string, options: RpcOptions = {}): Promise<GitServer> {
  let url = "";
  const exchanges: Exchange[] = [];
  const errors: Record<string, unknown>[] = [];
  const destination = {
    write(line: string) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (Number(entry.level) >= 50) errors.push(entry);
    },
  };
  const app = await createHttpServer({
    logger: createLogger({ level: "error", destination }),
    mapError: mapForgeError,
    rootUrl: () => new URL(url),
  });
  registerGitContentTypes(app);
  app.addHook("onResponse", async (request, reply) => {
    const encoding = request.headers["content-encoding"];
    exchanges.push({
      method: request.method,
      url: request.url,
      contentEncoding: typeof encoding === "string" ? encoding : undefined,
      status: reply.statusCode,
    });
  });
  app.route({
    method: ["GET", "POST"],
    url: "/*",
    handler: async (request, reply) => {
      const target = parseGitTransportPath(request.url);
      if (target === undefined) throw new NotFound();
      const repoPath = repositoryPath(root, target.owner, target.repo);
      if (request.method === "GET" && target.subPath === "info/refs") {
        return serveInfoRefs(repoPath, (request.query as { service?: string }).service, request, reply);
      }
      if (request.method === "POST" && target.subPath !== "info/refs") {
        return serveRpc(repoPath, target.subPath, request, reply, options);
      }
      throw new NotFound();
    },
  });
  url = await listenLocal(app);
  return { url, exchanges, errors, close: () => app.close() };
}
