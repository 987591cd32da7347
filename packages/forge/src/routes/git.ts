import { Forbidden, type HttpServer, Locked, type LoginLimits, readBool, Unauthorized } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import {
  type GitService,
  isGitService,
  registerGitContentTypes,
  serveInfoRefs,
  serveRpc,
} from "../git/index.ts";
import type { ForgeDatabase } from "../services/accounts.ts";
import { authenticate } from "../services/auth.ts";
import { authorizeGit } from "../services/git-access.ts";
import { notePush, repositoryFilesPath, type Storage, startPush } from "../services/repositories.ts";

const Params = {
  type: "object",
  properties: { owner: { type: "string" }, repo: { type: "string" } },
} as const;

interface GitRequest {
  Params: { owner: string; repo: string };
  Querystring: { service?: string };
}

/**
 * git's smart HTTP at `/{owner}/{repo}[.git]/…`: basic auth with a password or a token (what git
 * sends), the same access rules as the API, then the git layer streams the exchange.
 */
export async function registerGitTransport(
  app: HttpServer,
  database: ForgeDatabase,
  storage: Storage,
  loginLimits: LoginLimits,
): Promise<void> {
  await app.register(async (scope) => {
    const git = scope as unknown as HttpServer;
    registerGitContentTypes(git);
    // Git shows a plain-text refusal to its user ("remote: …"): Gitea refuses a push to an archived
    // repository so, with a 403. Any other error goes on to the API's error handler.
    git.setErrorHandler((error, _request, reply) => {
      if (!(error instanceof Locked)) throw error;
      return reply.code(403).type("text/plain; charset=utf-8").send(error.message);
    });

    const authorize = async (request: FastifyRequest<GitRequest>, service: GitService) => {
      const caller = await authenticate(database, loginLimits, {
        authorization: request.headers.authorization,
        address: request.ip,
      });
      if (caller && readBool(caller.account.must_change_password))
        throw new Forbidden("You must change your password before using git over HTTP.");
      const name = request.params.repo.replace(/\.git$/, "");
      return { caller, context: await authorizeGit(database, request.params.owner, name, service, caller) };
    };

    // git asks for credentials only when a 401 carries this challenge.
    const challenge = (reply: FastifyReply, error: unknown) => {
      if (error instanceof Unauthorized) reply.header("www-authenticate", 'Basic realm="."');
      throw error;
    };

    git.get<GitRequest>("/:owner/:repo/info/refs", { schema: { params: Params } }, async (request, reply) => {
      const service = request.query.service;
      if (!isGitService(service)) throw new Forbidden("Unsupported service");
      const { context } = await authorize(request, service).catch((error) => challenge(reply, error));
      return serveInfoRefs(repositoryFilesPath(storage, context), service, request, reply);
    });

    for (const service of ["git-upload-pack", "git-receive-pack"] as const) {
      git.post<GitRequest>(
        `/:owner/:repo/${service}`,
        { schema: { params: Params } },
        async (request, reply) => {
          const { caller, context } = await authorize(request, service).catch((error) =>
            challenge(reply, error),
          );
          // A push needs a caller (authorizeGit refuses anonymous writes).
          let env: Record<string, string> | undefined;
          if (service === "git-receive-pack" && caller) {
            const push = await startPush(database, storage, context, caller.account);
            env = push.env;
            reply.raw.once("close", () => {
              notePush(database, storage, context, push).catch((error) =>
                request.log.error({ err: error }, "after push"),
              );
            });
          }
          return serveRpc(repositoryFilesPath(storage, context), service, request, reply, { env });
        },
      );
    }
  });
}
