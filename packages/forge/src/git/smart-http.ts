import { pipeline, Readable } from "node:stream";
import { Forbidden, type HttpServer, NotFound } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type GitOutput, gitOutput } from "./git-output.ts";
import { GitHttpError } from "./http-error.ts";
import { FLUSH_PACKET, pktLine } from "./pkt-line.ts";
import { type GitProcess, spawnGit } from "./process.ts";
import { gitProtocolEnvironment } from "./protocol.ts";
import { malformedRequestFault, requestBodyDecoders, requestBodyFault } from "./request-body.ts";
import { repositoryExists } from "./storage.ts";

// git's smart HTTP protocol, the part after authorisation: the forge's routes decide who may
// fetch or push, then hand the request to serveInfoRefs or serveRpc. Bodies stream both ways
// between the client and `git upload-pack|receive-pack --stateless-rpc`; no pack is held in memory.

export type GitService = "git-upload-pack" | "git-receive-pack";

const SERVICES: readonly GitService[] = ["git-upload-pack", "git-receive-pack"];

/** Largest decoded request body per service: a fetch sends only its negotiation, a push its pack. */
export const DEFAULT_MAX_REQUEST_BYTES: Readonly<Record<GitService, number>> = {
  "git-upload-pack": 64 * 1024 * 1024,
  "git-receive-pack": 2 * 1024 * 1024 * 1024,
};

// What git's http-backend sends, so no proxy or browser answers from a cache.
const NO_CACHE = {
  "cache-control": "no-cache, max-age=0, must-revalidate",
  pragma: "no-cache",
  expires: "Fri, 01 Jan 1980 00:00:00 GMT",
};

export function isGitService(value: unknown): value is GitService {
  return SERVICES.includes(value as GitService);
}

function gitService(value: unknown): GitService {
  // http-backend answers 403 for any other service (dumb HTTP's getanyfile included).
  if (!isGitService(value)) throw new Forbidden("Unsupported service");
  return value;
}

async function assertRepository(repoPath: string): Promise<void> {
  if (!(await repositoryExists(repoPath))) throw new NotFound("repository does not exist");
}

function startService(
  service: GitService,
  args: string[],
  request: FastifyRequest,
  env: Readonly<Record<string, string>> = {},
): GitProcess {
  return spawnGit([service.slice("git-".length), "--stateless-rpc", ...args], {
    env: { ...env, ...gitProtocolEnvironment(request.headers["git-protocol"]) },
  });
}

/**
 * Lets fastify hand git's request bodies to serveRpc as unread streams (fastify would otherwise
 * answer 415). Call it on the app, or on the plugin that holds the git routes.
 */
export function registerGitContentTypes(app: HttpServer): void {
  for (const service of SERVICES) {
    app.addContentTypeParser(`application/x-${service}-request`, (_request, payload, done) =>
      done(null, payload),
    );
  }
}

/**
 * `GET /{owner}/{repo}/info/refs?service=<service>`: the ref advertisement, preceded by the
 * `# service=` packet smart clients look for. Forbidden for another service, NotFound when no
 * repository is at `repoPath`.
 */
export async function serveInfoRefs(
  repoPath: string,
  service: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const name = gitService(service);
  await assertRepository(repoPath);
  const git = startService(name, ["--advertise-refs", repoPath], request);
  git.stdin.end();
  const output = gitOutput(git, {
    prefix: Buffer.concat([pktLine(`# service=${name}\n`), FLUSH_PACKET]),
    abandoned: () => git.kill(),
  });
  return respond(output, `application/x-${name}-advertisement`, reply);
}

// Headers go out with git's first byte: until then a failure is still an ordinary error response.
async function respond(output: GitOutput, contentType: string, reply: FastifyReply): Promise<FastifyReply> {
  let clientGone = false;
  reply.raw.once("close", () => {
    if (reply.raw.writableFinished) return;
    clientGone = true;
    output.body.destroy();
  });
  try {
    await output.started;
  } catch (error) {
    // git was stopped because the client left (a fetch interrupted with Ctrl-C): nobody to answer.
    if (!clientGone) throw error;
    return reply.hijack();
  }
  return reply.headers({ ...NO_CACHE, "content-type": contentType }).send(output.body);
}

export interface RpcOptions {
  /** Largest decoded request body; DEFAULT_MAX_REQUEST_BYTES by default. */
  maxRequestBytes?: number;
  /** Added to git's environment (the push rules of push-rules.ts). */
  env?: Readonly<Record<string, string>>;
}

/**
 * `POST /{owner}/{repo}/<service>`: streams the request body (gunzipped when the client
 * compressed it) into `git <service> --stateless-rpc` and git's answer back. A client that goes
 * away stops a fetch at once; a push ends when its input does, so the repository is left either
 * untouched or with the whole push applied, never half of it. A body git cannot read is a 400.
 */
export async function serveRpc(
  repoPath: string,
  service: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  options: RpcOptions = {},
): Promise<FastifyReply> {
  const name = gitService(service);
  const expectedType = `application/x-${name}-request`;
  const source = request.body;
  if (request.headers["content-type"] !== expectedType || !(source instanceof Readable)) {
    throw new GitHttpError(415, `expected a request body of type ${expectedType}`);
  }
  const maxBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES[name];
  if (Number(request.headers["content-length"]) > maxBytes) {
    reply.header("connection", "close");
    throw new GitHttpError(413, `the request body exceeds ${maxBytes} bytes`);
  }
  const decoders = requestBodyDecoders(request.headers["content-encoding"], maxBytes);
  await assertRepository(repoPath);

  const git = startService(name, [repoPath], request, options.env);
  // On any failure pipeline() destroys git's stdin too, so git sees the input end and stops reading.
  const input = new Promise<Error | undefined>((resolve) => {
    pipeline([source, ...decoders, git.stdin], (error) => {
      const fault = error && requestBodyFault(error);
      // The rest of a refused body is never read, so the connection cannot carry another request.
      if (fault) reply.header("connection", "close");
      resolve(fault || undefined);
    });
  });
  const output = gitOutput(git, {
    input,
    clientFault: (exit) => malformedRequestFault(name, exit),
    abandoned:
      name === "git-upload-pack"
        ? () => git.kill()
        : // receive-pack is not killed: a signal makes it remove its quarantine directory while its
          // unpack-objects still writes there, which can leave the directory behind. Without more
          // input it fails on its own and cleans up; with all of it, it completes the push.
          () => git.stdin.destroy(),
  });
  return respond(output, `application/x-${name}-result`, reply);
}
