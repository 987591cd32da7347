import {
  databaseGeneration,
  Forbidden,
  type HttpServer,
  type LoginLimits,
  readBool,
  signalQueuedDeliveries,
} from "@anvil/core";
import type { FastifyRequest } from "fastify";
import type { ForgeDatabase } from "../../services/accounts.ts";
import type { AttachmentSettings } from "../../services/attachment-files.ts";
import { authenticate, type Credentials, sudo } from "../../services/auth.ts";
import type { Storage } from "../../services/repositories.ts";
import { registerAdminAuths } from "./admin-auths.ts";
import { registerAdminOrgs } from "./admin-orgs.ts";
import { registerAdminUsers } from "./admin-users.ts";
import { registerBranches } from "./branches.ts";
import { registerComments } from "./comments.ts";
import { registerCommitStatuses } from "./commit-statuses.ts";
import { registerCommits } from "./commits.ts";
import { registerContents } from "./contents.ts";
import { type ApiContext, adminGroup, READS, scopeCovers, signedIn } from "./context.ts";
import { registerEmails } from "./emails.ts";
import { registerForks } from "./forks.ts";
import { registerGitData } from "./git-data.ts";
import { registerGogsAdmin } from "./gogs-admin.ts";
import { registerHooks } from "./hooks.ts";
import { registerIssues } from "./issues.ts";
import { registerKeys } from "./keys.ts";
import { registerLabels } from "./labels.ts";
import { registerMilestones } from "./milestones.ts";
import { registerMisc } from "./misc.ts";
import { registerOrgRepos } from "./org-repos.ts";
import { registerOrgs } from "./orgs.ts";
import { registerPulls } from "./pulls.ts";
import { registerReactions } from "./reactions.ts";
import { registerReleases } from "./releases.ts";
import { registerRepoParts } from "./repo-parts.ts";
import { registerRepos } from "./repos.ts";
import { registerSubscriptions } from "./subscriptions.ts";
import { registerTeams } from "./teams.ts";
import { registerTokens } from "./tokens.ts";
import { registerTransfers } from "./transfers.ts";
import { registerUsers } from "./users.ts";

export interface ApiOptions {
  /** Gitea's DEFAULT_PAGING_NUM and MAX_RESPONSE_ITEMS. */
  paging: { defaultLimit: number; maxLimit: number };
  storage: Storage;
  sshPort?: number;
  /** Failed password logins allowed per account name and per address. */
  loginLimits: LoginLimits;
  /** Gitea's [attachment] settings; its defaults when absent. */
  attachmentSettings?: AttachmentSettings;
}

function queryValue(request: FastifyRequest, ...names: string[]): string | undefined {
  const query = request.query as Record<string, unknown>;
  for (const name of names) if (typeof query[name] === "string") return query[name] as string;
  return undefined;
}

// Gitea warns every caller that authenticates with a query token, word for word, so that clients
// which surface X-Gitea-Warning (giteapy users, scripts) see the same notice.
const QUERY_TOKEN_WARNING =
  "token and access_token API authentication is deprecated and will be removed in gitea 1.23. " +
  "Please use AuthorizationHeaderToken instead. Existing queries will continue to work but without authorization.";

/** Sets `request.caller` from the request's credentials, acting as the `Sudo` user when asked. */
async function identify(
  database: ForgeDatabase,
  limits: LoginLimits,
  request: FastifyRequest,
  credentials: Credentials,
) {
  const caller = await authenticate(database, limits, credentials);
  // The account that signed in is checked, then the request switches to the Sudo user, as in
  // Gitea: an admin may act as a user who has yet to change their password.
  if (caller && readBool(caller.account.must_change_password)) {
    throw new Forbidden(
      `You must change your password. Change it at: ${new URL("user/change_password", request.rootUrl).href}`,
    );
  }
  const sudoName = request.headers.sudo ?? queryValue(request, "sudo");
  request.caller =
    caller && typeof sudoName === "string" && sudoName !== ""
      ? await sudo(database, caller, sudoName)
      : caller;
}

/** Gitea's REST API v1 under /api/v1: who the caller is, what a token may do, then the routes. */
export async function registerApiV1(
  app: HttpServer,
  database: ForgeDatabase,
  options: ApiOptions,
): Promise<void> {
  await app.register(
    async (scope) => {
      const api = scope as unknown as HttpServer;
      api.decorateRequest("caller", undefined);
      // Callback hooks, not async ones: they run on every call, and an anonymous read (most of
      // them) has nothing to wait for, so it should not pay for a promise.
      api.addHook("onRequest", (request, reply, done) => {
        const authorization = request.headers.authorization;
        const queryToken = queryValue(request, "token", "access_token");
        if (queryToken) reply.header("x-gitea-warning", QUERY_TOKEN_WARNING);
        const identified = () => {
          if (authorization === undefined && queryToken === undefined) return done();
          identify(database, options.loginLimits, request, {
            authorization,
            queryToken,
            address: request.ip,
          }).then(() => done(), done);
        };
        if (!request.routeOptions.config.keptPage) return identified();
        // Before the caller is read: a page kept under this generation was read after it.
        databaseGeneration(database.db).then((since) => {
          request.keptSince = since;
          identified();
        }, done);
      });
      // Every write of Gitea's API needs a signed-in caller whose token's scopes cover it, and an
      // admin route a site admin: checked before the body is read (core runs `authorize` first),
      // so a caller who may not write costs no parsing. A route may declare its own sign-in check.
      api.addHook("onRoute", (route) => {
        const writes = [route.method].flat().some((method) => !READS.has(method));
        const own = route.config?.authorize;
        if (route.config?.scope === "admin" && own === undefined)
          route.config = { ...route.config, authorize: adminGroup };
        else if (writes) {
          const authenticate = own ?? signedIn;
          const authorize = async (request: FastifyRequest) => {
            await authenticate(request);
            scopeCovers(request);
          };
          route.config = { ...route.config, authorize };
        }
      });
      // A change that queued webhook deliveries has committed once its answer is sent: the
      // delivery workers of this process are woken then (see signalQueuedDeliveries).
      api.addHook("onResponse", (_request, _reply, done) => {
        signalQueuedDeliveries();
        done();
      });
      // Reads have no body to read: their scope is checked just before the handler.
      api.addHook("preHandler", (request, _reply, done) => {
        if (READS.has(request.method)) scopeCovers(request);
        done();
      });
      const context: ApiContext = {
        app: api,
        database,
        paging: options.paging,
        storage: options.storage,
        sshPort: options.sshPort,
        attachmentSettings: options.attachmentSettings,
      };
      registerMisc(context);
      registerUsers(context);
      registerEmails(context);
      registerTokens(context);
      registerAdminUsers(context);
      registerAdminAuths(context);
      registerKeys(context);
      registerOrgs(context);
      registerTeams(context);
      registerAdminOrgs(context);
      registerGogsAdmin(context);
      registerRepos(context);
      registerRepoParts(context);
      registerCommits(context);
      registerGitData(context);
      registerCommitStatuses(context);
      registerContents(context);
      registerTransfers(context);
      registerOrgRepos(context);
      registerLabels(context);
      registerMilestones(context);
      registerIssues(context);
      registerPulls(context);
      registerHooks(context);
      registerComments(context);
      registerReactions(context);
      registerSubscriptions(context);
      registerForks(context);
      registerBranches(context);
      registerReleases(context);
    },
    { prefix: "/api/v1" },
  );
}
