/**
 * Claims: writes that must succeed exactly once however many requests race for them — checking
 * out an asset or a licence seat, taking a quantity from stock, taking a unique name. Several
 * processes may serve one PostgreSQL, and two may open one SQLite file, so the database decides;
 * a check in memory never does. Three patterns, in order of preference:
 *
 * 1. Conditional update. Put what makes the claim valid in the UPDATE's WHERE and let the number
 *    of rows changed say who won:
 *
 *        const result = await db.updateTable("asset").set({ assigned_to: userId })
 *          .where("id", "=", assetId).where("assigned_to", "is", null)
 *          .executeTakeFirstOrThrow();
 *        if (!claimed(result)) throw new Conflict("asset is already checked out");
 *
 *    Stock is the same: `set quantity = quantity - n where id = ? and quantity >= n`. It is one
 *    statement and holds no lock across a round trip: PostgreSQL re-checks the WHERE against a row
 *    a concurrent winner has just committed, SQLite runs writers one at a time. Use it whenever the
 *    decision fits in a WHERE. When the claim is one of several writes (the check-out and its log
 *    entry), run them in one transaction.
 *
 * 2. Locked read, then write, inside `db.transaction()`: when code must see the row to decide
 *    (rules too rich for a WHERE, an error that names the current holder, several rows decided
 *    together):
 *
 *        await db.transaction().execute(async (trx) => {
 *          const asset = await trx.selectFrom("asset").selectAll().where("id", "=", assetId)
 *            .$call(forUpdate(dialect)).executeTakeFirst();
 *          // decide, then update
 *        });
 *
 *    On PostgreSQL forUpdate adds FOR UPDATE: a second transaction waits at that read until the
 *    first ends, then reads what it wrote. A plain read is not enough there (32 racing
 *    read-then-assign transactions gave 10 winners). SQLite has no FOR UPDATE (kysely's
 *    `.forUpdate()` is a syntax error there) and needs none: core starts SQLite transactions with
 *    BEGIN IMMEDIATE, so a transaction holds the write lock from its first statement and other
 *    connections, in this process or another, wait for it. Outside a transaction the lock ends
 *    with the statement and protects nothing. Lock several rows in one order (by id) so two
 *    transactions cannot each hold what the other waits for.
 *
 * 3. Unique names. A unique constraint decides, never a "does it exist?" query first: insert, and
 *    when `isUniqueViolation(error)`, answer the API's duplicate error.
 *
 * Counters and create-or-update need no helper: kysely's `onConflict(...).doUpdateSet(...)` with
 * `returning(...)` is one atomic INSERT … ON CONFLICT … DO UPDATE … RETURNING on both databases
 * (SQLite since 3.35), and returns the row as this statement left it.
 */
import type { SelectQueryBuilder, UpdateResult } from "kysely";
import type { DialectName } from "./database.ts";

/** Locks the rows a select reads until the transaction ends, on either database (see above). */
export function forUpdate(
  dialect: DialectName,
): <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, TB, O> {
  return (query) => (dialect === "postgres" ? query.forUpdate() : query);
}

/** Whether a conditional update changed a row: this caller won the claim. */
export function claimed(result: UpdateResult): boolean {
  return result.numUpdatedRows > 0n;
}
