import { readTime } from "@anvil/core";

/** A stored time as Gitea writes it: RFC 3339 to the second, in UTC. */
export function apiTime(value: string | Date): string {
  return readTime(value)
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z");
}

/** Go's zero time, which Gitea sends for a time that never happened (a user who never signed in). */
export const ZERO_TIME = "0001-01-01T00:00:00Z";
