import assert from "node:assert/strict";
import { before } from "node:test";
import { toStoredTime } from "@anvil/core";
import type { Kysely } from "kysely";
import type { ForgeTables } from "../../src/schemas/tables.ts";
import type { ForgeDatabase } from "../../src/services/accounts.ts";
import { type ApiAnswer, api, type forEachForge } from "./forge.ts";
import { makePerson, type Person } from "./people.ts";

type ForgeState = Parameters<Parameters<typeof forEachForge>[1]>[0];

export type Role = "olga" | "wren" | "rita" | "ivy" | "pia" | "mia" | "oscar";

/** The people around two private repositories, and how the tests reach them; `D` is what calls answer by default. */
export interface Tracker<D> {
  cast: Record<Role, Person>;
  /** Calls the API as `who` (anonymously when undefined); a JSON answer is checked against `shape`. */
  call<T = D>(
    who: Person | undefined,
    method: string,
    path: string,
    body?: unknown,
    shape?: string,
  ): Promise<ApiAnswer<T & { message: string }>>;
  /** POSTs `body` to `path` as `who`, expects 201 and an answer of swagger shape `shape`, and returns it. */
  created(who: Person, path: string, body: Record<string, unknown>, shape: string): Promise<D>;
  /** How many rows the table holds: that refused input stored nothing. */
  rows(table: "label" | "milestone"): Promise<number>;
  database(): ForgeDatabase;
  /** The id of the repository `owner/name`. */
  repositoryId(owner: string, name: string): Promise<number>;
  /**
   * Stores an issue row directly (in `db`, a transaction, when given), as the issue routes would,
   * for what labels and milestones do to issues; its id.
   */
  insertIssue(
    fields: { repoId: number; number: number; posterId: number; closed?: boolean; milestoneId?: number },
    db?: Kysely<ForgeTables>,
  ): Promise<number>;
}

/**
 * Before the tests: olga owns the private repository `olga/{repo}` (wren collaborates with write,
 * rita with read) and the organization `org` with the private repository `org/{orgRepo}`, where
 * ivy's team writes issues but has no code, pia's team writes pull requests only, and mia's team
 * reads code. oscar is outside everything.
 */
export function trackerCast<D>(
  forge: ForgeState,
  names: { repo: string; org: string; orgRepo: string },
): Tracker<D> {
  const cast = {} as Record<Role, Person>;
  function call<T = D>(
    who: Person | undefined,
    method: string,
    path: string,
    body?: unknown,
    shape?: string,
  ) {
    return api<T & { message: string }>(forge.url, method, path, { token: who?.token, body, shape });
  }
  const database = () => {
    const opened = forge.server.app.database;
    if (!opened) throw new Error("the forge has no database");
    return opened;
  };

  async function team(name: string, unitsMap: Record<string, string>, member: Person) {
    const created = await call<{ id: number }>(cast.olga, "POST", `/orgs/${names.org}/teams`, {
      name,
      units_map: unitsMap,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    assert.equal(
      (await call(cast.olga, "PUT", `/teams/${id}/repos/${names.org}/${names.orgRepo}`)).status,
      204,
    );
    assert.equal((await call(cast.olga, "PUT", `/teams/${id}/members/${member.login}`)).status, 204);
  }

  before(async () => {
    for (const name of ["olga", "wren", "rita", "ivy", "pia", "mia", "oscar"] as const)
      cast[name] = await makePerson(forge.url, forge.adminToken, name);
    const repo = await call(cast.olga, "POST", "/user/repos", { name: names.repo, private: true });
    assert.equal(repo.status, 201);
    for (const [who, permission] of [
      ["wren", "write"],
      ["rita", "read"],
    ] as const) {
      const added = await call(cast.olga, "PUT", `/repos/olga/${names.repo}/collaborators/${who}`, {
        permission,
      });
      assert.equal(added.status, 204);
    }
    assert.equal((await call(cast.olga, "POST", "/orgs", { username: names.org })).status, 201);
    const orgRepo = await call(cast.olga, "POST", `/orgs/${names.org}/repos`, {
      name: names.orgRepo,
      private: true,
    });
    assert.equal(orgRepo.status, 201);
    await team("issuers", { "repo.issues": "write", "repo.code": "none" }, cast.ivy);
    await team("pullers", { "repo.pulls": "write" }, cast.pia);
    await team("readers", { "repo.code": "read" }, cast.mia);
  });

  return {
    cast,
    call,
    database,
    async created(who, path, body, shape) {
      const answer = await call(who, "POST", path, body, shape);
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      return answer.body;
    },
    async rows(table) {
      return (await database().db.selectFrom(table).select("id").execute()).length;
    },
    async repositoryId(owner, name) {
      const found = await call<{ id: number }>(cast.olga, "GET", `/repos/${owner}/${name}`);
      assert.equal(found.status, 200);
      return found.body.id;
    },
    async insertIssue(fields, db = database().db) {
      const now = toStoredTime(new Date(), database().dialect);
      const row = await db
        .insertInto("issue")
        .values({
          repo_id: fields.repoId,
          number: fields.number,
          poster_id: fields.posterId,
          title: `issue ${fields.number}`,
          is_closed: fields.closed ?? false,
          milestone_id: fields.milestoneId ?? null,
          created_at: now,
          updated_at: now,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      return row.id;
    },
  };
}
