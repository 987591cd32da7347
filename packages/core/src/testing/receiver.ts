import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "./processes.ts";

/** One request a receiver got, as it arrived. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How a receiver answers: a status (200 by default), or never ("hang"). */
export type Answer = number | "hang";

/** A webhook receiver on 127.0.0.1 that records every request and answers as told. */
export interface Receiver {
  url: string;
  received: Received[];
  answer: Answer;
  /** The first request (in arrival order, from `from` on) that `accept` takes; waits for it. */
  next(accept: (request: Received) => boolean, from?: number, timeoutMs?: number): Promise<Received>;
  close(): Promise<void>;
}

/** A receiver on `port` (0: any free one), e.g. one a hook was made for while nothing listened there. */
export async function startReceiver(answer: Answer = 200, port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<import("node:http").ServerResponse>();
  const receiver: Receiver = {
    url: "",
    received,
    answer,
    next: (accept, from = 0, timeoutMs = 20_000) =>
      waitFor("a webhook delivery", async () => received.slice(from).find(accept), timeoutMs),
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      if (receiver.answer === "hang") {
        hanging.add(response);
        return;
      }
      response.writeHead(receiver.answer, { "content-type": "text/plain" });
      response.end(`answered ${receiver.answer}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

export function hmacHex(algorithm: "sha1" | "sha256", secret: string, text: string): string {
  return createHmac(algorithm, secret).update(text).digest("hex");
}
