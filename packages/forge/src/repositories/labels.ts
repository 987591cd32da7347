import { countRows } from "@anvil/core";
import type { ExpressionBuilder, Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { ForgeTables, LabelTable } from "../schemas/tables.ts";

export type LabelRow = Selectable<LabelTable>;

/** Whose labels: a repository's (`repoId`) or an organization's (`orgId`). */
export type LabelOwner = { repoId: number } | { orgId: number };

/** Gitea's label list orders: by name (the default), reversed, or by how many issues carry them. */
export type LabelSort = "alphabetically" | "reversealphabetically" | "leastissues" | "mostissues";

function ownedBy(owner: LabelOwner) {
  return "repoId" in owner ? (["repo_id", owner.repoId] as const) : (["org_id", owner.orgId] as const);
}

export function insertLabel(db: Kysely<ForgeTables>, label: Insertable<LabelTable>): Promise<LabelRow> {
  return db.insertInto("label").values(label).returningAll().executeTakeFirstOrThrow();
}

export function findLabel(
  db: Kysely<ForgeTables>,
  owner: LabelOwner,
  id: number,
): Promise<LabelRow | undefined> {
  const [column, value] = ownedBy(owner);
  return db.selectFrom("label").selectAll().where("id", "=", id).where(column, "=", value).executeTakeFirst();
}

export function findLabelByName(
  db: Kysely<ForgeTables>,
  owner: LabelOwner,
  name: string,
): Promise<LabelRow | undefined> {
  const [column, value] = ownedBy(owner);
  return db
    .selectFrom("label")
    .selectAll()
    .where(column, "=", value)
    .where("name", "=", name)
    .orderBy("id")
    .executeTakeFirst();
}

export async function listLabels(
  db: Kysely<ForgeTables>,
  owner: LabelOwner,
  query: { sort: LabelSort; offset: number; limit: number },
): Promise<{ rows: LabelRow[]; total: number }> {
  const [column, value] = ownedBy(owner);
  const selection = db.selectFrom("label").selectAll("label").where(column, "=", value);
  const issues = (eb: ExpressionBuilder<ForgeTables, "label">) =>
    eb
      .selectFrom("issue_label")
      .select((inner) => inner.fn.countAll().as("n"))
      .whereRef("issue_label.label_id", "=", "label.id");
  const ordered =
    query.sort === "reversealphabetically"
      ? selection.orderBy("name", "desc")
      : query.sort === "leastissues"
        ? selection.orderBy(issues, "asc")
        : query.sort === "mostissues"
          ? selection.orderBy(issues, "desc")
          : selection.orderBy("name", "asc");
  const [rows, total] = await Promise.all([
    ordered.orderBy("id").offset(query.offset).limit(query.limit).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

export function updateLabel(
  db: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<LabelTable>,
): Promise<LabelRow | undefined> {
  return db.updateTable("label").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
}

/** Deletes the label (its issue_label rows and label events go with it, by their foreign keys). */
export async function deleteLabel(db: Kysely<ForgeTables>, owner: LabelOwner, id: number): Promise<void> {
  const [column, value] = ownedBy(owner);
  await db.deleteFrom("label").where("id", "=", id).where(column, "=", value).execute();
}

/**
 * Those of `ids` that are labels of the repository, or of the organization `orgId` that owns it,
 * by name as Gitea lists an issue's labels.
 */
export function findUsableLabels(
  db: Kysely<ForgeTables>,
  repoId: number,
  orgId: number | undefined,
  ids: number[],
): Promise<LabelRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("label")
    .selectAll()
    .where("id", "in", ids)
    .where(usableIn(repoId, orgId))
    .orderBy("name")
    .orderBy("id")
    .execute();
}

/**
 * Labels of the repository or of the organization that owns it with these exact names, as Gitea
 * matches them (only organizations have labels of their own, so the owner's id serves).
 */
export function findUsableLabelsNamed(
  db: Kysely<ForgeTables>,
  repository: { id: number; owner_id: number },
  names: readonly string[],
): Promise<LabelRow[]> {
  if (names.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("label")
    .selectAll()
    .where("name", "in", [...new Set(names)])
    .where(usableIn(repository.id, repository.owner_id))
    .execute();
}

/** The labels usable in repository `repoId`: its own, and those of the organization `orgId` owning it. */
function usableIn(repoId: number, orgId: number | undefined) {
  return (eb: ExpressionBuilder<ForgeTables, "label">) =>
    orgId === undefined
      ? eb("repo_id", "=", repoId)
      : eb.or([eb("repo_id", "=", repoId), eb("org_id", "=", orgId)]);
}
