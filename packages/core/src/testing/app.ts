import { createServer } from "node:net";
import type { ServiceApp } from "../service.ts";
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

/** A port nothing listens on right now (for processes that must be told their port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
