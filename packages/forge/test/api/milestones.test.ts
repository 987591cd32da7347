import assert from "node:assert/strict";
import { test } from "node:test";
import { findMilestoneForIssue } from "../../src/services/milestones.ts";
import { forEachForge } from "../support/forge.ts";
import type { Person } from "../support/people.ts";
import { trackerCast } from "../support/tracker.ts";

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
  const tracker = trackerCast<Milestone>(forge, { repo: "plans", org: "crew", orgRepo: "ship" });
  const { cast, call, database } = tracker;
  const milestoneCount = () => tracker.rows("milestone");
  const made = (who: Person, repo: string, body: Record<string, unknown>) =>
    tracker.created(who, `/repos/${repo}/milestones`, body, "Milestone");

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

  test("a title of up to 255 characters names its milestone in a path too", async () => {
    const long = await made(cast.olga, "olga/plans", { title: "long ".repeat(51).trim() });
    const path = `/repos/olga/plans/milestones/${encodeURIComponent(long.title)}`;
    const found = await call(cast.rita, "GET", path, undefined, "Milestone");
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.deepEqual(found.body, long);
    const edited = await call(cast.olga, "PATCH", path, { description: "found" }, "Milestone");
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.description, "found");
    assert.equal((await call(cast.olga, "DELETE", path)).status, 204);
    assert.equal((await call(cast.olga, "GET", path)).status, 404);
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
    const issue = await tracker.insertIssue({
      repoId: await tracker.repositoryId("olga", "plans"),
      number: 800,
      posterId: cast.olga.id,
      milestoneId: milestone.id,
    });
    const { db } = database();

    assert.equal((await call(cast.wren, "DELETE", "/repos/olga/plans/milestones/doomed")).status, 204);
    assert.equal((await call(cast.wren, "GET", `/repos/olga/plans/milestones/${milestone.id}`)).status, 404);
    const left = await db
      .selectFrom("issue")
      .select("milestone_id")
      .where("id", "=", issue)
      .executeTakeFirst();
    assert.equal(left?.milestone_id, null);
    assert.equal(
      (await call(cast.wren, "DELETE", `/repos/olga/plans/milestones/${milestone.id}`)).status,
      404,
    );
    await db.deleteFrom("issue").where("id", "=", issue).execute();
  });

  test("findMilestoneForIssue finds a milestone only in its own repository", async () => {
    const milestone = await made(cast.olga, "crew/ship", { title: "found" });
    const { db } = database();
    const ship = await tracker.repositoryId("crew", "ship");
    const plans = await tracker.repositoryId("olga", "plans");
    assert.equal((await findMilestoneForIssue(db, ship, milestone.id))?.id, milestone.id);
    assert.equal(await findMilestoneForIssue(db, plans, milestone.id), undefined);
    assert.equal(await findMilestoneForIssue(db, ship, 0), undefined);
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
