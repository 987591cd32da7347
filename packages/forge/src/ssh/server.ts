import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { type AddressInfo, createServer, type Socket } from "node:net";
import type { Logger } from "@anvil/core";
import ssh2, { type Connection } from "ssh2";
import { type Authenticate, publicKeyAuthenticator } from "./client-auth.ts";
import { type Authorize, serveSession } from "./git-session.ts";
import { loadOrCreateHostKey } from "./host-key.ts";

export interface SshServerOptions<P> {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Where the host key lives (generated on first start), e.g. `<data dir>/ssh/anvil.ed25519`. */
  hostKeyPath: string;
  /** Finds who owns a key; the SSH user name is passed along but, as with `git@`, not needed. */
  authenticate: Authenticate<P>;
  /** Decides whether the principal may run the service on the repository, and where it lives. */
  authorize: Authorize<P>;
  logger: Logger;
  /** The git executable; `git` on PATH when absent. */
  gitPath?: string;
}

export interface SshServer {
  port: number;
  hostKeyFingerprint: string;
  /** Stops listening, ends open sessions (their git processes are killed) and resolves when all is closed. */
  close(): Promise<void>;
}

// sshd's LoginGraceTime is 120 s; git clients authenticate in well under a second.
const LOGIN_GRACE_MS = 30_000;
// A peer that ignores our disconnect is cut off after this.
const CLOSE_GRACE_MS = 2_000;

/** Git over SSH: public-key login, `git-upload-pack` / `git-receive-pack` only. */
export async function startSshServer<P>(options: SshServerOptions<P>): Promise<SshServer> {
  const { logger } = options;
  const hostKey = await loadOrCreateHostKey(options.hostKeyPath, logger);
  const sockets = new Set<Socket>();
  // Each connection's running git processes.
  const connections = new Map<Connection, Set<ChildProcess>>();
  const ssh = new ssh2.Server({ hostKeys: [hostKey.privateKey], ident: "anvil" }, (connection, info) => {
    const remote = `${info.ip}:${info.port}`;
    connections.set(connection, serveConnection(connection, options, logger.child({ remote })));
    connection.once("close", () => connections.delete(connection));
  });
  const listener = createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    ssh.injectSocket(socket);
  });
  listener.listen(options.port, options.host);
  await once(listener, "listening");
  const { port } = listener.address() as AddressInfo;
  logger.info({ host: options.host, port, hostKey: hostKey.fingerprint }, "SSH server listening");
  return {
    port,
    hostKeyFingerprint: hostKey.fingerprint,
    close: async () => {
      const closed = new Promise((resolve) => listener.close(resolve));
      const children = [...connections.values()].flatMap((running) => [...running]);
      for (const connection of connections.keys()) connection.end();
      for (const child of children) child.kill();
      const cutOff = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, CLOSE_GRACE_MS);
      await Promise.all([closed, ...children.map(exited)]);
      clearTimeout(cutOff);
    },
  };
}

function exited(child: ChildProcess): Promise<unknown> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, "exit");
}

/** Authenticates one connection and serves its sessions; returns the set of its running git processes. */
function serveConnection<P>(
  connection: Connection,
  options: SshServerOptions<P>,
  logger: Logger,
): Set<ChildProcess> {
  const running = new Set<ChildProcess>();
  const grace = setTimeout(() => connection.end(), LOGIN_GRACE_MS);
  let principal: P | undefined;
  const onLogin = (who: P, key: { fingerprint: string }) => {
    principal = who;
    logger.info({ fingerprint: key.fingerprint }, "SSH login");
  };
  const authenticate = publicKeyAuthenticator(options.authenticate, logger, onLogin, () => connection.end());
  connection.on("authentication", (context) => {
    authenticate(context).catch((error: unknown) => {
      logger.error({ err: error }, "SSH authentication failed");
      connection.end();
    });
  });
  connection.on("ready", () => clearTimeout(grace));
  connection.on("session", (accept, reject) => {
    if (principal === undefined) return reject();
    serveSession(accept(), {
      principal,
      authorize: options.authorize,
      gitPath: options.gitPath ?? "git",
      logger,
      running,
    });
  });
  connection.on("error", (error) => logger.debug({ err: error }, "SSH connection error"));
  connection.once("close", () => {
    clearTimeout(grace);
    for (const child of running) child.kill();
  });
  return running;
}
