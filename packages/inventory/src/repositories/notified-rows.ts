import type { AnyKysely } from "@anvil/core";
import type { Row } from "./records.ts";

// The rows a notification names (services/notifications.ts): an asset with its model, label and
// location, a user's name, any other item's name. Read in the transaction of the change.

export async function notifiedAsset(trx: AnyKysely, id: number): Promise<Row | undefined> {
  return (await trx
    .selectFrom("assets")
    .leftJoin("models", "models.id", "assets.model_id")
    .leftJoin("status_labels", "status_labels.id", "assets.status_id")
    .leftJoin("locations", "locations.id", "assets.location_id")
    .select([
      "assets.id",
      "assets.name",
      "assets.asset_tag",
      "assets.serial",
      "assets.model_id",
      "models.name as model_name",
      "assets.status_id",
      "status_labels.name as status_name",
      "assets.location_id",
      "locations.name as location_name",
      "assets.assigned_to",
      "assets.assigned_type",
      "assets.expected_checkin",
      "assets.deleted_at",
    ])
    .where("assets.id", "=", id)
    .executeTakeFirst()) as Row | undefined;
}

export async function notifiedUser(trx: AnyKysely, id: number): Promise<Row | undefined> {
  return (await trx
    .selectFrom("users")
    .select(["first_name", "last_name", "username"])
    .where("id", "=", id)
    .executeTakeFirst()) as Row | undefined;
}

export async function notifiedItem(trx: AnyKysely, table: string, id: number): Promise<Row | undefined> {
  return (await trx.selectFrom(table).select("name").where("id", "=", id).executeTakeFirst()) as
    | Row
    | undefined;
}
