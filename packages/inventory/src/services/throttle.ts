import { countHit, forgetOldWindows } from "../repositories/throttle.ts";
import type { InventoryDatabase } from "./database.ts";

// Laravel's `throttle:api` (spec §1.3): so many requests per user per minute; the answer says how
// many are left and, once over, how long until the next window.

export interface ThrottleVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  retryAfter: number;
}

export async function throttle(
  database: InventoryDatabase,
  userId: number,
  perMinute: number,
  now = Date.now(),
): Promise<ThrottleVerdict> {
  const window = Math.floor(now / 60_000);
  const hits = await countHit(database.db, userId, window);
  if (hits === 1) await forgetOldWindows(database.db, userId, window);
  return {
    allowed: hits <= perMinute,
    limit: perMinute,
    remaining: Math.max(0, perMinute - hits),
    retryAfter: Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000)),
  };
}
