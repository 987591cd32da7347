import { type Database, type DialectName, toStoredTime } from "@anvil/core";
import type { Kysely, Transaction } from "kysely";
import type { InventoryTables } from "../schemas/tables.ts";

export type InventoryDatabase = Database<InventoryTables>;
/** The database or a transaction on it: what repositories and logAction write through. */
export type Executor = Kysely<InventoryTables> | Transaction<InventoryTables>;

/** Now, as the timestamp columns store it. */
export function storedNow(dialect: DialectName): string | Date {
  return toStoredTime(new Date(), dialect);
}
