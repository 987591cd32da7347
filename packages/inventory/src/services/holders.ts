import type { AnyKysely } from "@anvil/core";
import { escaped } from "../convert/format.ts";
import { holderRow } from "../repositories/asset-checkouts.ts";
import type { Row } from "../repositories/records.ts";
import { inCallersCompany } from "./companies.ts";
import type { Executor } from "./database.ts";
import type { Caller } from "./permissions.ts";

// Who can hold a checked-out item (spec §24): users, locations and assets, each undeleted. Assets
// are referenced by plain id columns and checked here rather than by a foreign key.

export type HolderType = "user" | "location" | "asset";

/** A user, a location or an asset that holds checked-out things. */
export interface Holder {
  type: HolderType;
  id: number;
}

const TABLES = { user: "users", location: "locations", asset: "assets" } as const;

/**
 * The undeleted holder of this type and id, if the caller may see it: under full multiple
 * companies support, nothing is checked out to another company's user or asset.
 */
export async function findHolder(
  db: Executor,
  caller: Caller,
  type: HolderType,
  id: number,
): Promise<Row | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  const table = TABLES[type];
  return holderRow(db as AnyKysely, table, id, (select) => inCallersCompany(select, caller, table));
}

/** Whether findHolder finds the holder. */
export async function holderExists(
  db: Executor,
  caller: Caller,
  type: HolderType,
  id: number,
): Promise<boolean> {
  return (await findHolder(db, caller, type, id)) !== undefined;
}

/** Users by id, for the compact objects of check-out rows. */
export async function usersById(db: Executor, ids: readonly number[]) {
  const wanted = [...new Set(ids)];
  const rows =
    wanted.length === 0
      ? []
      : await db
          .selectFrom("users")
          .select([
            "id",
            "first_name",
            "last_name",
            "username",
            "email",
            "department_id",
            "location_id",
            "created_by",
            "created_at",
            "deleted_at",
          ])
          .where("id", "in", wanted)
          .execute();
  return new Map(rows.map((row) => [Number(row.id), row]));
}

export async function assetsById(db: Executor, ids: readonly number[]) {
  const wanted = [...new Set(ids)];
  const rows =
    wanted.length === 0
      ? []
      : await db
          .selectFrom("assets")
          .leftJoin("models", "models.id", "assets.model_id")
          .select([
            "assets.id",
            "assets.name",
            "assets.asset_tag",
            "assets.serial",
            "assets.location_id",
            "assets.created_at",
            "models.name as model",
            "models.model_number",
          ])
          .where("assets.id", "in", wanted)
          .execute();
  return new Map(rows.map((row) => [Number(row.id), row]));
}

export async function locationsById(db: Executor, ids: readonly number[]) {
  const wanted = [...new Set(ids)];
  const rows =
    wanted.length === 0
      ? []
      : await db
          .selectFrom("locations")
          .select(["id", "name", "created_at"])
          .where("id", "in", wanted)
          .execute();
  return new Map(rows.map((row) => [Number(row.id), row]));
}

/** A user's display name: first and last name. */
export function fullName(user: { first_name: string; last_name: string | null }): string {
  return escaped(`${user.first_name} ${user.last_name ?? ""}`.trim()) ?? "";
}
