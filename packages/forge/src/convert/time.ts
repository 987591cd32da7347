import { readTime } from "@anvil/core";

/** A stored time as Gitea writes it: RFC 3339 to the second, in UTC. */
export function apiTime(value: string | Date): string {
  // SQLite keeps times as toISOString() wrote them: only the milliseconds need to go.
  if (typeof value === "string" && value.length === 24 && value.endsWith("Z"))
    return `${value.slice(0, 19)}Z`;
  return readTime(value)
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z");
}

/** Go's zero time, which Gitea sends for a time that never happened (a user who never signed in). */
export const ZERO_TIME = "0001-01-01T00:00:00Z";
