import { containsText, countRows, type DialectName, forUpdate, prepared } from "@anvil/core";
import {
  type Insertable,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  sql,
  type Updateable,
} from "kysely";
import type { ForgeTables, IssueTable } from "../schemas/tables.ts";
import type { AccountRow } from "./accounts.ts";
import { issueMatches } from "./issue-search.ts";
import type { LabelRow } from "./labels.ts";
import type { MilestoneRow } from "./milestones.ts";

export type IssueRow = Selectable<IssueTable>;

/**
 * Takes the repository's next issue (or pull) number: one conditional write on the repository
 * row, so two transactions, in one process or two, never get the same number.
 */
export async function allocateIssueNumber(trx: Kysely<ForgeTables>, repoId: number): Promise<number> {
  const row = await trx
    .updateTable("repository")
    .set((eb) => ({
      last_issue_index: eb("last_issue_index", "+", 1),
      issue_version: eb("issue_version", "+", 1),
    }))
    .where("id", "=", repoId)
    .returning("last_issue_index")
    .executeTakeFirstOrThrow();
  return row.last_issue_index;
}

export function insertIssue(trx: Kysely<ForgeTables>, issue: Insertable<IssueTable>): Promise<IssueRow> {
  return trx.insertInto("issue").values(issue).returningAll().executeTakeFirstOrThrow();
}

const issueByNumber = prepared((db: Kysely<ForgeTables>, repoId: number, number: number) =>
  db.selectFrom("issue").selectAll().where("repo_id", "=", repoId).where("number", "=", number),
);

export async function findIssueByNumber(
  db: Kysely<ForgeTables>,
  repoId: number,
  number: number,
): Promise<IssueRow | undefined> {
  return (await issueByNumber(db, repoId, number))[0];
}

/** The issue as it is now, locked until the transaction ends (see core's claims). */
export function lockIssue(
  trx: Kysely<ForgeTables>,
  dialect: DialectName,
  id: number,
): Promise<IssueRow | undefined> {
  return trx
    .selectFrom("issue")
    .selectAll()
    .where("id", "=", id)
    .$call(forUpdate(dialect))
    .executeTakeFirst();
}

/** Locks the repository row until the transaction ends: what orders changes of its pinned issues. */
export async function lockRepositoryRow(
  trx: Kysely<ForgeTables>,
  dialect: DialectName,
  repoId: number,
): Promise<void> {
  await trx
    .selectFrom("repository")
    .select("id")
    .where("id", "=", repoId)
    .$call(forUpdate(dialect))
    .execute();
}

/** Changes an issue, and moves its repository's issue_version (see listIssueRows) in the same transaction. */
export async function updateIssueRow(
  trx: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<IssueTable>,
): Promise<IssueRow> {
  const issue = await trx
    .updateTable("issue")
    .set(changes)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx
    .updateTable("repository")
    .set((eb) => ({ issue_version: eb("issue_version", "+", 1) }))
    .where("id", "=", issue.repo_id)
    .execute();
  return issue;
}

export async function deleteIssueRow(trx: Kysely<ForgeTables>, id: number): Promise<void> {
  await trx.deleteFrom("issue").where("id", "=", id).execute();
}

/** How an issue's change moves the counters of its repository and milestone: +1, -1 or 0 each. */
export interface CounterChange {
  total: number;
  closed: number;
}

/** Moves the repository's issue (or pull) counters, and its issue_version, in the caller's transaction. */
export async function moveRepositoryCounters(
  trx: Kysely<ForgeTables>,
  repoId: number,
  isPull: boolean,
  change: CounterChange,
): Promise<void> {
  if (change.total === 0 && change.closed === 0) return;
  const total = isPull ? "num_pulls" : "num_issues";
  const closed = isPull ? "num_closed_pulls" : "num_closed_issues";
  await trx
    .updateTable("repository")
    .set((eb) => ({
      [total]: eb(total, "+", change.total),
      [closed]: eb(closed, "+", change.closed),
      issue_version: eb("issue_version", "+", 1),
    }))
    .where("id", "=", repoId)
    .execute();
}

/** Moves a milestone's issue counters in the caller's transaction. */
export async function moveMilestoneCounters(
  trx: Kysely<ForgeTables>,
  milestoneId: number,
  change: CounterChange,
): Promise<void> {
  if (change.total === 0 && change.closed === 0) return;
  await trx
    .updateTable("milestone")
    .set((eb) => ({
      num_issues: eb("num_issues", "+", change.total),
      num_closed_issues: eb("num_closed_issues", "+", change.closed),
    }))
    .where("id", "=", milestoneId)
    .execute();
}

// One issue's labels and assignees are read on every GET of an issue: prepared (core's prepared.ts).
const labelsOfOneIssue = prepared((db: Kysely<ForgeTables>, issueId: number) =>
  db
    .selectFrom("issue_label")
    .innerJoin("label", "label.id", "issue_label.label_id")
    .selectAll("label")
    .where("issue_label.issue_id", "=", issueId)
    .orderBy("label.name")
    .orderBy("label.id"),
);
const assigneesOfOneIssue = prepared((db: Kysely<ForgeTables>, issueId: number) =>
  db
    .selectFrom("issue_assignee")
    .innerJoin("account", "account.id", "issue_assignee.account_id")
    .selectAll("account")
    .where("issue_assignee.issue_id", "=", issueId)
    .orderBy("account.lower_name"),
);

/** The labels of each of these issues, by issue id, in name order. */
export async function labelsOfIssues(
  db: Kysely<ForgeTables>,
  issueIds: readonly number[],
): Promise<Map<number, LabelRow[]>> {
  if (issueIds.length === 1) return new Map([[issueIds[0], [...(await labelsOfOneIssue(db, issueIds[0]))]]]);
  const labels = new Map<number, LabelRow[]>(issueIds.map((id) => [id, []]));
  if (issueIds.length === 0) return labels;
  const rows = await db
    .selectFrom("issue_label")
    .innerJoin("label", "label.id", "issue_label.label_id")
    .selectAll("label")
    .select("issue_label.issue_id")
    .where("issue_label.issue_id", "in", issueIds)
    .orderBy("label.name")
    .orderBy("label.id")
    .execute();
  for (const { issue_id, ...label } of rows) labels.get(issue_id)?.push(label);
  return labels;
}

/** The assignees of each of these issues, by issue id, in name order. */
export async function assigneesOfIssues(
  db: Kysely<ForgeTables>,
  issueIds: readonly number[],
): Promise<Map<number, AccountRow[]>> {
  if (issueIds.length === 1)
    return new Map([[issueIds[0], [...(await assigneesOfOneIssue(db, issueIds[0]))]]]);
  const assignees = new Map<number, AccountRow[]>(issueIds.map((id) => [id, []]));
  if (issueIds.length === 0) return assignees;
  const rows = await db
    .selectFrom("issue_assignee")
    .innerJoin("account", "account.id", "issue_assignee.account_id")
    .selectAll("account")
    .select("issue_assignee.issue_id")
    .where("issue_assignee.issue_id", "in", issueIds)
    .orderBy("account.lower_name")
    .execute();
  for (const { issue_id, ...account } of rows) assignees.get(issue_id)?.push(account);
  return assignees;
}

export async function milestonesByIds(
  db: Kysely<ForgeTables>,
  ids: readonly number[],
): Promise<Map<number, MilestoneRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("milestone")
    .selectAll()
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** The tables that link an issue to other rows, and their column naming the other row. */
const ISSUE_LINKS = { issue_label: "label_id", issue_assignee: "account_id" } as const;
type IssueLink = keyof typeof ISSUE_LINKS;
/** Both link tables as one shape, so one query serves either. */
type IssueLinkTables = Record<IssueLink, Record<string, number>>;

function linkTables(trx: Kysely<ForgeTables>): Kysely<IssueLinkTables> {
  return trx as unknown as Kysely<IssueLinkTables>;
}

/** Links the issue to these labels or accounts (those already linked stay once). */
export async function linkIssue(
  trx: Kysely<ForgeTables>,
  table: IssueLink,
  issueId: number,
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return;
  const column = ISSUE_LINKS[table];
  await linkTables(trx)
    .insertInto(table)
    .values(ids.map((id) => ({ issue_id: issueId, [column]: id })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Unlinks the issue from these labels or accounts. */
export async function unlinkIssue(
  trx: Kysely<ForgeTables>,
  table: IssueLink,
  issueId: number,
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return;
  await linkTables(trx)
    .deleteFrom(table)
    .where("issue_id", "=", issueId)
    .where(ISSUE_LINKS[table], "in", ids)
    .execute();
}

/** The ids of every label with one of these names, in any repository or organization. */
export async function labelIdsNamed(db: Kysely<ForgeTables>, names: readonly string[]): Promise<number[]> {
  if (names.length === 0) return [];
  const rows = await db.selectFrom("label").select("id").where("name", "in", names).execute();
  return rows.map((row) => row.id);
}

/** Milestones of the repository by name or id, for list filters. */
export async function milestoneIdsNamed(
  db: Kysely<ForgeTables>,
  repoIds: readonly number[] | undefined,
  names: readonly string[],
  ids: readonly number[],
): Promise<number[]> {
  if (names.length === 0 && ids.length === 0) return [];
  let query = db.selectFrom("milestone").select("id");
  if (repoIds !== undefined) query = query.where("repo_id", "in", repoIds);
  const rows = await query
    .where((eb) =>
      eb.or([
        ...(names.length > 0 ? [eb("name", "in", names)] : []),
        ...(ids.length > 0 ? [eb("id", "in", ids)] : []),
      ]),
    )
    .execute();
  return rows.map((row) => row.id);
}

/** Which repositories a list reads issues from: one, or every one a reader may see (a subquery). */
export type IssueScope =
  | { repoId: number }
  | {
      /** The repositories whose issues, and those whose pulls, the reader may see (subqueries). */
      readableIssues: SelectQueryBuilder<ForgeTables, "repository", { id: number }>;
      readablePulls: SelectQueryBuilder<ForgeTables, "repository", { id: number }>;
    };

export interface IssueQuery {
  scope: IssueScope;
  isClosed?: boolean;
  isPull?: boolean;
  /** The issue must carry every one of these labels. */
  allLabelIds?: readonly number[];
  /** The issue must carry one of these labels at least. */
  anyLabelIds?: readonly number[];
  milestoneIds?: readonly number[];
  keyword?: string;
  posterId?: number;
  assigneeId?: number;
  /** Issues whose body mentions @name. */
  mentioned?: string;
  updatedSince?: string | Date;
  updatedBefore?: string | Date;
  /** Issues of this repository come first (the cross-repository search). */
  priorityRepoId?: number;
  offset: number;
  limit: number;
}

function filteredIssues(db: Kysely<ForgeTables>, dialect: DialectName, query: IssueQuery) {
  let selection = db.selectFrom("issue");
  const { scope } = query;
  selection =
    "repoId" in scope
      ? selection.where("issue.repo_id", "=", scope.repoId)
      : selection.where((eb) => {
          // A search's candidates are the text index's few matches: each one's repository is
          // looked up by its key (one word over 100,000 issues on SQLite: 1.03 ms, where listing
          // every readable repository first took 2.97 ms). Without a keyword every issue is a
          // candidate, and the list made once is the cheaper (39 ms against 47).
          const readable = (repositories: typeof scope.readableIssues) =>
            query.keyword
              ? eb.exists(repositories.where("repository.id", "=", sql.ref<number>("issue.repo_id")))
              : eb("issue.repo_id", "in", repositories);
          return eb.or([
            eb.and([eb("issue.is_pull", "=", false), readable(scope.readableIssues)]),
            eb.and([eb("issue.is_pull", "=", true), readable(scope.readablePulls)]),
          ]);
        });
  if (query.isClosed !== undefined) selection = selection.where("issue.is_closed", "=", query.isClosed);
  if (query.isPull !== undefined) selection = selection.where("issue.is_pull", "=", query.isPull);
  for (const labelId of query.allLabelIds ?? [])
    selection = selection.where(({ exists, selectFrom }) =>
      exists(
        selectFrom("issue_label")
          .select("issue_label.label_id")
          .whereRef("issue_label.issue_id", "=", "issue.id")
          .where("issue_label.label_id", "=", labelId),
      ),
    );
  const anyLabels = query.anyLabelIds;
  if (anyLabels !== undefined)
    selection = selection.where(({ exists, selectFrom }) =>
      exists(
        selectFrom("issue_label")
          .select("issue_label.label_id")
          .whereRef("issue_label.issue_id", "=", "issue.id")
          .where("issue_label.label_id", "in", anyLabels.length > 0 ? anyLabels : [0]),
      ),
    );
  if (query.milestoneIds !== undefined)
    selection = selection.where(
      "issue.milestone_id",
      "in",
      query.milestoneIds.length > 0 ? query.milestoneIds : [0],
    );
  if (query.keyword) selection = selection.where(issueMatches(db, query.keyword));
  if (query.posterId !== undefined) selection = selection.where("issue.poster_id", "=", query.posterId);
  const assigneeId = query.assigneeId;
  if (assigneeId !== undefined)
    selection = selection.where(({ exists, selectFrom }) =>
      exists(
        selectFrom("issue_assignee")
          .select("issue_assignee.account_id")
          .whereRef("issue_assignee.issue_id", "=", "issue.id")
          .where("issue_assignee.account_id", "=", assigneeId),
      ),
    );
  const mentioned = query.mentioned;
  if (mentioned !== undefined)
    selection = selection.where((eb) => containsText(dialect, eb.ref("issue.body"), `@${mentioned}`));
  if (query.updatedSince !== undefined)
    selection = selection.where("issue.updated_at", ">=", query.updatedSince);
  if (query.updatedBefore !== undefined)
    selection = selection.where("issue.updated_at", "<=", query.updatedBefore);
  return selection;
}

/** Where a page of a list starts: the last issue before it, in the list's order. */
interface PageBoundary {
  created_at: string | Date;
  id: number;
}

// What deep pages of a list cost is skipping the entries before them. The boundary of each page
// read (the last issue of the page before) and each list's total are kept under a key that names
// the repository's issue_version, which every change of its issues moves (in the database, so
// every process sees it): a kept boundary is exact until then, and the page after it is a seek.
const MAX_KEPT = 10_000;
interface Kept {
  boundaries: Map<string, PageBoundary>;
  totals: Map<string, number>;
}
/** Per database (a process holds one; tests hold several). */
const keptFor = new WeakMap<object, Kept>();

function keptOf(db: Kysely<ForgeTables>): Kept {
  let kept = keptFor.get(db);
  if (kept === undefined) {
    kept = { boundaries: new Map(), totals: new Map() };
    keptFor.set(db, kept);
  }
  return kept;
}

function keep<T>(map: Map<string, T>, key: string, value: T): void {
  if (map.size >= MAX_KEPT) map.clear();
  map.set(key, value);
}

/**
 * A page of issues, newest first as Gitea's API lists them, and how many match (unless the caller
 * knows it from the counters). The page's ids are read first, from the index alone, and only
 * then their rows. With `memoKey` (naming the repository's issue_version and the filters), page
 * boundaries and the total are kept, so that page 1,000 costs what page 1 does.
 */
export async function listIssueRows(
  db: Kysely<ForgeTables>,
  dialect: DialectName,
  query: IssueQuery,
  options: { knownTotal?: number; memoKey?: string } = {},
): Promise<{ rows: IssueRow[]; total: number }> {
  const selection = filteredIssues(db, dialect, query);
  const { memoKey } = options;
  const { boundaries, totals } = keptOf(db);
  const boundaryKey = (offset: number) => `${memoKey}\u0000${offset}`;
  const boundary =
    memoKey !== undefined && query.offset > 0 ? boundaries.get(boundaryKey(query.offset)) : undefined;
  let ordered = selection.select(["issue.id", "issue.created_at"]);
  const priority = query.priorityRepoId;
  if (priority !== undefined)
    ordered = ordered.orderBy(sql`case when ${sql.ref("issue.repo_id")} = ${priority} then 0 else 1 end`);
  ordered = ordered.orderBy("issue.created_at", "desc").orderBy("issue.id", "desc");
  // Without a kept boundary, the row before the page is read too, to keep it for the next time.
  const before = memoKey !== undefined && boundary === undefined && query.offset > 0 ? 1 : 0;
  const page = boundary
    ? ordered
        .where((eb) =>
          eb(eb.refTuple("issue.created_at", "issue.id"), "<", eb.tuple(boundary.created_at, boundary.id)),
        )
        .limit(query.limit)
    : ordered.limit(query.limit + before).offset(query.offset - before);
  const knownTotal = options.knownTotal ?? (memoKey === undefined ? undefined : totals.get(memoKey));
  // A search's page query counts its matches on its way (a window count), so that they are gone
  // through once, not twice: they are the text index's few. Other lists count apart: a window
  // count must visit every match before the first row, where the page alone stops after a page
  // (PostgreSQL, a label's 40,000 open issues: 481 ms against 0.1 ms and an 87 ms count). A seek
  // starts past some of the matches, and a page past the end has no row to carry the count.
  const countAlong = query.keyword !== undefined && knownTotal === undefined && boundary === undefined;
  const countApart = () => countRows(db, selection.select("issue.id"));
  // A page past the known end is empty without reading any of it.
  const [read, counted] = await Promise.all([
    knownTotal !== undefined && query.offset >= knownTotal
      ? []
      : countAlong
        ? page.select(sql<number>`count(*) over ()`.as("matches")).execute()
        : page.execute(),
    knownTotal ?? (countAlong ? undefined : countApart()),
  ]);
  const first = read[0];
  const total =
    counted ??
    (first !== undefined && "matches" in first
      ? Number(first.matches)
      : query.offset === 0
        ? 0
        : await countApart());
  const ids = read.slice(before);
  if (memoKey !== undefined) {
    if (knownTotal === undefined) keep(totals, memoKey, total);
    if (before === 1 && read.length > 0) keep(boundaries, boundaryKey(query.offset), read[0]);
    const last = ids.at(-1);
    if (last && ids.length === query.limit) keep(boundaries, boundaryKey(query.offset + query.limit), last);
  }
  if (ids.length === 0) return { rows: [], total };
  const rows = await db
    .selectFrom("issue")
    .selectAll()
    .where(
      "id",
      "in",
      ids.map((row) => row.id),
    )
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return { rows: ids.flatMap((row) => byId.get(row.id) ?? []), total };
}

/** The repository's pinned issues (or pulls), by pin position. */
export function pinnedIssueRows(
  db: Kysely<ForgeTables>,
  repoId: number,
  isPull: boolean,
): Promise<IssueRow[]> {
  return db
    .selectFrom("issue")
    .selectAll()
    .where("repo_id", "=", repoId)
    .where("is_pull", "=", isPull)
    .where("pin_order", ">", 0)
    .orderBy("pin_order")
    .execute();
}

export async function countPinned(
  trx: Kysely<ForgeTables>,
  repoId: number,
  isPull: boolean,
): Promise<number> {
  return countRows(
    trx,
    trx
      .selectFrom("issue")
      .select("id")
      .where("repo_id", "=", repoId)
      .where("is_pull", "=", isPull)
      .where("pin_order", ">", 0),
  );
}

/** Moves the pinned issues at and after (`step` +1) or after (`step` -1) `position` by one place. */
export async function shiftPins(
  trx: Kysely<ForgeTables>,
  where: { repoId: number; isPull: boolean },
  from: number,
  step: 1 | -1,
): Promise<void> {
  await trx
    .updateTable("issue")
    .set((eb) => ({ pin_order: eb("pin_order", "+", step) }))
    .where("repo_id", "=", where.repoId)
    .where("is_pull", "=", where.isPull)
    .where("pin_order", step > 0 ? ">=" : ">", from)
    .execute();
}

/**
 * Who may be assigned issues of the repository, as Gitea lists them: users with write access as
 * collaborators, or through a team of the owner organization that reaches the repository with
 * write on its code, issues or pulls (or admin, or the Owners team), in name order; active only.
 */
export function assignableAccounts(
  db: Kysely<ForgeTables>,
  repository: { id: number; owner_id: number },
): Promise<AccountRow[]> {
  const collaborators = db
    .selectFrom("collaboration")
    .select("account_id")
    .where("repo_id", "=", repository.id)
    .where("mode", ">=", 2);
  const teamMembers = db
    .selectFrom("team_user")
    .innerJoin("team", "team.id", "team_user.team_id")
    .select("team_user.account_id")
    .where("team.org_id", "=", repository.owner_id)
    .where((eb) =>
      eb.or([
        eb("team.includes_all_repositories", "=", true),
        eb.exists(
          eb
            .selectFrom("team_repo")
            .select("team_repo.repo_id")
            .whereRef("team_repo.team_id", "=", "team.id")
            .where("team_repo.repo_id", "=", repository.id),
        ),
      ]),
    )
    .where((eb) =>
      eb.or([
        eb("team.authorize", "in", ["admin", "owner"]),
        eb.exists(
          eb
            .selectFrom("team_unit")
            .select("team_unit.id")
            .whereRef("team_unit.team_id", "=", "team.id")
            .where("team_unit.unit", "in", ["repo.code", "repo.issues", "repo.pulls"])
            .where("team_unit.access_mode", "in", ["write", "admin"]),
        ),
      ]),
    );
  return db
    .selectFrom("account")
    .selectAll()
    .where("type", "=", 0)
    .where("is_active", "=", true)
    .where((eb) =>
      eb.or([eb("id", "in", collaborators), eb("id", "in", teamMembers), eb("id", "=", repository.owner_id)]),
    )
    .orderBy("lower_name")
    .execute();
}
