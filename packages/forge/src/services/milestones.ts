import { Invalid, NotFound, readBool, toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import { NOT_FOUND_MESSAGE } from "../errors.ts";
import {
  deleteMilestone,
  findMilestone,
  findMilestoneByName,
  insertMilestone,
  listMilestones,
  type MilestoneRow,
  updateMilestone,
} from "../repositories/milestones.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { pathId } from "./labels.ts";

export type { MilestoneRow } from "../repositories/milestones.ts";

// Milestones of a repository. Their issue counters are kept by the transactions that change an
// issue's milestone or state (moveMilestoneCounters), so showing one never counts.

// Gitea's milestone name is a VARCHAR(255) and its description a TEXT column.
const MAX_TITLE = 255;
const MAX_DESCRIPTION = 65535;
// Go's zero time, which Gitea's edit takes as "no new due date".
const ZERO_TIME = Date.parse("0001-01-01T00:00:00Z");
// Gitea keeps "no due date" as a date in the year 9999 and shows such dates as none.
const NO_DUE_DATE_YEAR = 9999;

export interface MilestoneFields {
  title?: string;
  description?: string;
  due_on?: string;
  state?: string;
}

function checkDescription(description: string | undefined): void {
  if (description !== undefined && description.length > MAX_DESCRIPTION)
    throw new Invalid("[Description]: MaxSize");
}

/** A title as Gitea stores it (trimmed), within its bound. */
function trimmedTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length > MAX_TITLE) throw new Invalid("[Title]: MaxSize");
  return trimmed;
}

/** A due date from the request (RFC 3339), to the second as Gitea keeps it; null for Gitea's "none". */
function dueDate(text: string): Date | null {
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new Invalid("[DueOn]: Format");
  const date = new Date(Math.floor(time / 1000) * 1000);
  return date.getUTCFullYear() >= NO_DUE_DATE_YEAR ? null : date;
}

export async function createMilestone(
  database: ForgeDatabase,
  repoId: number,
  input: MilestoneFields,
): Promise<MilestoneRow> {
  // Gitea's API would store an untitled milestone; its own form refuses one, and so does this.
  const title = trimmedTitle(input.title ?? "");
  if (title === "") throw new Invalid("[Title]: Required");
  checkDescription(input.description);
  const due = input.due_on === undefined ? null : dueDate(input.due_on);
  const now = new Date();
  const closed = input.state === "closed";
  const stored = (date: Date) => toStoredTime(date, database.dialect);
  return insertMilestone(database.db, {
    repo_id: repoId,
    name: title,
    description: input.description ?? "",
    is_closed: closed,
    due_on: due && stored(due),
    closed_at: closed ? stored(now) : null,
    created_at: stored(now),
    updated_at: stored(now),
  });
}

/**
 * Gitea's getMilestoneByIDOrName: a segment that is a number names the milestone with that id
 * and, when there is none, the one with that title; any other segment is a title.
 */
export async function getMilestone(
  database: ForgeDatabase,
  repoId: number,
  idOrName: string,
): Promise<MilestoneRow> {
  const id = pathId(idOrName);
  const milestone =
    (id ? await findMilestone(database.db, repoId, id) : undefined) ??
    (await findMilestoneByName(database.db, repoId, idOrName));
  if (!milestone) throw new NotFound(NOT_FOUND_MESSAGE);
  return milestone;
}

/** The milestone `id` of the repository, for an issue to take; undefined when there is none. */
export function findMilestoneForIssue(
  db: Kysely<ForgeTables>,
  repoId: number,
  id: number,
): Promise<MilestoneRow | undefined> {
  return Number.isSafeInteger(id) && id > 0 ? findMilestone(db, repoId, id) : Promise.resolve(undefined);
}

/** Gitea's `state` filter: closed, all, or (for anything else) open. */
export function listRepositoryMilestones(
  database: ForgeDatabase,
  repoId: number,
  query: { state?: string; name?: string; offset: number; limit: number },
) {
  const closed = query.state === "all" ? undefined : query.state === "closed";
  return listMilestones(database.db, database.dialect, repoId, {
    closed,
    name: query.name,
    offset: query.offset,
    limit: query.limit,
  });
}

/**
 * Gitea's EditMilestone: an empty title and the zero time change nothing; a given `state` closes
 * the milestone when it is "closed" and opens it otherwise. Closing stamps closed_at; reopening
 * clears it.
 */
export async function editMilestone(
  database: ForgeDatabase,
  milestone: MilestoneRow,
  edit: MilestoneFields,
): Promise<MilestoneRow> {
  const title = edit.title === undefined ? "" : trimmedTitle(edit.title);
  checkDescription(edit.description);
  const due = edit.due_on === undefined ? undefined : dueDate(edit.due_on);
  const now = toStoredTime(new Date(), database.dialect);
  const wasClosed = readBool(milestone.is_closed);
  const closed = edit.state === undefined ? wasClosed : edit.state === "closed";
  const closedAt = closed ? (wasClosed ? milestone.closed_at : now) : null;
  const updated = await updateMilestone(database.db, milestone.id, {
    ...(title !== "" ? { name: title } : {}),
    ...(edit.description !== undefined ? { description: edit.description } : {}),
    ...(due !== undefined && due?.getTime() !== ZERO_TIME
      ? { due_on: due && toStoredTime(due, database.dialect) }
      : {}),
    is_closed: closed,
    closed_at: closedAt,
    updated_at: now,
  });
  if (!updated) throw new NotFound(NOT_FOUND_MESSAGE);
  return updated;
}

export async function removeMilestone(database: ForgeDatabase, milestone: MilestoneRow): Promise<void> {
  await deleteMilestone(database.db, milestone.repo_id, milestone.id);
}
