import { createServer } from "node:net";
import type { HttpServer } from "../http/server.ts";
import { createLogger } from "../log/logger.ts";
import type { ServiceApp, ServiceConfig } from "../service.ts";
import { tempDir } from "./temp.ts";

export interface StartedApp<A extends ServiceApp> {
  app: A;
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

/** Starts a real app on 127.0.0.1 with a fresh temporary data directory, removed on close. */
export async function startApp<A extends ServiceApp>(
  create: (env: { dataDir: string }) => A | Promise<A>,
): Promise<StartedApp<A>> {
  const dir = await tempDir("anvil-app-");
  const app = await create({ dataDir: dir.path });
  const url = await app.listen();
  return {
    app,
    url,
    dataDir: dir.path,
    close: async () => {
      await app.close();
      await dir.remove();
    },
  };
}

/** Ports freePort handed out in this process: released at once, the system may offer one again. */
const handedOut = new Set<number>();

/**
 * A port nothing listens on right now and not handed out before in this process (for processes
 * that must be told their port: several asked for in a row must differ).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        server.close(() =>
          typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
        );
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** A service's config for a test: 127.0.0.1, a port the system picks, no log output. */
export function serviceConfig(
  dataDir: string,
  databaseUrl: string,
  extra: Partial<ServiceConfig> = {},
): ServiceConfig {
  return {
    host: "127.0.0.1",
    port: 0,
    dataDir,
    logger: createLogger({ level: "silent" }),
    database: { url: databaseUrl },
    ...extra,
  };
}

/** Listens on a free port of 127.0.0.1; resolves with the base URL. */
export async function listenLocal(app: HttpServer): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}
