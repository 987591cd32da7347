import type { Kysely } from "kysely";
import type { IssueRepository } from "../convert/issue.ts";
import type { PullSide, PullView } from "../convert/pull.ts";
import { refTips, repositoryPath } from "../git/index.ts";
import { type AccountRow, findAccountById, findAccountsByIds } from "../repositories/accounts.ts";
import type { IssueRow } from "../repositories/issues.ts";
import { countReviewComments, pullsOfIssues, requestedReviewersOf } from "../repositories/pulls.ts";
import { findRepositoryById, type RepositoryRow, topicsOfRepository } from "../repositories/repos.ts";
import type { ForgeTables } from "../schemas/tables.ts";
import { ACCESS_OWNER, type Permission, repositoryPermission } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { issueViews } from "./issues.ts";
import type { Storage } from "./repositories.ts";

// What a pull request's answer and payloads show besides its rows: both sides' repositories as the
// viewer may see them, the base branch's tip (read from git), who merged it, whose review is asked.

// Where the repositories are, per database (keyed as webhookUrls keys its site): webhook payloads
// of pulls are made deep in issue changes, which know the database and not the storage.
const storages = new WeakMap<object, Storage>();

export function registerPullStorage(db: Kysely<ForgeTables>, storage: Storage): void {
  storages.set(db.getExecutor().adapter, storage);
}

export function storageOf(db: Kysely<ForgeTables>): Storage | undefined {
  return storages.get(db.getExecutor().adapter);
}

export function pathOf(storage: Storage, where: IssueRepository): string {
  return repositoryPath(storage.root, where.owner.name, where.repository.name);
}

/** The repository a pull's base (or head) is in, as the viewer sees it. */
export interface PullRepository {
  repository: RepositoryRow;
  owner: AccountRow;
  permission: Permission;
}

/** Branch tips of a repository by branch name; none when the storage is unknown or git fails. */
async function branchTips(db: Kysely<ForgeTables>, where: IssueRepository): Promise<Map<string, string>> {
  const storage = storageOf(db);
  if (!storage) return new Map();
  const tips = await refTips(pathOf(storage, where)).catch(() => new Map<string, string>());
  const branches = new Map<string, string>();
  for (const [ref, id] of tips) if (ref.startsWith("refs/heads/")) branches.set(ref.slice(11), id);
  return branches;
}

/**
 * The pulls of these issues (all of the base repository `base`) as `viewer` sees them; `database`
 * may hold a transaction. A head repository other than the base is shown with the viewer's access
 * (or, with `permissionOf`, another one: payloads show repositories as their owners see them).
 */
export async function pullViews(
  database: ForgeDatabase,
  base: PullRepository,
  issues: readonly IssueRow[],
  viewer: AccountRow | undefined,
  permissionOf?: () => Permission,
): Promise<PullView[]> {
  const { db } = database;
  const ids = issues.map((issue) => issue.id);
  const [views, pulls, requested, baseTips, baseTopics] = await Promise.all([
    issueViews(db, issues),
    pullsOfIssues(db, ids),
    requestedReviewersOf(db, ids),
    branchTips(db, base),
    topicsOfRepository(db, base.repository.id),
  ]);
  const accounts = await findAccountsByIds(db, [
    ...[...pulls.values()].flatMap((pull) => (pull.merged_by_id === null ? [] : [pull.merged_by_id])),
    ...[...requested.values()].flat(),
  ]);
  const heads = new Map<number, PullSide["repository"]>();
  const baseSide = { ...base, topics: baseTopics };
  for (const pull of pulls.values()) {
    const id = pull.head_repo_id;
    if (id === null || id === base.repository.id || heads.has(id)) continue;
    heads.set(id, await headRepository(database, id, viewer, permissionOf));
  }
  const result: PullView[] = [];
  for (const view of views) {
    const pull = pulls.get(view.issue.id);
    if (!pull) continue;
    const headRepository =
      pull.head_repo_id === null
        ? undefined
        : pull.head_repo_id === base.repository.id
          ? baseSide
          : heads.get(pull.head_repo_id);
    result.push({
      issue: view,
      pull,
      base: { repository: baseSide, branch: pull.base_branch, sha: baseTips.get(pull.base_branch) ?? "" },
      head: { repository: headRepository, branch: pull.head_branch, sha: pull.head_commit_id },
      mergedBy: pull.merged_by_id === null ? undefined : accounts.get(pull.merged_by_id),
      requestedReviewers: (requested.get(view.issue.id) ?? []).flatMap((id) => accounts.get(id) ?? []),
      reviewComments: await countReviewComments(db, view.issue.id),
    });
  }
  return result;
}

async function headRepository(
  database: ForgeDatabase,
  id: number,
  viewer: AccountRow | undefined,
  permissionOf?: () => Permission,
): Promise<PullSide["repository"]> {
  const repository = await findRepositoryById(database.db, id);
  const owner = repository && (await findAccountById(database.db, repository.owner_id));
  if (!repository || !owner) return undefined;
  const permission = permissionOf
    ? permissionOf()
    : await repositoryPermission(database, repository, owner, viewer);
  return { repository, owner, permission, topics: await topicsOfRepository(database.db, id) };
}

/** The base repository of an issue's pull, as its owner sees it (for payloads). */
export async function ownerView(
  db: Kysely<ForgeTables>,
  repoId: number,
): Promise<PullRepository | undefined> {
  const repository = await findRepositoryById(db, repoId);
  const owner = repository && (await findAccountById(db, repository.owner_id));
  return repository && owner ? { repository, owner, permission: { mode: ACCESS_OWNER } } : undefined;
}
