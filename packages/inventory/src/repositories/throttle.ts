import { sql } from "kysely";
import type { Executor } from "../services/database.ts";

/**
 * Counts one request of `userId` in the minute `window` and returns the count so far: one atomic
 * INSERT … ON CONFLICT DO UPDATE … RETURNING, so processes sharing the database count together.
 */
export async function countHit(db: Executor, userId: number, window: number): Promise<number> {
  const row = await db
    .insertInto("api_throttle")
    .values({ user_id: userId, window_start: window, hits: 1 })
    .onConflict((conflict) =>
      conflict.columns(["user_id", "window_start"]).doUpdateSet({ hits: sql<number>`api_throttle.hits + 1` }),
    )
    .returning("hits")
    .executeTakeFirstOrThrow();
  return Number(row.hits);
}

/** Forgets the user's windows before `window`; they can no longer limit anything. */
export async function forgetOldWindows(db: Executor, userId: number, window: number): Promise<void> {
  await db
    .deleteFrom("api_throttle")
    .where("user_id", "=", userId)
    .where("window_start", "<", window)
    .execute();
}
