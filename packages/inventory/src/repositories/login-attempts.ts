import type { Insertable } from "kysely";
import type { LoginAttemptTable } from "../schemas/tables.ts";
import type { Executor } from "../services/database.ts";

/** How many sign-ins the log keeps: the newest, so a flood of guesses cannot grow it without end. */
export const LOGIN_ATTEMPTS_KEPT = 10_000;

export async function recordLoginAttempt(
  db: Executor,
  attempt: Insertable<LoginAttemptTable>,
): Promise<void> {
  const { id } = await db
    .insertInto("login_attempts")
    .values(attempt)
    .returning("id")
    .executeTakeFirstOrThrow();
  await db
    .deleteFrom("login_attempts")
    .where("id", "<=", Number(id) - LOGIN_ATTEMPTS_KEPT)
    .execute();
}
