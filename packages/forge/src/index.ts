import { join } from "node:path";
import {
  createHttpService,
  DEFAULT_LOGIN_LIMITS,
  type HttpService,
  type LoginLimits,
  type ServiceConfig,
} from "@anvil/core";
import { mapForgeError } from "./errors.ts";
import { migrations } from "./migrations/index.ts";
import { registerGitTransport } from "./routes/git.ts";
import { registerHealth } from "./routes/health.ts";
import { startForgeSsh } from "./routes/ssh.ts";
import { registerApiV1 } from "./routes/v1/index.ts";
import { GITEA_VERSION } from "./routes/v1/misc.ts";
import type { ForgeTables } from "./schemas/tables.ts";
import { reconcileStorage } from "./services/storage-reconcile.ts";

export interface ForgeOptions {
  /** Port of the built-in SSH server for git; 0 or absent: no SSH. */
  sshPort?: number;
  /** Gitea's MAX_CREATION_LIMIT: repositories an account may own when its max_repo_creation is -1; -1: no limit. */
  maxCreationLimit?: number;
  /** Gitea's DEFAULT_PAGING_NUM (30) and MAX_RESPONSE_ITEMS (50). */
  paging?: { defaultLimit: number; maxLimit: number };
  /** Failed password logins allowed per account name and per address (API and git over HTTP). */
  loginLimits?: LoginLimits;
}

/** The Git forge with Gitea's REST API v1, and git over HTTP and SSH. */
export function createApp(config: ServiceConfig, options: ForgeOptions = {}): HttpService<ForgeTables> {
  const storage = { root: join(config.dataDir, "repositories"), maxCreationLimit: options.maxCreationLimit };
  const sshPort = options.sshPort || undefined;
  return createHttpService<ForgeTables>({
    name: "forge",
    config,
    migrationOwner: "forge",
    migrations,
    mapError: mapForgeError,
    // Gitea's JSON binding refuses a value of the wrong type.
    strictBodyTypes: true,
    nullMeansAbsent: true,
    // Gitea serves its API description at /swagger.v1.json, and its error bodies point at
    // /api/swagger, where ours is served too.
    openapi: {
      title: "anvil forge (Gitea API v1)",
      version: GITEA_VERSION,
      paths: ["/swagger.v1.json", "/api/swagger"],
    },
    register: async (app, database) => {
      // Before the first request: what a crash left between rows and repositories is settled.
      await reconcileStorage(database, storage, config.logger);
      registerHealth(app, database);
      const paging = options.paging ?? { defaultLimit: 30, maxLimit: 50 };
      const loginLimits = options.loginLimits ?? DEFAULT_LOGIN_LIMITS;
      await registerApiV1(app, database, { paging, storage, sshPort, loginLimits });
      await registerGitTransport(app, database, storage, loginLimits);
    },
    companions:
      sshPort === undefined
        ? []
        : [
            (database) =>
              startForgeSsh(database, storage, {
                host: config.host,
                port: sshPort,
                dataDir: config.dataDir,
                logger: config.logger.child({ server: "ssh" }),
              }),
          ],
  });
}
