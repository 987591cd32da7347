import type { Database } from "../db/database.ts";
import type { Logger } from "../log/logger.ts";
import type { AllowedHosts } from "./hosts.ts";

export interface OutboxWorkerOptions {
  database: Database;
  /** Where deliveries may go (Gitea's ALLOWED_HOST_LIST syntax, or a parsed list). */
  allowedHosts: string | AllowedHosts;
  logger: Logger;
  /** How long one attempt may take, connecting and reading the answer included. */
  timeoutMs?: number;
  /** Deliveries in flight at once in this process. */
  concurrency?: number;
  /** The waits before each retry; a delivery is tried once plus once per entry, then failed. */
  retries?: number[];
  /** How often the outbox is polled for rows other processes queued, and for retries due. */
  pollMs?: number;
}

export interface OutboxWorker {
  /** Stops polling and resolves once the deliveries in flight have ended. */
  stop(): Promise<void>;
  /** Polls now: call it after committing a transaction that queued deliveries. */
  wake(): void;
}

export function startOutboxWorker(_options: OutboxWorkerOptions): OutboxWorker {
  throw new Error("the outbox worker is not written yet");
}
