import { containsText, countRows, type DialectName, prepared, readBool } from "@anvil/core";
import type { Insertable, Kysely, Selectable, Updateable } from "kysely";
import type { ForgeTables, RepositoryTable } from "../schemas/tables.ts";

export type RepositoryRow = Selectable<RepositoryTable>;

const repositoryByName = prepared((db: Kysely<ForgeTables>, ownerId: number, lowerName: string) =>
  db.selectFrom("repository").selectAll().where("owner_id", "=", ownerId).where("lower_name", "=", lowerName),
);

export async function findRepository(
  db: Kysely<ForgeTables>,
  ownerId: number,
  name: string,
): Promise<RepositoryRow | undefined> {
  return (await repositoryByName(db, ownerId, name.toLowerCase()))[0];
}

export function findRepositoryById(db: Kysely<ForgeTables>, id: number): Promise<RepositoryRow | undefined> {
  return db.selectFrom("repository").selectAll().where("id", "=", id).executeTakeFirst();
}

export function insertRepository(
  db: Kysely<ForgeTables>,
  repository: Insertable<RepositoryTable>,
): Promise<RepositoryRow> {
  return db.insertInto("repository").values(repository).returningAll().executeTakeFirstOrThrow();
}

export function updateRepository(
  db: Kysely<ForgeTables>,
  id: number,
  changes: Updateable<RepositoryTable>,
): Promise<RepositoryRow | undefined> {
  return db.updateTable("repository").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
}

export async function deleteRepositoryRow(db: Kysely<ForgeTables>, id: number): Promise<void> {
  await db.deleteFrom("repository").where("id", "=", id).execute();
}

export interface RepositoryQuery {
  ownerId?: number;
  /** Repositories this account owns or collaborates on. */
  involvedId?: number;
  /** Only repositories where this account collaborates (besides owning). */
  collaboratorId?: number;
  keyword?: string;
  includeDescription?: boolean;
  /** Who reads: private repositories show for `all` (site admins), or for their owner and collaborators. */
  reader: "all" | number | undefined;
  isPrivate?: boolean;
  archived?: boolean;
  template?: boolean;
  sort: "lower_name" | "created_at" | "updated_at" | "id";
  order: "asc" | "desc";
  offset: number;
  limit: number;
}

export async function listRepositories(
  db: Kysely<ForgeTables>,
  dialect: DialectName,
  query: RepositoryQuery,
): Promise<{ rows: RepositoryRow[]; total: number }> {
  const collaboratesOn = (accountId: number) =>
    db.selectFrom("collaboration").select("repo_id").where("account_id", "=", accountId);
  const reachedByTeams = (accountId: number) =>
    db
      .selectFrom("team_repo")
      .innerJoin("team_user", "team_user.team_id", "team_repo.team_id")
      .select("team_repo.repo_id")
      .where("team_user.account_id", "=", accountId);
  const organizationsWholly = (accountId: number) =>
    db
      .selectFrom("team")
      .innerJoin("team_user", "team_user.team_id", "team.id")
      .select("team.org_id")
      .where("team_user.account_id", "=", accountId)
      .where("team.includes_all_repositories", "=", true);
  let selection = db.selectFrom("repository").selectAll();
  if (query.ownerId !== undefined) selection = selection.where("owner_id", "=", query.ownerId);
  if (query.involvedId !== undefined) {
    const involved = query.involvedId;
    selection = selection.where((eb) =>
      eb.or([eb("owner_id", "=", involved), eb("id", "in", collaboratesOn(involved))]),
    );
  }
  if (query.collaboratorId !== undefined)
    selection = selection.where("id", "in", collaboratesOn(query.collaboratorId));
  const reader = query.reader;
  if (reader === undefined) selection = selection.where("is_private", "=", false);
  else if (reader !== "all") {
    selection = selection.where((eb) =>
      eb.or([
        eb("is_private", "=", false),
        eb("owner_id", "=", reader),
        eb("id", "in", collaboratesOn(reader)),
        eb("id", "in", reachedByTeams(reader)),
        eb("owner_id", "in", organizationsWholly(reader)),
      ]),
    );
  }
  if (query.isPrivate !== undefined) selection = selection.where("is_private", "=", query.isPrivate);
  if (query.archived !== undefined) selection = selection.where("is_archived", "=", query.archived);
  if (query.template !== undefined) selection = selection.where("is_template", "=", query.template);
  if (query.keyword) {
    const keyword = query.keyword;
    selection = selection.where((eb) =>
      eb.or([
        containsText(dialect, eb.ref("lower_name"), keyword),
        ...(query.includeDescription ? [containsText(dialect, eb.ref("description"), keyword)] : []),
      ]),
    );
  }
  const [rows, total] = await Promise.all([
    selection
      .orderBy(query.sort, query.order)
      .orderBy("id")
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

/** This account's collaboration modes on these repositories, by repository id. */
export async function collaborationModes(
  db: Kysely<ForgeTables>,
  accountId: number,
  repoIds: number[],
): Promise<Map<number, number>> {
  if (repoIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("collaboration")
    .select(["repo_id", "mode"])
    .where("account_id", "=", accountId)
    .where("repo_id", "in", repoIds)
    .execute();
  return new Map(rows.map((row) => [row.repo_id, row.mode]));
}

const collaborationOn = prepared((db: Kysely<ForgeTables>, repoId: number, accountId: number) =>
  db
    .selectFrom("collaboration")
    .selectAll()
    .where("repo_id", "=", repoId)
    .where("account_id", "=", accountId),
);

export async function findCollaboration(db: Kysely<ForgeTables>, repoId: number, accountId: number) {
  return (await collaborationOn(db, repoId, accountId))[0];
}

export async function upsertCollaboration(
  db: Kysely<ForgeTables>,
  repoId: number,
  accountId: number,
  mode: number,
): Promise<void> {
  await db
    .insertInto("collaboration")
    .values({ repo_id: repoId, account_id: accountId, mode })
    .onConflict((oc) => oc.columns(["repo_id", "account_id"]).doUpdateSet({ mode }))
    .execute();
}

export async function deleteCollaboration(
  db: Kysely<ForgeTables>,
  repoId: number,
  accountId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom("collaboration")
    .where("repo_id", "=", repoId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function listCollaborators(
  db: Kysely<ForgeTables>,
  repoId: number,
  window: { offset: number; limit: number },
) {
  const selection = db
    .selectFrom("collaboration")
    .innerJoin("account", "account.id", "collaboration.account_id")
    .selectAll("account")
    .select("collaboration.mode")
    .where("collaboration.repo_id", "=", repoId);
  const [rows, total] = await Promise.all([
    selection.orderBy("account.lower_name").limit(window.limit).offset(window.offset).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}

/** Each repository's topics, by repository id, in one query. */
const topicsByRepository = prepared((db: Kysely<ForgeTables>, repoId: number) =>
  db.selectFrom("repo_topic").select("name").where("repo_id", "=", repoId).orderBy("name"),
);

/** One repository's topic rows, as prepared() keeps them (the same array while nothing changed). */
export function topicRowsOfRepository(
  db: Kysely<ForgeTables>,
  repoId: number,
): Promise<readonly { name: string }[]> {
  return topicsByRepository(db, repoId);
}

/** One repository's topics, by name. */
export async function topicsOfRepository(db: Kysely<ForgeTables>, repoId: number): Promise<string[]> {
  return (await topicRowsOfRepository(db, repoId)).map((row) => row.name);
}

/** The topics of several repositories, by repository id. */
export async function topicsOf(db: Kysely<ForgeTables>, repoIds: number[]): Promise<Map<number, string[]>> {
  const topics = new Map<number, string[]>(repoIds.map((id) => [id, []]));
  if (repoIds.length === 0) return topics;
  const rows = await db
    .selectFrom("repo_topic")
    .selectAll()
    .where("repo_id", "in", repoIds)
    .orderBy("name")
    .execute();
  for (const row of rows) topics.get(row.repo_id)?.push(row.name);
  return topics;
}

export async function replaceTopics(
  db: Kysely<ForgeTables>,
  repoId: number,
  topics: string[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("repo_topic").where("repo_id", "=", repoId).execute();
    if (topics.length > 0)
      await trx
        .insertInto("repo_topic")
        .values(topics.map((name) => ({ repo_id: repoId, name })))
        .execute();
  });
}

export async function addTopic(db: Kysely<ForgeTables>, repoId: number, name: string): Promise<void> {
  await db
    .insertInto("repo_topic")
    .values({ repo_id: repoId, name })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function deleteTopic(db: Kysely<ForgeTables>, repoId: number, name: string): Promise<void> {
  await db.deleteFrom("repo_topic").where("repo_id", "=", repoId).where("name", "=", name).execute();
}

/**
 * What the account's teams grant: team modes per repository, and per organization for teams
 * that include every repository of it.
 */
export async function teamGrants(
  db: Kysely<ForgeTables>,
  accountId: number,
): Promise<{ byRepository: Map<number, string[]>; byOrganization: Map<number, string[]> }> {
  const rows = await db
    .selectFrom("team")
    .innerJoin("team_user", "team_user.team_id", "team.id")
    .leftJoin("team_repo", "team_repo.team_id", "team.id")
    .select(["team.org_id", "team.authorize", "team.includes_all_repositories", "team_repo.repo_id"])
    .where("team_user.account_id", "=", accountId)
    .execute();
  const byRepository = new Map<number, string[]>();
  const byOrganization = new Map<number, string[]>();
  const add = (map: Map<number, string[]>, key: number, mode: string) =>
    map.set(key, [...(map.get(key) ?? []), mode]);
  for (const row of rows) {
    if (readBool(row.includes_all_repositories)) add(byOrganization, row.org_id, row.authorize);
    if (row.repo_id !== null) add(byRepository, row.repo_id, row.authorize);
  }
  return { byRepository, byOrganization };
}

/** The modes of the account's teams that reach this one repository of this organization. */
const teamModesOnRepository = prepared(
  (db: Kysely<ForgeTables>, accountId: number, orgId: number, repoId: number) =>
    db
      .selectFrom("team")
      .innerJoin("team_user", "team_user.team_id", "team.id")
      .select("team.authorize")
      .where("team_user.account_id", "=", accountId)
      .where("team.org_id", "=", orgId)
      .where((eb) =>
        eb.or([
          eb("team.includes_all_repositories", "=", true),
          eb.exists(
            eb
              .selectFrom("team_repo")
              .select("team_repo.repo_id")
              .whereRef("team_repo.team_id", "=", "team.id")
              .where("team_repo.repo_id", "=", repoId),
          ),
        ]),
      ),
);

export async function teamModesOn(
  db: Kysely<ForgeTables>,
  accountId: number,
  repository: { id: number; owner_id: number },
): Promise<string[]> {
  const rows = await teamModesOnRepository(db, accountId, repository.owner_id, repository.id);
  return rows.map((row) => row.authorize);
}

export function countOwnedRepositories(db: Kysely<ForgeTables>, ownerId: number): Promise<number> {
  return countRows(db, db.selectFrom("repository").select("id").where("owner_id", "=", ownerId));
}

export async function addTeamRepository(
  db: Kysely<ForgeTables>,
  teamId: number,
  repoId: number,
): Promise<void> {
  await db
    .insertInto("team_repo")
    .values({ team_id: teamId, repo_id: repoId })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function isTeamRepository(
  db: Kysely<ForgeTables>,
  teamId: number,
  repoId: number,
): Promise<boolean> {
  const found = await db
    .selectFrom("team_repo")
    .select("repo_id")
    .where("team_id", "=", teamId)
    .where("repo_id", "=", repoId)
    .executeTakeFirst();
  return found !== undefined;
}

export async function removeTeamRepository(
  db: Kysely<ForgeTables>,
  teamId: number,
  repoId: number,
): Promise<void> {
  await db.deleteFrom("team_repo").where("team_id", "=", teamId).where("repo_id", "=", repoId).execute();
}

/** The repositories a team reaches: all of its organization's, or those given to it. */
export async function listTeamRepositories(
  db: Kysely<ForgeTables>,
  team: { id: number; orgId: number; includesAll: boolean },
  window: { offset: number; limit: number },
): Promise<{ rows: RepositoryRow[]; total: number }> {
  const selection = team.includesAll
    ? db.selectFrom("repository").selectAll().where("owner_id", "=", team.orgId)
    : db
        .selectFrom("repository")
        .selectAll()
        .where("id", "in", db.selectFrom("team_repo").select("repo_id").where("team_id", "=", team.id));
  const [rows, total] = await Promise.all([
    selection.orderBy("lower_name").limit(window.limit).offset(window.offset).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}
