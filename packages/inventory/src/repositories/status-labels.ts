import type { AnyKysely } from "@anvil/core";
import type { Row } from "./records.ts";

// Reading status labels (Snipe-IT's status_labels); what a label means is resources/statuslabels.ts.

/** The labels with these ids, deleted or not; none for no ids (PostgreSQL refuses an empty `in ()`). */
export async function labelsWithIds(db: AnyKysely, ids: readonly number[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  return (await db.selectFrom("status_labels").selectAll().where("id", "in", ids).execute()) as Row[];
}

/** The undeleted labels, in id order. */
export async function undeletedLabels(db: AnyKysely): Promise<Row[]> {
  return (await db
    .selectFrom("status_labels")
    .selectAll()
    .where("deleted_at", "is", null)
    .orderBy("id")
    .execute()) as Row[];
}
