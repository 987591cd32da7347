import { Forbidden, Invalid, NotFound, readBool, toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import { NOT_FOUND_MESSAGE } from "../errors.ts";
import type { AccountRow } from "../repositories/accounts.ts";
import {
  deleteLabel,
  findLabel,
  findLabelByName,
  findUsableLabels,
  insertLabel,
  type LabelOwner,
  type LabelRow,
  type LabelSort,
  listLabels,
  updateLabel,
} from "../repositories/labels.ts";
import type { RepositoryRow } from "../repositories/repos.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import { ACCESS_WRITE, accessTo } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { isOrganization, type RepositoryContext } from "./repositories.ts";

export type { LabelOwner, LabelRow } from "../repositories/labels.ts";

// Labels of a repository, and of an organization for use on all its repositories. Gitea stores
// the colour with '#' and shows it without; here it is stored as shown.

// Gitea's label columns are VARCHAR(255); its API binds no shorter limit.
const MAX_NAME = 255;
const MAX_DESCRIPTION = 255;
// Gitea sets no limit on how many labels an issue takes; this one is far above any real use.
const MAX_ISSUE_LABELS = 250;

const COLOR = /^#(?:[0-9a-f]{6}|[0-9a-f]{3})$/;
const SORTS: ReadonlySet<string> = new Set(["reversealphabetically", "leastissues", "mostissues"]);

export interface LabelFields {
  name?: string;
  color?: string;
  description?: string;
  exclusive?: boolean;
  is_archived?: boolean;
}

/**
 * Gitea's NormalizeColor: `#rgb`, `#rrggbb`, `rgb` or `rrggbb` in any case, spaces around
 * ignored; returned as six lowercase hex digits without '#'.
 */
export function normalizeColor(color: string): string {
  let text = color.trim().toLowerCase();
  if (text.length === 3 || text.length === 6) text = `#${text}`;
  // Bounded before the pattern sees it, and quoted in the message only when short.
  if (text.length > 7 || !COLOR.test(text)) throw new Invalid(`bad color code: ${text.slice(0, 16)}`);
  const hex = text.slice(1);
  return hex.length === 3 ? [...hex].map((digit) => digit + digit).join("") : hex;
}

function checkName(name: string): void {
  if (name.trim() === "") throw new Invalid("[Name]: Required");
  if (name.length > MAX_NAME) throw new Invalid("[Name]: MaxSize");
}

function checkDescription(description: string | undefined): void {
  if (description !== undefined && description.length > MAX_DESCRIPTION)
    throw new Invalid("[Description]: MaxSize");
}

/** Gitea's reqRepoWriter(issues, pulls): labels and milestones are managed with write on either unit. */
export function requireIssueWriter(context: RepositoryContext): void {
  if (
    accessTo(context.permission, "repo.issues") < ACCESS_WRITE &&
    accessTo(context.permission, "repo.pulls") < ACCESS_WRITE
  )
    throw new Forbidden("user should have a permission to write to a repo");
}

export async function createLabel(
  database: ForgeDatabase,
  owner: LabelOwner,
  input: LabelFields & { name: string; color: string },
): Promise<LabelRow> {
  checkName(input.name);
  if (input.color.trim() === "") throw new Invalid("[Color]: Required");
  const color = normalizeColor(input.color);
  checkDescription(input.description);
  const now = toStoredTime(new Date(), database.dialect);
  return insertLabel(database.db, {
    ...("repoId" in owner ? { repo_id: owner.repoId } : { org_id: owner.orgId }),
    name: input.name,
    color,
    description: input.description ?? "",
    exclusive: input.exclusive ?? false,
    archived_at: input.is_archived ? now : null,
    created_at: now,
    updated_at: now,
  });
}

/** An id when the text is a decimal integer (as Go's ParseInt reads it); undefined otherwise. */
export function pathId(text: string): number | undefined {
  if (!/^[-+]?\d{1,20}$/.test(text)) return undefined;
  const id = Number(text);
  // An id beyond what a number holds exactly names no row; 0 names none either.
  return Number.isSafeInteger(id) ? id : 0;
}

/** GET /labels/{id}: by id when the segment is a number, else by name (Gitea's GetLabel). */
export async function getLabel(
  database: ForgeDatabase,
  owner: LabelOwner,
  idOrName: string,
): Promise<LabelRow> {
  const id = pathId(idOrName);
  const label =
    id === undefined
      ? await findLabelByName(database.db, owner, idOrName)
      : await findLabel(database.db, owner, id);
  if (!label) throw new NotFound(NOT_FOUND_MESSAGE);
  return label;
}

/** PATCH and DELETE name the label by id only; anything else names no label. */
async function labelById(database: ForgeDatabase, owner: LabelOwner, idText: string): Promise<LabelRow> {
  const id = pathId(idText);
  const label = id ? await findLabel(database.db, owner, id) : undefined;
  if (!label) throw new NotFound(NOT_FOUND_MESSAGE);
  return label;
}

export function listOwnLabels(
  database: ForgeDatabase,
  owner: LabelOwner,
  query: { sort?: string; offset: number; limit: number },
) {
  const sort = (query.sort && SORTS.has(query.sort) ? query.sort : "alphabetically") as LabelSort;
  return listLabels(database.db, owner, { sort, offset: query.offset, limit: query.limit });
}

export async function editLabel(
  database: ForgeDatabase,
  owner: LabelOwner,
  idText: string,
  edit: LabelFields,
): Promise<LabelRow> {
  const label = await labelById(database, owner, idText);
  if (edit.name !== undefined) checkName(edit.name);
  const color = edit.color === undefined ? undefined : normalizeColor(edit.color);
  checkDescription(edit.description);
  const now = toStoredTime(new Date(), database.dialect);
  // Archiving keeps the first archive time, as Gitea's SetArchived; leaving `is_archived` out
  // leaves the label as it was.
  const archivedAt =
    edit.is_archived === undefined ? label.archived_at : edit.is_archived ? (label.archived_at ?? now) : null;
  const updated = await updateLabel(database.db, label.id, {
    ...(edit.name !== undefined ? { name: edit.name } : {}),
    ...(color !== undefined ? { color } : {}),
    ...(edit.description !== undefined ? { description: edit.description } : {}),
    ...(edit.exclusive !== undefined ? { exclusive: edit.exclusive } : {}),
    archived_at: archivedAt,
    updated_at: now,
  });
  if (!updated) throw new NotFound(NOT_FOUND_MESSAGE);
  return updated;
}

/** Deletes the label with its uses on issues; a label that is not there is no error (Gitea answers 204). */
export async function removeLabel(database: ForgeDatabase, owner: LabelOwner, idText: string): Promise<void> {
  const id = pathId(idText);
  if (id) await deleteLabel(database.db, owner, id);
}

/**
 * The labels an issue of `repository` may carry among `ids`: the repository's own and, when
 * `owner` is an organization, the organization's, by name. As Gitea does when it creates an issue
 * or adds or replaces its labels, ids that name no such label are dropped without an error;
 * repeated ids count once. More ids than any issue needs are refused.
 */
export async function resolveIssueLabels(
  db: Kysely<ForgeTables>,
  repository: RepositoryRow,
  owner: AccountRow,
  ids: number[],
): Promise<LabelRow[]> {
  const unique = [...new Set(ids)].filter((id) => Number.isSafeInteger(id) && id > 0);
  if (unique.length > MAX_ISSUE_LABELS) throw new Invalid(`too many labels: at most ${MAX_ISSUE_LABELS}`);
  const orgId = owner.id === repository.owner_id && isOrganization(owner) ? owner.id : undefined;
  return findUsableLabels(db, repository.id, orgId, unique);
}

/**
 * Gitea's ExclusiveScope: for an exclusive label named `scope/name`, the part before the last
 * '/'; "" for other labels (and for names with nothing before or after that '/').
 */
export function exclusiveScope(label: Pick<LabelRow, "name" | "exclusive">): string {
  if (!readBool(label.exclusive)) return "";
  const last = label.name.lastIndexOf("/");
  if (last <= 0 || last === label.name.length - 1) return "";
  return label.name.slice(0, last);
}

/**
 * Gitea's RemoveDuplicateExclusiveLabels: one label per exclusive scope, a later label in the
 * list winning over an earlier one.
 */
export function oneLabelPerScope(labels: LabelRow[]): LabelRow[] {
  return labels.filter((label, index) => {
    const scope = exclusiveScope(label);
    return scope === "" || !labels.slice(index + 1).some((later) => exclusiveScope(later) === scope);
  });
}

/**
 * An issue's labels once `added` are added to `current`: an added exclusive label takes the place
 * of the issue's other labels of its scope, as in Gitea; labels already there stay once.
 */
export function labelsAfterAdding(current: LabelRow[], added: LabelRow[]): LabelRow[] {
  const adding = oneLabelPerScope(added);
  const scopes = new Set(adding.map(exclusiveScope).filter((scope) => scope !== ""));
  const addedIds = new Set(adding.map((label) => label.id));
  const kept = current.filter((label) => !addedIds.has(label.id) && !scopes.has(exclusiveScope(label)));
  return [...kept, ...adding];
}
