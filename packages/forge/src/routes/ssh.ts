import { join } from "node:path";
import { DomainError } from "@anvil/core";
import type { Logger } from "pino";
import type { AccountRow } from "../repositories/accounts.ts";
import type { ForgeDatabase } from "../services/accounts.ts";
import { authorizeGit } from "../services/git-access.ts";
import { accountForKey } from "../services/keys.ts";
import { notePush, repositoryFilesPath, type Storage, startPush } from "../services/repositories.ts";
import { type SshServer, startSshServer } from "../ssh/index.ts";

/**
 * The built-in SSH server for git: a login's key names the user (any SSH user name, `git@` by
 * convention), and a fetch or push is allowed by the same rules as over HTTP.
 */
export function startForgeSsh(
  database: ForgeDatabase,
  storage: Storage,
  options: { host: string; port: number; dataDir: string; logger: Logger },
): Promise<SshServer> {
  return startSshServer<AccountRow>({
    host: options.host,
    port: options.port,
    hostKeyPath: join(options.dataDir, "ssh", "anvil.ed25519"),
    logger: options.logger,
    authenticate: (_username, key, signed) =>
      accountForKey(database, `${key.algo} ${key.data.toString("base64")}`, signed),
    authorize: async (account, request) => {
      try {
        const context = await authorizeGit(database, request.owner, request.repo, request.service, {
          account,
          via: "password",
        });
        const push =
          request.service === "git-receive-pack"
            ? await startPush(database, storage, context, account)
            : undefined;
        return {
          repoPath: repositoryFilesPath(storage, context),
          env: push?.env,
          afterExit: async () => {
            if (push) await notePush(database, storage, context, push);
          },
        };
      } catch (error) {
        if (error instanceof DomainError) return { refuse: `anvil: ${error.message}` };
        throw error;
      }
    },
  });
}
