import type { AnyKysely } from "@anvil/core";
import { sql } from "kysely";
import type { RequestOrigin } from "./activity.ts";
import type { InventoryDatabase } from "./database.ts";
import type { Caller } from "./permissions.ts";
import type { WriteContext } from "./resource.ts";

// Many writes in one request (POST /hardware/bulk/{action}): one transaction, each item in a
// savepoint of its own. A failed statement on PostgreSQL spoils the whole transaction unless it
// is rolled back to a savepoint, so without them one refused item (a unique index) would end the
// others' work too; with them every item is tried and its answer is the one it would get alone.
// Either every item holds and the transaction commits, or (all-or-nothing, the default) the first
// failure dooms the transaction, which still runs the other items to say which fail and why, then
// rolls back. With `partial`, each failed item is undone to its savepoint and the rest commit.
//
// Savepoints rather than a transaction per item for `partial`: one commit (one fsync on SQLite,
// one round of WAL on PostgreSQL) instead of 500, the same code as all-or-nothing, and the answer
// describes what is committed, never a state other writers saw half-way.

/** How one item ended: the answer it gets, and whether that answer is a refusal. */
export interface BulkOutcome<Answer> {
  answer: Answer;
  failed: boolean;
}

export interface BulkWork<Item, Answer> {
  /** One item's write and answer, inside the bulk transaction. */
  run: (context: WriteContext, item: Item) => Promise<BulkOutcome<Answer>>;
  /**
   * The answer to an error `run` threw, called once the item's savepoint is rolled back; rethrows
   * what no single route answers (a failure of the server), which rolls everything back.
   */
  settle: (error: unknown, item: Item) => BulkOutcome<Answer>;
}

export interface BulkResult<Answer> {
  /** One per item, in the order given. */
  outcomes: BulkOutcome<Answer>[];
  /** Whether the items that held are stored (false: nothing is). */
  committed: boolean;
}

/** Thrown out of the transaction to roll it back once every item has its answer. */
class RollBack extends Error {}

/** One item's write in a savepoint of its own, undone when it fails; its answer. */
export async function inSavepoint<Item, Answer>(
  context: WriteContext,
  item: Item,
  work: BulkWork<Item, Answer>,
): Promise<BulkOutcome<Answer>> {
  const statement = (text: string) => sql.raw(text).execute(context.trx);
  await statement("savepoint bulk_item");
  let outcome: BulkOutcome<Answer>;
  try {
    outcome = await work.run(context, item);
    // A refusal answered without an error (a restore of an undeleted asset) is undone too.
    if (outcome.failed) await statement("rollback to savepoint bulk_item");
  } catch (error) {
    await statement("rollback to savepoint bulk_item");
    outcome = work.settle(error, item);
  }
  await statement("release savepoint bulk_item");
  return outcome;
}

export async function inOneTransaction<Item, Answer>(
  database: InventoryDatabase,
  caller: Caller,
  origin: RequestOrigin,
  items: readonly Item[],
  options: { partial: boolean },
  work: BulkWork<Item, Answer>,
): Promise<BulkResult<Answer>> {
  const outcomes: BulkOutcome<Answer>[] = [];
  try {
    await (database.db as AnyKysely).transaction().execute(async (trx) => {
      const context: WriteContext = { database, trx: trx as AnyKysely, caller, origin };
      for (const item of items) outcomes.push(await inSavepoint(context, item, work));
      if (!options.partial && outcomes.some((outcome) => outcome.failed)) throw new RollBack();
    });
  } catch (error) {
    if (error instanceof RollBack) return { outcomes, committed: false };
    throw error;
  }
  return { outcomes, committed: true };
}
