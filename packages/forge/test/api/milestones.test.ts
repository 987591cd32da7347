import assert from "node:assert/strict";
import { before, test } from "node:test";
import { toStoredTime } from "@anvil/core";
import { findAccountByName } from "../../src/repositories/accounts.ts";
import { findRepository } from "../../src/repositories/repos.ts";
import { findMilestoneForIssue, recountMilestone } from "../../src/services/milestones.ts";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";

interface Milestone {
  id: number;
  title: string;
  description: string;
  state: string;
  open_issues: number;
  closed_issues: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  due_on: string | null;
}

const GITEA_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

forEachForge("forge milestones: a repository's milestones, as Gitea keeps them", (forge) => {
  // olga owns the private repository olga/plans (wren collaborates with write, rita with read);
  // in her organization crew, ivy's team writes issues of crew/ship without code, pia's team
  // writes its pull requests only, mia's team reads its code. oscar is outside.
  const cast = {} as Record<"olga" | "wren" | "rita" | "ivy" | "pia" | "mia" | "oscar", Person>;

  function database() {
    const opened = forge.server.app.database;
    if (!opened) throw new Error("no database");
    return opened;
  }

  async function milestoneCount(): Promise<number> {
    return (await database().db.selectFrom("milestone").select("id").execute()).length;
  }

  function call<T = Milestone>(
    who: Person | undefined,
    method: string,
    path: string,
    body?: unknown,
    shape?: string,
  ) {
    return api<T & { message: string }>(forge.url, method, path, { token: who?.token, body, shape });
  }

  async function made(who: Person, repo: string, body: Record<string, unknown>): Promise<Milestone> {
    const answer = await call(who, "POST", `/repos/${repo}/milestones`, body, "Milestone");
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body;
  }

  async function team(name: string, unitsMap: Record<string, string>, member: Person) {
    const created = await call<{ id: number }>(cast.olga, "POST", "/orgs/crew/teams", {
      name,
      units_map: unitsMap,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await call(cast.olga, "PUT", `/teams/${created.body.id}/repos/crew/ship`)).status, 204);
    assert.equal(
      (await call(cast.olga, "PUT", `/teams/${created.body.id}/members/${member.login}`)).status,
      204,
    );
  }

  before(async () => {
    for (const name of ["olga", "wren", "rita", "ivy", "pia", "mia", "oscar"] as const)
      cast[name] = await makePerson(forge.url, forge.adminToken, name);
    assert.equal(
      (await call(cast.olga, "POST", "/user/repos", { name: "plans", private: true })).status,
      201,
    );
    for (const [who, permission] of [
      ["wren", "write"],
      ["rita", "read"],
    ] as const)
      assert.equal(
        (await call(cast.olga, "PUT", `/repos/olga/plans/collaborators/${who}`, { permission })).status,
        204,
      );
    assert.equal((await call(cast.olga, "POST", "/orgs", { username: "crew" })).status, 201);
    assert.equal(
      (await call(cast.olga, "POST", "/orgs/crew/repos", { name: "ship", private: true })).status,
      201,
    );
    await team("issuers", { "repo.issues": "write", "repo.code": "none" }, cast.ivy);
    await team("pullers", { "repo.pulls": "write" }, cast.pia);
    await team("readers", { "repo.code": "read" }, cast.mia);
  });

  test("POST /repos/{o}/{r}/milestones: 201, times in Gitea's format, the due date to the second in UTC", async () => {
    const started = Date.now() - 1000;
    const milestone = await made(cast.olga, "olga/plans", {
      title: "  v1.0  ",
      description: "The first release",
      due_on: "2030-01-02T03:04:05.678+02:00",
    });
    assert.equal(milestone.title, "v1.0");
    assert.equal(milestone.description, "The first release");
    assert.equal(milestone.state, "open");
    assert.equal(milestone.open_issues, 0);
    assert.equal(milestone.closed_issues, 0);
    assert.equal(milestone.due_on, "2030-01-02T01:04:05Z");
    assert.equal(milestone.closed_at, null);
    assert.match(milestone.created_at, GITEA_TIME);
    assert.match(milestone.updated_at, GITEA_TIME);
    assert.ok(Date.parse(milestone.created_at) >= started);

    const closed = await made(cast.wren, "olga/plans", {
      title: "done already",
      state: "closed",
      due_on: null,
    });
    assert.equal(closed.state, "closed");
    assert.match(closed.closed_at ?? "", GITEA_TIME);
    assert.equal(closed.due_on, null);
  });

  test("bad milestone input is a 422 in Gitea's shape and stores nothing", async () => {
    const before = await milestoneCount();
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /^\[Title\]: Required$/],
      [{ title: "   " }, /^\[Title\]: Required$/],
      [{ title: "t".repeat(256) }, /^\[Title\]: MaxSize$/],
      [{ title: "late", due_on: "tomorrow" }, /DueOn/],
      [{ title: "late", due_on: "2030-13-01T00:00:00Z" }, /DueOn/],
      [{ title: "late", due_on: "2030-02-30T00:00:00Z" }, /DueOn/],
      [{ title: "late", due_on: "2030-01-01" }, /DueOn/],
      [{ title: "late", due_on: 1893456000 }, /DueOn/],
      [{ title: "long", description: "d".repeat(65536) }, /^\[Description\]: MaxSize$/],
    ];
    for (const [body, message] of refusals) {
      const answer = await call(cast.olga, "POST", "/repos/olga/plans/milestones", body);
      assert.equal(answer.status, 422, JSON.stringify(body).slice(0, 80));
      assert.match(answer.body.message, message);
    }
    assert.equal(await milestoneCount(), before);
  });

  test("GET /repos/{o}/{r}/milestones: open by default, state and name filters, soonest due first, paged", async () => {
    const later = await made(cast.olga, "crew/ship", { title: "Beta", due_on: "2031-06-01T00:00:00Z" });
    const undated = await made(cast.olga, "crew/ship", { title: "Someday" });
    const sooner = await made(cast.olga, "crew/ship", { title: "Alpha", due_on: "2030-06-01T00:00:00Z" });
    const done = await made(cast.olga, "crew/ship", { title: "Alpha zero", state: "closed" });

    const open = await call<Milestone[]>(
      cast.mia,
      "GET",
      "/repos/crew/ship/milestones",
      undefined,
      "Milestone[]",
    );
    assert.equal(open.status, 200);
    assert.deepEqual(
      open.body.map((m) => m.id),
      [sooner.id, later.id, undated.id],
    );
    assert.equal(open.headers.get("x-total-count"), "3");
    const closed = await call<Milestone[]>(cast.mia, "GET", "/repos/crew/ship/milestones?state=closed");
    assert.deepEqual(
      closed.body.map((m) => m.id),
      [done.id],
    );
    const all = await call<Milestone[]>(cast.mia, "GET", "/repos/crew/ship/milestones?state=all&name=ALPHA");
    assert.deepEqual(
      all.body.map((m) => m.id),
      [sooner.id, done.id],
    );
    const page = await call<Milestone[]>(
      cast.mia,
      "GET",
      "/repos/crew/ship/milestones?state=all&page=2&limit=2",
    );
    assert.deepEqual(
      page.body.map((m) => m.id),
      [undated.id, done.id],
    );
    assert.equal(page.headers.get("x-total-count"), "4");
    assert.match(page.headers.get("link") ?? "", /rel="prev"/);
    const wildcard = await call<Milestone[]>(
      cast.mia,
      "GET",
      "/repos/crew/ship/milestones?state=all&name=%25",
    );
    assert.deepEqual(wildcard.body, []);
  });

  test("GET /repos/{o}/{r}/milestones/{id}: by id, else by title (a number names the id first)", async () => {
    const byNumber = await made(cast.olga, "olga/plans", { title: "2999" });
    const named = await made(cast.olga, "olga/plans", { title: String(byNumber.id) });
    // The id wins over another milestone's title that is the same number.
    const found = await call(
      cast.rita,
      "GET",
      `/repos/olga/plans/milestones/${named.title}`,
      undefined,
      "Milestone",
    );
    assert.deepEqual(found.body, byNumber);
    // An id that names no milestone here falls back to the title.
    assert.equal((await call(cast.rita, "GET", "/repos/olga/plans/milestones/2999")).body.id, byNumber.id);
    assert.equal((await call(cast.rita, "GET", "/repos/olga/plans/milestones/v1.0")).body.title, "v1.0");
    assert.equal((await call(cast.rita, "GET", "/repos/olga/plans/milestones/nothing")).status, 404);
    assert.equal((await call(cast.rita, "GET", "/repos/olga/plans/milestones/99999")).status, 404);
    // Another repository's milestone is not this one's.
    const elsewhere = await made(cast.olga, "crew/ship", { title: "elsewhere" });
    assert.equal((await call(cast.olga, "GET", `/repos/olga/plans/milestones/${elsewhere.id}`)).status, 404);
  });

  test("PATCH /repos/{o}/{r}/milestones/{id}: closing stamps closed_at, reopening clears it; an empty title changes nothing", async () => {
    const milestone = await made(cast.olga, "olga/plans", {
      title: "to edit",
      description: "before",
      due_on: "2030-01-01T00:00:00Z",
    });
    const path = `/repos/olga/plans/milestones/${milestone.id}`;
    const closed = await call(cast.wren, "PATCH", path, { state: "closed", title: "" }, "Milestone");
    assert.equal(closed.status, 200);
    assert.equal(closed.body.state, "closed");
    assert.equal(closed.body.title, "to edit");
    assert.equal(closed.body.description, "before");
    assert.equal(closed.body.due_on, "2030-01-01T00:00:00Z");
    assert.match(closed.body.closed_at ?? "", GITEA_TIME);

    const again = await call(cast.wren, "PATCH", path, { state: "closed" });
    assert.equal(again.body.closed_at, closed.body.closed_at);
    const reopened = await call(cast.wren, "PATCH", path, { state: "open", description: "after" });
    assert.equal(reopened.body.state, "open");
    assert.equal(reopened.body.closed_at, null);
    assert.equal(reopened.body.description, "after");

    const moved = await call(cast.wren, "PATCH", "/repos/olga/plans/milestones/to%20edit", {
      title: " renamed ",
      due_on: "2032-02-03T04:05:06Z",
    });
    assert.equal(moved.body.id, milestone.id);
    assert.equal(moved.body.title, "renamed");
    assert.equal(moved.body.due_on, "2032-02-03T04:05:06Z");
    // Go's zero time is "no new due date".
    const zero = await call(cast.wren, "PATCH", path, { due_on: "0001-01-01T00:00:00Z" });
    assert.equal(zero.body.due_on, "2032-02-03T04:05:06Z");
    // Any state but "closed" opens it, as in Gitea.
    await call(cast.wren, "PATCH", path, { state: "closed" });
    assert.equal((await call(cast.wren, "PATCH", path, { state: "whatever" })).body.state, "open");

    const bad = await call(cast.wren, "PATCH", path, { description: "lost", due_on: "2030-02-30T00:00:00Z" });
    assert.equal(bad.status, 422);
    assert.equal((await call(cast.wren, "GET", path)).body.description, "after");
    assert.equal((await call(cast.wren, "PATCH", "/repos/olga/plans/milestones/nothing", {})).status, 404);
  });

  test("DELETE /repos/{o}/{r}/milestones/{id}: 204, its issues lose it; a missing one is a 404", async () => {
    const milestone = await made(cast.olga, "olga/plans", { title: "doomed" });
    const { db, dialect } = database();
    const repository = await findRepository(db, cast.olga.id, "plans");
    assert.ok(repository);
    const now = toStoredTime(new Date(), dialect);
    const issue = await db
      .insertInto("issue")
      .values({
        repo_id: repository.id,
        number: 800,
        poster_id: cast.olga.id,
        title: "t",
        milestone_id: milestone.id,
        created_at: now,
        updated_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();

    assert.equal((await call(cast.wren, "DELETE", "/repos/olga/plans/milestones/doomed")).status, 204);
    assert.equal((await call(cast.wren, "GET", `/repos/olga/plans/milestones/${milestone.id}`)).status, 404);
    const left = await db
      .selectFrom("issue")
      .select("milestone_id")
      .where("id", "=", issue.id)
      .executeTakeFirst();
    assert.equal(left?.milestone_id, null);
    assert.equal(
      (await call(cast.wren, "DELETE", `/repos/olga/plans/milestones/${milestone.id}`)).status,
      404,
    );
    await db.deleteFrom("issue").where("id", "=", issue.id).execute();
  });

  test("recountMilestone counts the milestone's open and closed issues in the caller's transaction; findMilestoneForIssue stays in the repository", async () => {
    const milestone = await made(cast.olga, "crew/ship", { title: "counted" });
    const { db, dialect } = database();
    const crew = await findAccountByName(db, "crew");
    const ship = crew && (await findRepository(db, crew.id, "ship"));
    const plans = await findRepository(db, cast.olga.id, "plans");
    assert.ok(ship && plans);
    const now = toStoredTime(new Date(), dialect);
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto("issue")
        .values(
          [false, false, true].map((closed, i) => ({
            repo_id: ship.id,
            number: 700 + i,
            poster_id: cast.olga.id,
            title: `issue ${i}`,
            is_closed: closed,
            milestone_id: milestone.id,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
      await recountMilestone(trx, milestone.id);
    });
    const shown = await call(
      cast.mia,
      "GET",
      `/repos/crew/ship/milestones/${milestone.id}`,
      undefined,
      "Milestone",
    );
    assert.equal(shown.body.open_issues, 2);
    assert.equal(shown.body.closed_issues, 1);

    assert.equal((await findMilestoneForIssue(db, ship.id, milestone.id))?.id, milestone.id);
    assert.equal(await findMilestoneForIssue(db, plans.id, milestone.id), undefined);
    assert.equal(await findMilestoneForIssue(db, ship.id, 0), undefined);
    await db.deleteFrom("issue").where("repo_id", "=", ship.id).execute();
  });

  test("who may read and manage milestones: readers read, writers on issues or pull requests manage, outsiders see nothing", async () => {
    const milestone = await made(cast.olga, "olga/plans", { title: "guarded" });
    const path = `/repos/olga/plans/milestones/${milestone.id}`;
    const before = await milestoneCount();

    assert.equal((await call(cast.rita, "GET", "/repos/olga/plans/milestones")).status, 200);
    assert.equal((await call(cast.rita, "GET", path)).status, 200);
    const refused = await call(cast.rita, "POST", "/repos/olga/plans/milestones", { title: "mine" });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, "user should have a permission to write to a repo");
    assert.equal((await call(cast.rita, "PATCH", path, { title: "mine" })).status, 403);
    assert.equal((await call(cast.rita, "DELETE", path)).status, 403);
    for (const who of [cast.oscar, undefined]) {
      assert.equal((await call(who, "GET", "/repos/olga/plans/milestones")).status, 404);
      assert.equal((await call(who, "GET", path)).status, 404);
    }
    assert.equal(
      (await call(cast.oscar, "POST", "/repos/olga/plans/milestones", { title: "x" })).status,
      404,
    );
    assert.equal((await call(cast.oscar, "DELETE", path)).status, 404);
    assert.equal((await call(undefined, "POST", "/repos/olga/plans/milestones", { title: "x" })).status, 401);
    assert.equal(await milestoneCount(), before);
    assert.equal((await call(cast.rita, "GET", path)).body.title, "guarded");

    const ivys = await made(cast.ivy, "crew/ship", { title: "ivy's" });
    assert.equal(
      (await call(cast.ivy, "PATCH", `/repos/crew/ship/milestones/${ivys.id}`, { state: "closed" })).status,
      200,
    );
    assert.equal((await call(cast.ivy, "DELETE", `/repos/crew/ship/milestones/${ivys.id}`)).status, 204);
    await made(cast.pia, "crew/ship", { title: "pia's" });
    assert.equal((await call(cast.mia, "GET", "/repos/crew/ship/milestones")).status, 200);
    assert.equal(
      (await call(cast.mia, "POST", "/repos/crew/ship/milestones", { title: "mia's" })).status,
      403,
    );
  });
});
