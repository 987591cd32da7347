import { containsText, countRows, type DialectName, prepared } from "@anvil/core";
import type { ExpressionBuilder, Insertable, Kysely, Selectable, Updateable } from "kysely";
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

export function findRepositoriesByIds(
  db: Kysely<ForgeTables>,
  ids: readonly number[],
): Promise<RepositoryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("repository").selectAll().where("id", "in", ids).execute();
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

/**
 * Who reads a list: site admins read `all`, anonymous callers are undefined; a signed-in account,
 * restricted or not (a restricted one reads only what it is given).
 */
export type RepositoryReader = "all" | { id: number; restricted: boolean } | undefined;

export interface RepositoryQuery {
  ownerId?: number;
  /** Repositories this account owns or collaborates on. */
  involvedId?: number;
  /** Only repositories where this account collaborates (besides owning). */
  collaboratorId?: number;
  keyword?: string;
  includeDescription?: boolean;
  /** Who reads, and so which repositories the list may show at all. */
  reader: RepositoryReader;
  isPrivate?: boolean;
  archived?: boolean;
  template?: boolean;
  isFork?: boolean;
  /** Only the forks of this repository. */
  forkOf?: number;
  sort: "lower_name" | "created_at" | "updated_at" | "id";
  order: "asc" | "desc";
  offset: number;
  limit: number;
}

/**
 * The visibility rule of services/access.ts as a filter: a repository shows when the reader owns
 * it, collaborates on it, reaches it through a team with some access, or when it is public and its
 * owner is one the reader may see (public owners for anonymous and restricted readers, these only
 * in organizations they belong to; limited ones too for others, and private organizations they
 * belong to).
 */
function readableBy(db: Kysely<ForgeTables>, reader: Exclude<RepositoryReader, "all">, unit?: string) {
  const ownersOf = (visibilities: string[]) =>
    db.selectFrom("account").select("id").where("visibility", "in", visibilities);
  return (eb: ExpressionBuilder<ForgeTables, "repository">) => {
    if (reader === undefined)
      return eb.and([eb("is_private", "=", false), eb("owner_id", "in", ownersOf(["public"]))]);
    const memberOf = db.selectFrom("org_user").select("org_id").where("account_id", "=", reader.id);
    let teams = db
      .selectFrom("team")
      .innerJoin("team_user", "team_user.team_id", "team.id")
      .where("team_user.account_id", "=", reader.id)
      .where("team.authorize", "!=", "none");
    // With a unit, a team counts when it reaches that unit (admin teams reach every one).
    if (unit !== undefined)
      teams = teams.where((team) =>
        team.or([
          team("team.authorize", "in", ["admin", "owner"]),
          team.exists(
            team
              .selectFrom("team_unit")
              .select("team_unit.id")
              .whereRef("team_unit.team_id", "=", "team.id")
              .where("team_unit.unit", "=", unit)
              .where("team_unit.access_mode", "!=", "none"),
          ),
        ]),
      );
    const visibleOwner = reader.restricted
      ? eb.and([eb("owner_id", "in", ownersOf(["public"])), eb("owner_id", "in", memberOf)])
      : eb.or([eb("owner_id", "in", ownersOf(["public", "limited"])), eb("owner_id", "in", memberOf)]);
    return eb.or([
      eb("owner_id", "=", reader.id),
      eb("id", "in", collaborationsOf(db, reader.id)),
      eb(
        "id",
        "in",
        teams.innerJoin("team_repo", "team_repo.team_id", "team.id").select("team_repo.repo_id"),
      ),
      eb("owner_id", "in", teams.where("team.includes_all_repositories", "=", true).select("team.org_id")),
      eb.and([eb("is_private", "=", false), visibleOwner]),
    ]);
  };
}

/**
 * The ids of the repositories whose `unit` `reader` may read, as a subquery (for lists of their
 * issues or pulls), within an owner's or a team's repositories.
 */
export function readableRepositoryIds(
  db: Kysely<ForgeTables>,
  reader: RepositoryReader,
  unit: string,
  within: { ownerId?: number; teamId?: number } = {},
) {
  let selection = db.selectFrom("repository").select("repository.id");
  if (reader !== "all") selection = selection.where(readableBy(db, reader, unit));
  if (within.ownerId !== undefined) selection = selection.where("owner_id", "=", within.ownerId);
  const teamId = within.teamId;
  if (teamId !== undefined)
    selection = selection.where((eb) =>
      eb.or([
        eb(
          "owner_id",
          "in",
          db
            .selectFrom("team")
            .select("org_id")
            .where("id", "=", teamId)
            .where("includes_all_repositories", "=", true),
        ),
        eb("id", "in", db.selectFrom("team_repo").select("repo_id").where("team_id", "=", teamId)),
      ]),
    );
  return selection;
}

function collaborationsOf(db: Kysely<ForgeTables>, accountId: number) {
  return db.selectFrom("collaboration").select("repo_id").where("account_id", "=", accountId);
}

export async function listRepositories(
  db: Kysely<ForgeTables>,
  dialect: DialectName,
  query: RepositoryQuery,
): Promise<{ rows: RepositoryRow[]; total: number }> {
  let selection = db.selectFrom("repository").selectAll();
  if (query.ownerId !== undefined) selection = selection.where("owner_id", "=", query.ownerId);
  if (query.involvedId !== undefined) {
    const involved = query.involvedId;
    selection = selection.where((eb) =>
      eb.or([eb("owner_id", "=", involved), eb("id", "in", collaborationsOf(db, involved))]),
    );
  }
  if (query.collaboratorId !== undefined)
    selection = selection.where("id", "in", collaborationsOf(db, query.collaboratorId));
  if (query.reader !== "all") selection = selection.where(readableBy(db, query.reader));
  if (query.isPrivate !== undefined) selection = selection.where("is_private", "=", query.isPrivate);
  if (query.archived !== undefined) selection = selection.where("is_archived", "=", query.archived);
  if (query.template !== undefined) selection = selection.where("is_template", "=", query.template);
  if (query.isFork !== undefined) selection = selection.where("is_fork", "=", query.isFork);
  if (query.forkOf !== undefined) selection = selection.where("fork_id", "=", query.forkOf);
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

/** One of an account's teams, with a repository it reaches (null: none given to it by name). */
export interface TeamReachRow {
  team_id: number;
  org_id: number;
  authorize: string;
  includes_all_repositories: boolean | number;
  repo_id: number | null;
}

/** Every team the account is in, once per repository given to it. */
export function teamsReaching(db: Kysely<ForgeTables>, accountId: number): Promise<TeamReachRow[]> {
  return db
    .selectFrom("team")
    .innerJoin("team_user", "team_user.team_id", "team.id")
    .leftJoin("team_repo", "team_repo.team_id", "team.id")
    .select([
      "team.id as team_id",
      "team.org_id",
      "team.authorize",
      "team.includes_all_repositories",
      "team_repo.repo_id",
    ])
    .where("team_user.account_id", "=", accountId)
    .execute();
}

/** The account's teams that reach this one repository of this organization, once per unit they list. */
const teamUnitsOnRepository = prepared(
  (db: Kysely<ForgeTables>, accountId: number, orgId: number, repoId: number) =>
    db
      .selectFrom("team")
      .innerJoin("team_user", "team_user.team_id", "team.id")
      .leftJoin("team_unit", "team_unit.team_id", "team.id")
      .select(["team.id as team_id", "team.authorize", "team_unit.unit", "team_unit.access_mode"])
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

export function teamUnitsOn(
  db: Kysely<ForgeTables>,
  accountId: number,
  repository: { id: number; owner_id: number },
): Promise<
  readonly { team_id: number; authorize: string; unit: string | null; access_mode: string | null }[]
> {
  return teamUnitsOnRepository(db, accountId, repository.owner_id, repository.id);
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

/** The repositories a team reaches (all of its organization's, or those given to it), or their public ones. */
export async function listTeamRepositories(
  db: Kysely<ForgeTables>,
  team: { id: number; orgId: number; includesAll: boolean },
  window: { offset: number; limit: number; publicOnly: boolean },
): Promise<{ rows: RepositoryRow[]; total: number }> {
  const reached = team.includesAll
    ? db.selectFrom("repository").selectAll().where("owner_id", "=", team.orgId)
    : db
        .selectFrom("repository")
        .selectAll()
        .where("id", "in", db.selectFrom("team_repo").select("repo_id").where("team_id", "=", team.id));
  const selection = window.publicOnly ? reached.where("is_private", "=", false) : reached;
  const [rows, total] = await Promise.all([
    selection.orderBy("lower_name").limit(window.limit).offset(window.offset).execute(),
    countRows(db, selection),
  ]);
  return { rows, total };
}
