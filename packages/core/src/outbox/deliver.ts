import { promises as dns, type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { AllowedHosts } from "./hosts.ts";

// One attempt at one delivery: resolve the host, check every address against the allowed-host
// list, then connect to those very addresses (a custom lookup), so a name that resolves
// differently a moment later (DNS rebinding) cannot send the request somewhere unchecked. Plain
// node:http rather than fetch: fetch cannot be handed a lookup without the undici package.
// Redirects are never followed: a redirect is an answer like any other non-2xx. Connections are
// kept alive per checked target (DeliveryAgents), never shared between hosts or address sets.

/** What is kept of a receiver's answer body. */
export const RESPONSE_BODY_LIMIT = 64 * 1024;

export interface AttemptRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

export type AttemptResult =
  | { kind: "answered"; status: number; headers: Record<string, string>; body: string; durationMs: number }
  /** No answer (timeout, refused connection, unknown host): worth trying again later. */
  | { kind: "failed"; error: string; durationMs: number }
  /** Never sent and never will be (a target outside the allowed hosts, an unusable URL). */
  | { kind: "refused"; error: string; durationMs: number };

class AttemptTimeout extends Error {}

function withDeadline<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new AttemptTimeout(what)), Math.max(0, deadline - Date.now()));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function fixedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = addresses.filter((a) => family === undefined || a.family === family);
    if (usable.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`no IPv${family} address was checked`);
      error.code = "ENOTFOUND";
      callback(error, "", 4);
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, usable[0].address, usable[0].family);
    }
  };
}

/** Agents kept at once; past it the oldest is closed. */
const KEPT_AGENTS = 64;
/** How long an idle kept connection stays open: less than the 5 s after which node servers close theirs. */
const KEPT_IDLE_MS = 4000;

/**
 * Kept-alive connections, one agent per target and set of checked addresses: a connection is only
 * ever reused for the host, port and addresses it was opened for, so a pooled connection can never
 * carry a request to an address that was not checked for that request's host. Close it when the
 * worker stops.
 */
export class DeliveryAgents {
  readonly #agents = new Map<string, http.Agent>();

  /** The agent for a request to `url` whose host resolved to `addresses`, all of them checked. */
  for(url: URL, addresses: LookupAddress[]): http.Agent {
    const key = `${url.protocol}//${url.host}|${addresses.map((a) => a.address).join(",")}`;
    let agent = this.#agents.get(key);
    if (agent !== undefined) {
      // Most recently used last, so the oldest is the first to go.
      this.#agents.delete(key);
    } else {
      const options = {
        keepAlive: true,
        maxFreeSockets: 16,
        scheduling: "lifo" as const,
        // The agent closes a kept connection that stays idle this long (only idle ones).
        timeout: KEPT_IDLE_MS,
      };
      agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
      if (this.#agents.size >= KEPT_AGENTS) {
        const [oldest, old] = this.#agents.entries().next().value as [string, http.Agent];
        this.#agents.delete(oldest);
        old.destroy();
      }
    }
    this.#agents.set(key, agent);
    return agent;
  }

  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}

function flatHeaders(message: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function exchange(
  url: URL,
  host: string,
  addresses: LookupAddress[],
  request: AttemptRequest,
  deadline: number,
  agent: http.Agent | false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = request.method === "GET" ? undefined : Buffer.from(request.body);
    const client = url.protocol === "https:" ? https : http;
    const outgoing = client.request({
      protocol: url.protocol,
      hostname: host,
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers: body === undefined ? request.headers : { ...request.headers, "content-length": body.length },
      auth:
        url.username === ""
          ? undefined
          : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
      lookup: fixedLookup(addresses),
      agent,
    });
    let answer: Answer | undefined;
    const chunks: Buffer[] = [];
    let kept = 0;
    let finished = false;
    // A connection whose answer was read to its end goes back to the agent; any other is closed.
    const finish = (complete = false) => {
      clearTimeout(timer);
      if (answer === undefined || finished) return;
      finished = true;
      // PostgreSQL's text cannot hold NUL, which a binary answer may contain.
      answer.body = Buffer.concat(chunks).toString("utf8").replaceAll("\0", "\uFFFD");
      resolve(answer);
      if (!complete) outgoing.destroy();
    };
    // Past the deadline an answer already begun counts with the body read so far.
    const timer = setTimeout(
      () => {
        if (answer !== undefined) return finish();
        const error = new AttemptTimeout("no answer");
        reject(error);
        outgoing.destroy(error);
      },
      Math.max(0, deadline - Date.now()),
    );
    outgoing.on("error", (error) => {
      clearTimeout(timer);
      if (answer === undefined) reject(Object.assign(error, { reusedSocket: outgoing.reusedSocket }));
      else finish();
    });
    outgoing.on("response", (incoming) => {
      answer = { status: incoming.statusCode ?? 0, headers: flatHeaders(incoming), body: "" };
      incoming.on("data", (chunk: Buffer) => {
        if (kept < RESPONSE_BODY_LIMIT) {
          const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - kept);
          chunks.push(part);
          kept += part.length;
        }
        if (kept >= RESPONSE_BODY_LIMIT) finish();
      });
      incoming.on("end", () => finish(true));
      incoming.on("close", () => finish());
      incoming.on("error", () => finish());
    });
    outgoing.end(body);
  });
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof AttemptTimeout) return `timed out after ${timeoutMs} ms (${error.message})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Makes one attempt; never rejects. */
export async function attemptDelivery(
  request: AttemptRequest,
  allowed: AllowedHosts,
  timeoutMs: number,
  agents: DeliveryAgents,
): Promise<AttemptResult> {
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  const deadline = Date.now() + timeoutMs;
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { kind: "refused", error: "the URL is not valid", durationMs: duration() };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      kind: "refused",
      error: `the URL's scheme ${url.protocol} is not http or https`,
      durationMs: duration(),
    };
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  try {
    const family = isIP(host);
    const addresses =
      family === 0
        ? await withDeadline(dns.lookup(host, { all: true, verbatim: true }), deadline, "resolving the host")
        : [{ address: host, family }];
    const refused = addresses.find((a) => !allowed.allows(host, a.address));
    if (addresses.length === 0 || refused !== undefined) {
      const where = refused === undefined || refused.address === host ? host : `${host} (${refused.address})`;
      return { kind: "refused", error: `${where} is not an allowed host`, durationMs: duration() };
    }
    const agent = agents.for(url, addresses);
    const answer = await exchange(url, host, addresses, request, deadline, agent).catch((error) => {
      // A kept connection the receiver closed while it was idle fails before anything was read
      // from it: the request goes again, once, on a connection of its own (the agent's other idle
      // ones to that receiver are likely closed too).
      if (!error?.reusedSocket || error.code !== "ECONNRESET") throw error;
      return exchange(url, host, addresses, request, deadline, false);
    });
    return { kind: "answered", ...answer, durationMs: duration() };
  } catch (error) {
    return { kind: "failed", error: describe(error, timeoutMs), durationMs: duration() };
  }
}
