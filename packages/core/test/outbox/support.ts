import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AnyKysely } from "../../src/db/index.ts";
import { createLogger } from "../../src/log/index.ts";
import { type Delivery, getDelivery } from "../../src/outbox/index.ts";
import { waitFor } from "../../src/testing/index.ts";

export interface Hit {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
  /** The client's end of the connection the request came on (address:port). */
  connection: string;
}

type Handler = (request: IncomingMessage, response: ServerResponse, hit: Hit) => void;

/** A real HTTP server on 127.0.0.1 that records every request; paths answer 200 "ok" unless told. */
export interface Receiver {
  url: string;
  hits: Hit[];
  hitsTo(path: string): Hit[];
  on(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hits: Hit[] = [];
  const handlers = new Map<string, Handler>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = new URL(request.url ?? "/", "http://receiver").pathname;
      const hit = {
        method: request.method ?? "",
        path,
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
        connection: `${request.socket.remoteAddress}:${request.socket.remotePort}`,
      };
      hits.push(hit);
      const handler = handlers.get(path);
      if (handler) handler(request, response, hit);
      else response.writeHead(200, { "content-type": "text/plain", "x-receiver": "yes" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    hitsTo: (path) => hits.filter((hit) => hit.path === path),
    on: (path, handler) => handlers.set(path, handler),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const quietLogger = createLogger({ level: "silent" });

/** Waits until a delivery is no longer pending, and returns it. */
export function settled(db: AnyKysely, topic: string, topicId: number, id: number, timeoutMs = 20_000) {
  return waitFor<Delivery>(
    `delivery ${id} to settle`,
    async () => {
      const delivery = await getDelivery(db, topic, topicId, id);
      return delivery?.status === "pending" ? undefined : delivery;
    },
    timeoutMs,
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
