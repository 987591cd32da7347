// Values of the settings every database-backed service has, kept apart from the HTTP and database
// code so the command line can check them without loading either.
import { isIP } from "node:net";
import type { TrustProxy } from "../http/server.ts";

function isAddressOrRange(text: string): boolean {
  const [address, bits, extra] = text.split("/");
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

/**
 * The `trust-proxy` setting as text: empty or `false` (trust no proxy), `true` (trust every hop),
 * or a comma-separated list of addresses and CIDR ranges. Undefined when invalid. No hop count:
 * fastify ignores one, since it cannot tell a proxy from a client that adds hops itself.
 */
export function parseTrustProxy(text: string): TrustProxy | undefined {
  const value = text.trim();
  if (value === "" || value === "false") return false;
  if (value === "true") return true;
  const entries = value.split(",").map((entry) => entry.trim());
  return entries.every(isAddressOrRange) ? entries : undefined;
}

/** How long in-flight requests may run after a stop is asked for, unless configured. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export interface LoginLimits {
  /** Failed logins to one account name within a window before further ones are refused; 0: no limit. */
  accountFailures: number;
  /** Failed logins from one client address (an IPv6 /64) within a window; 0: no limit. */
  addressFailures: number;
  /** The sliding window, in seconds. */
  windowSeconds: number;
  /** How long an address that signed in to an account is exempt from that account's limit, in seconds. */
  trustSeconds: number;
}

export const DEFAULT_LOGIN_LIMITS: Readonly<LoginLimits> = Object.freeze({
  accountFailures: 10,
  addressFailures: 30,
  windowSeconds: 15 * 60,
  trustSeconds: 30 * 24 * 60 * 60,
});
