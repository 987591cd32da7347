import type { DialectName } from "@anvil/core";
import { type Kysely, sql } from "kysely";
import type { ForgeTables } from "../schemas/tables.ts";

/** Where a repository row says its bare repository is, and what a rebuilt one needs. */
export interface RepositoryLocation {
  id: number;
  owner_name: string;
  name: string;
  default_branch: string;
}

/**
 * Inside a transaction: waits for every transaction that is writing repository rows, and keeps new
 * ones waiting until this one ends. Creates, renames and deletes move directories before their
 * row commits, so what the holder sees on disk and in the table agree. SQLite needs no statement:
 * core begins its transactions IMMEDIATE, which already takes the database's one write lock.
 */
export async function lockRepositoryRows(trx: Kysely<ForgeTables>, dialect: DialectName): Promise<void> {
  if (dialect === "postgres") await sql`LOCK TABLE repository IN SHARE ROW EXCLUSIVE MODE`.execute(trx);
}

export function listRepositoryLocations(db: Kysely<ForgeTables>): Promise<RepositoryLocation[]> {
  return db
    .selectFrom("repository")
    .innerJoin("account", "account.id", "repository.owner_id")
    .select(["repository.id", "account.name as owner_name", "repository.name", "repository.default_branch"])
    .orderBy("repository.id")
    .execute();
}
