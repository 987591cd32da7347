import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";
import { assertSigned, payloadOf, type Received, type Receiver, startReceiver } from "../support/receiver.ts";
import { assertGiteaShape } from "../support/swagger.ts";

interface ApiUser {
  id: number;
  login: string;
  full_name: string;
  email: string;
  login_name: string;
}
interface Label {
  id: number;
  name: string;
  url: string;
}
interface Issue {
  id: number;
  number: number;
  title: string;
  body: string;
  ref: string;
  state: string;
  user: ApiUser;
  labels: Label[];
  milestone: { id: number; title: string; open_issues: number; closed_issues: number } | null;
  assignee: ApiUser | null;
  assignees: ApiUser[] | null;
  is_locked: boolean;
  pin_order: number;
  due_date: string | null;
  closed_at: string | null;
  comments: number;
  html_url: string;
  url: string;
  pull_request: unknown;
  repository: { id: number; name: string; owner: string; full_name: string };
}
interface Repo {
  open_issues_count: number;
  open_pr_counter: number;
}
interface ErrorBody {
  message: string;
}

type Name = "olga" | "walt" | "rita" | "otto" | "tina" | "cody";

forEachForge("forge issues: create, read, edit, delete, list, search, labels, lock, pin", (forge) => {
  const cast = {} as Record<Name, Person>;
  const ids = {
    bug: 0,
    docs: 0,
    urgent: 0,
    orgLabel: 0,
    kindA: 0,
    kindB: 0,
    v1: 0,
    v2: 0,
    boardMilestone: 0,
  };

  function db() {
    const database = forge.server.app.database;
    if (!database) throw new Error("no database");
    return database.db;
  }

  function call<T = Issue>(
    who: Name | undefined,
    method: string,
    path: string,
    body?: unknown,
    shape?: string,
  ) {
    return api<T & ErrorBody>(forge.url, method, path, {
      token: who ? cast[who].token : undefined,
      body,
      shape,
    });
  }

  async function ok<T>(answer: Promise<{ status: number; body: T }>, status: number): Promise<T> {
    const got = await answer;
    assert.equal(got.status, status, JSON.stringify(got.body));
    return got.body;
  }

  async function repoId(owner: string, name: string): Promise<number> {
    const row = await db()
      .selectFrom("repository")
      .innerJoin("account", "account.id", "repository.owner_id")
      .select("repository.id")
      .where("account.lower_name", "=", owner)
      .where("repository.lower_name", "=", name)
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function label(where: { repo_id?: number; org_id?: number }, name: string, exclusive = false) {
    const now = new Date().toISOString();
    const row = await db()
      .insertInto("label")
      .values({ ...where, name, color: "ee0701", exclusive, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function milestone(repo_id: number, name: string) {
    const now = new Date().toISOString();
    const row = await db()
      .insertInto("milestone")
      .values({ repo_id, name, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function milestoneCounts(id: number) {
    const row = await db()
      .selectFrom("milestone")
      .select(["num_issues", "num_closed_issues"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    return { total: Number(row.num_issues), closed: Number(row.num_closed_issues) };
  }

  async function events(issueId: number) {
    const rows = await db()
      .selectFrom("comment")
      .select([
        "type",
        "body",
        "label_id",
        "milestone_id",
        "old_milestone_id",
        "assignee_id",
        "removed_assignee",
      ])
      .where("issue_id", "=", issueId)
      .orderBy("id")
      .execute();
    return rows.map((row) => ({ ...row, removed_assignee: Boolean(row.removed_assignee) }));
  }

  async function rowCounts() {
    const count = async (table: "issue" | "issue_label" | "issue_assignee" | "comment") =>
      (await db().selectFrom(table).selectAll().execute()).length;
    const repo = await db()
      .selectFrom("repository")
      .select(["last_issue_index", "num_issues"])
      .where("lower_name", "=", "tracker")
      .executeTakeFirstOrThrow();
    return {
      issues: await count("issue"),
      labels: await count("issue_label"),
      assignees: await count("issue_assignee"),
      comments: await count("comment"),
      repo,
    };
  }

  const repository = (owner: string, name: string, who: Name = "olga") =>
    ok(call<Repo>(who, "GET", `/repos/${owner}/${name}`, undefined, "Repository"), 200);

  before(async () => {
    for (const name of ["olga", "walt", "rita", "otto", "tina", "cody"] as const)
      cast[name] = await makePerson(forge.url, forge.adminToken, name);
    await ok(call("olga", "POST", "/user/repos", { name: "tracker" }), 201);
    await ok(call("olga", "POST", "/user/repos", { name: "secret", private: true }), 201);
    await ok(call("olga", "PUT", "/repos/olga/tracker/collaborators/walt", { permission: "write" }), 204);
    await ok(call("olga", "PUT", "/repos/olga/tracker/collaborators/rita", { permission: "read" }), 204);
    await ok(call("olga", "PUT", "/repos/olga/secret/collaborators/rita", { permission: "read" }), 204);
    await ok(call("olga", "POST", "/orgs", { username: "guild" }), 201);
    await ok(call("olga", "POST", "/orgs/guild/repos", { name: "board", private: true }), 201);
    const team = async (name: string, units: Record<string, string>, member: Name) => {
      const made = await ok(
        call<{ id: number }>("olga", "POST", "/orgs/guild/teams", { name, units_map: units }),
        201,
      );
      await ok(call("olga", "PUT", `/teams/${made.id}/repos/guild/board`), 204);
      await ok(call("olga", "PUT", `/teams/${made.id}/members/${member}`), 204);
    };
    await team("issuers", { "repo.issues": "write", "repo.code": "none" }, "tina");
    await team("coders", { "repo.code": "write", "repo.issues": "none" }, "cody");
    const tracker = await repoId("olga", "tracker");
    const board = await repoId("guild", "board");
    const guild = (
      await db()
        .selectFrom("account")
        .select("id")
        .where("lower_name", "=", "guild")
        .executeTakeFirstOrThrow()
    ).id;
    ids.bug = await label({ repo_id: tracker }, "bug");
    ids.docs = await label({ repo_id: tracker }, "docs");
    ids.urgent = await label({ repo_id: tracker }, "urgent");
    ids.kindA = await label({ repo_id: tracker }, "kind/a", true);
    ids.kindB = await label({ repo_id: tracker }, "kind/b", true);
    ids.orgLabel = await label({ org_id: guild }, "org-wide");
    ids.v1 = await milestone(tracker, "v1");
    ids.v2 = await milestone(tracker, "v2");
    ids.boardMilestone = await milestone(board, "board-1");
  });

  test("a writer opens an issue with labels, a milestone and assignees; counters, events and shape follow", async () => {
    const created = await ok(
      call(
        "walt",
        "POST",
        "/repos/olga/tracker/issues",
        {
          title: "first",
          body: "hello @rita",
          labels: [ids.bug, ids.docs],
          milestone: ids.v1,
          assignee: "walt",
          assignees: ["olga", "walt"],
          due_date: "2030-05-06T10:00:00Z",
          ref: "main",
          closed: null,
        },
        "Issue",
      ),
      201,
    );
    assert.equal(created.number, 1);
    assert.equal(created.state, "open");
    assert.equal(created.user.login, "walt");
    assert.equal(created.ref, "main");
    assert.deepEqual(
      created.labels.map((l) => l.name),
      ["bug", "docs"],
    );
    assert.equal(created.labels[0].url, `http://forge.test/api/v1/repos/olga/tracker/labels/${ids.bug}`);
    assert.equal(created.milestone?.title, "v1");
    assert.equal(created.milestone?.open_issues, 1);
    assert.deepEqual(
      created.assignees?.map((a) => a.login),
      ["olga", "walt"],
    );
    assert.equal(created.assignee?.login, "olga");
    assert.equal(created.due_date, "2030-05-06T10:00:00Z");
    assert.equal(created.closed_at, null);
    assert.equal(created.comments, 0);
    assert.equal(created.pull_request, null);
    assert.equal(created.html_url, "http://forge.test/olga/tracker/issues/1");
    assert.equal(created.url, "http://forge.test/api/v1/repos/olga/tracker/issues/1");
    assert.deepEqual(created.repository, {
      id: created.repository.id,
      name: "tracker",
      owner: "olga",
      full_name: "olga/tracker",
    });
    const read = await ok(call(undefined, "GET", "/repos/olga/tracker/issues/1", undefined, "Issue"), 200);
    assert.deepEqual(
      { ...read, user: read.user.login },
      { ...created, user: "walt" },
      "anonymous readers of a public repository see the same issue",
    );
    assert.equal((await repository("olga", "tracker")).open_issues_count, 1);
    assert.deepEqual(await milestoneCounts(ids.v1), { total: 1, closed: 0 });
    assert.deepEqual(
      (await events(created.id)).map((e) => e.type),
      [7, 7, 8, 9, 9],
      "label, milestone and assignee events, which are not comments",
    );
  });

  test("a read-only collaborator's labels, milestone, assignees and due date are silently dropped", async () => {
    const created = await ok(
      call(
        "rita",
        "POST",
        "/repos/olga/tracker/issues",
        {
          title: "from a reader",
          labels: [ids.bug, 999_999],
          milestone: 999_999,
          assignees: ["nobody-at-all"],
          due_date: "2030-01-01T00:00:00Z",
        },
        "Issue",
      ),
      201,
    );
    assert.deepEqual(created.labels, []);
    assert.equal(created.milestone, null);
    assert.equal(created.assignees, null);
    assert.equal(created.due_date, null);
    assert.deepEqual(await events(created.id), []);
  });

  test("bad input is refused with Gitea's 4xx, and nothing is half-written", async () => {
    const before = await rowCounts();
    const refused = async (body: Record<string, unknown>, status = 422) => {
      const answer = await call("olga", "POST", "/repos/olga/tracker/issues", body);
      assert.equal(answer.status, status, JSON.stringify(body).slice(0, 200));
      return answer.body.message;
    };
    assert.equal(await refused({ body: "no title" }), "[Title]: Required");
    assert.equal(await refused({ title: "   " }), "[Title]: Required");
    assert.equal(await refused({ title: "x".repeat(256) }), "[Title]: MaxSize");
    assert.equal(await refused({ title: "big", body: "x".repeat(1024 * 1024) }), "[Body]: MaxSize");
    assert.equal(await refused({ title: "long ref", ref: "r".repeat(256) }), "[Ref]: MaxSize");
    assert.equal(
      await refused({ title: "bad label", labels: [ids.bug, 999_999] }),
      "label does not exist [label_id: 999999]",
    );
    assert.match(
      await refused({ title: "other repo's milestone", milestone: ids.boardMilestone }),
      /^milestone does not exist \[id: \d+, repo_id: \d+\]$/,
    );
    assert.match(
      await refused({ title: "ghost", assignees: ["ghost"] }),
      /^Assignee does not exist: \[name: user does not exist/,
    );
    assert.match(await refused({ title: "outsider", assignee: "otto" }), /^user doesn't have access to repo/);
    assert.match(
      await refused({ title: "reader", assignees: ["rita"] }),
      /^user doesn't have access to repo/,
    );
    assert.match(await refused({ title: "date", due_date: "2030-13-45" }), /DueDate/);
    await refused({ title: "types", labels: ["bug"] });
    assert.equal(
      await refused({ title: "org label of another owner", labels: [ids.orgLabel] }),
      `label does not exist [label_id: ${ids.orgLabel}]`,
    );
    assert.deepEqual(await rowCounts(), before, "no issue, label, assignee, event or number was taken");
  });

  test("the owner organization's labels can be used on its repositories; private repositories are 404 to outsiders", async () => {
    const created = await ok(
      call("tina", "POST", "/repos/guild/board/issues", { title: "team", labels: [ids.orgLabel] }, "Issue"),
      201,
    );
    assert.equal(created.labels[0].url, `http://forge.test/api/v1/orgs/guild/labels/${ids.orgLabel}`);
    assert.equal((await call("otto", "GET", "/repos/guild/board/issues/1")).status, 404);
    assert.equal((await call(undefined, "GET", "/repos/guild/board/issues")).status, 404);
    assert.equal((await call("otto", "POST", "/repos/guild/board/issues", { title: "x" })).status, 404);
    assert.equal((await call("otto", "GET", "/repos/olga/secret/issues")).status, 404);
    // A team with issues none (code write) sees the repository but not its issues, as in Gitea.
    assert.equal((await call("cody", "GET", "/repos/guild/board/issues/1")).status, 404);
    assert.equal((await call("cody", "GET", "/repos/guild/board/issues")).status, 404);
    assert.equal((await call("cody", "POST", "/repos/guild/board/issues", { title: "x" })).status, 403);
    const found = async (who: Name) =>
      (
        await ok(call<Issue[]>(who, "GET", "/repos/issues/search?owner=guild", undefined, "Issue[]"), 200)
      ).map((issue) => issue.title);
    assert.deepEqual(await found("tina"), ["team"]);
    assert.deepEqual(await found("cody"), [], "nor are they found by the search");
    assert.deepEqual(await found("otto"), []);
    // cody has code write, so Gitea lets him be assigned; tina (issues write) labels and assigns.
    const assigned = await ok(
      call("tina", "PATCH", "/repos/guild/board/issues/1", { assignees: ["cody", "tina"] }, "Issue"),
      201,
    );
    assert.deepEqual(
      assigned.assignees?.map((a) => a.login),
      ["cody", "tina"],
    );
    const labels = await ok(
      call<Label[]>("tina", "PUT", "/repos/guild/board/issues/1/labels", { labels: ["org-wide"] }, "Label[]"),
      200,
    );
    assert.deepEqual(
      labels.map((l) => l.id),
      [ids.orgLabel],
    );
  });

  test("PATCH answers 201; state, title, body, milestone, assignees and due date change with their events and counters", async () => {
    const made = await ok(
      call("olga", "POST", "/repos/olga/tracker/issues", { title: "to edit", milestone: ids.v1 }),
      201,
    );
    const path = `/repos/olga/tracker/issues/${made.number}`;
    const open = (await repository("olga", "tracker")).open_issues_count;
    const v1 = await milestoneCounts(ids.v1);

    const closed = await ok(
      call("walt", "PATCH", path, { state: "closed", title: "edited", body: "new body" }, "Issue"),
      201,
    );
    assert.equal(closed.state, "closed");
    assert.equal(closed.title, "edited");
    assert.equal(closed.body, "new body");
    assert.ok(closed.closed_at);
    assert.equal((await repository("olga", "tracker")).open_issues_count, open - 1);
    assert.deepEqual(await milestoneCounts(ids.v1), { total: v1.total, closed: v1.closed + 1 });

    const moved = await ok(call("walt", "PATCH", path, { milestone: ids.v2 }, "Issue"), 201);
    assert.equal(moved.milestone?.title, "v2");
    assert.equal(moved.milestone?.closed_issues, 1);
    assert.deepEqual(await milestoneCounts(ids.v1), { total: v1.total - 1, closed: v1.closed });
    const cleared = await ok(call("walt", "PATCH", path, { milestone: 0 }, "Issue"), 201);
    assert.equal(cleared.milestone, null);
    assert.deepEqual(await milestoneCounts(ids.v2), { total: 0, closed: 0 });

    const reopened = await ok(call("walt", "PATCH", path, { state: "open" }, "Issue"), 201);
    assert.equal(reopened.state, "open");
    assert.equal(reopened.closed_at, null);
    assert.equal((await repository("olga", "tracker")).open_issues_count, open);

    const due = await ok(
      call("walt", "PATCH", path, { due_date: "2031-01-02T08:00:00+02:00" }, "Issue"),
      201,
    );
    assert.equal(due.due_date, "2031-01-02T21:59:59Z", "the end of the day named, in its offset");
    const undue = await ok(call("walt", "PATCH", path, { unset_due_date: true }, "Issue"), 201);
    assert.equal(undue.due_date, null);

    const assigned = await ok(call("walt", "PATCH", path, { assignees: ["walt"] }, "Issue"), 201);
    assert.deepEqual(
      assigned.assignees?.map((a) => a.login),
      ["walt"],
    );
    const unassigned = await ok(call("walt", "PATCH", path, { assignees: [] }, "Issue"), 201);
    assert.equal(unassigned.assignees, null);

    assert.deepEqual(
      (await events(made.id)).map((e) => [e.type, e.body, e.removed_assignee]),
      [
        [8, "", false],
        [10, "", false],
        [2, "", false],
        [8, "", false],
        [8, "", false],
        [1, "", false],
        [16, "2031-01-02", false],
        [18, "2031-01-02", false],
        [9, "", false],
        [9, "", true],
      ],
    );
    assert.equal((await call("walt", "PATCH", path, { state: "merged" })).status, 412);
    assert.equal((await call("walt", "PATCH", path, { milestone: 999_999 })).status, 422);
    assert.equal((await call("walt", "PATCH", path, { due_date: "tomorrow" })).status, 422);
  });

  test("a poster without write edits title, body and state only; others may not edit", async () => {
    const made = await ok(call("rita", "POST", "/repos/olga/tracker/issues", { title: "mine" }), 201);
    const path = `/repos/olga/tracker/issues/${made.number}`;
    const edited = await ok(
      call(
        "rita",
        "PATCH",
        path,
        { title: "still mine", milestone: ids.v1, assignees: ["olga"], state: "closed" },
        "Issue",
      ),
      201,
    );
    assert.equal(edited.title, "still mine");
    assert.equal(edited.state, "closed");
    assert.equal(edited.milestone, null);
    assert.equal(edited.assignees, null);
    const theirs = await ok(call("walt", "POST", "/repos/olga/tracker/issues", { title: "walt's" }), 201);
    assert.equal(
      (await call("rita", "PATCH", `/repos/olga/tracker/issues/${theirs.number}`, { title: "no" })).status,
      403,
    );
    assert.equal(
      (await call("otto", "PATCH", `/repos/olga/tracker/issues/${theirs.number}`, { title: "no" })).status,
      403,
    );
    assert.equal(
      (await call(undefined, "PATCH", `/repos/olga/tracker/issues/${theirs.number}`, { title: "no" })).status,
      401,
    );
    assert.equal((await call("olga", "GET", "/repos/olga/tracker/issues/99999")).status, 404);
    assert.equal((await call("olga", "GET", "/repos/olga/tracker/issues/abc")).status, 404);
  });

  test("DELETE: repository admins only, 204; the counters follow", async () => {
    const made = await ok(
      call("walt", "POST", "/repos/olga/tracker/issues", {
        title: "doomed",
        milestone: ids.v1,
        closed: true,
      }),
      201,
    );
    assert.equal(made.state, "closed");
    const path = `/repos/olga/tracker/issues/${made.number}`;
    const v1 = await milestoneCounts(ids.v1);
    const counts = await db()
      .selectFrom("repository")
      .select(["num_issues", "num_closed_issues"])
      .where("lower_name", "=", "tracker")
      .executeTakeFirstOrThrow();
    assert.equal((await call("walt", "DELETE", path)).status, 403);
    assert.equal((await call("olga", "DELETE", path)).status, 204);
    assert.equal((await call("olga", "GET", path)).status, 404);
    assert.deepEqual(await milestoneCounts(ids.v1), { total: v1.total - 1, closed: v1.closed - 1 });
    const after = await db()
      .selectFrom("repository")
      .select(["num_issues", "num_closed_issues"])
      .where("lower_name", "=", "tracker")
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { total: Number(after.num_issues), closed: Number(after.num_closed_issues) },
      { total: Number(counts.num_issues) - 1, closed: Number(counts.num_closed_issues) - 1 },
    );
    assert.equal((await call("olga", "DELETE", path)).status, 404);
  });

  test("issue labels: list, add, replace, remove, clear; exclusive scopes; writers only", async () => {
    const made = await ok(call("olga", "POST", "/repos/olga/tracker/issues", { title: "labelled" }), 201);
    const path = `/repos/olga/tracker/issues/${made.number}/labels`;
    const names = (labels: Label[]) => labels.map((l) => l.name);
    assert.deepEqual(
      names(await ok(call<Label[]>("walt", "POST", path, { labels: [ids.bug] }, "Label[]"), 200)),
      ["bug"],
    );
    assert.deepEqual(
      names(await ok(call<Label[]>("walt", "POST", path, { labels: ["docs", "kind/a"] }, "Label[]"), 200)),
      ["bug", "docs", "kind/a"],
    );
    assert.deepEqual(
      names(await ok(call<Label[]>("walt", "POST", path, { labels: [ids.kindB] }, "Label[]"), 200)),
      ["bug", "docs", "kind/b"],
      "an exclusive label replaces the other of its scope",
    );
    assert.deepEqual(
      names(await ok(call<Label[]>("walt", "PUT", path, { labels: [ids.urgent, ids.docs] }, "Label[]"), 200)),
      ["docs", "urgent"],
    );
    assert.equal((await call("walt", "DELETE", `${path}/${ids.docs}`)).status, 204);
    assert.deepEqual(names(await ok(call<Label[]>(undefined, "GET", path, undefined, "Label[]"), 200)), [
      "urgent",
    ]);
    assert.equal((await call("walt", "POST", path, { labels: [ids.bug, "docs"] })).status, 400);
    assert.equal((await call("walt", "POST", path, { labels: [999_999] })).status, 422);
    assert.equal((await call("walt", "DELETE", `${path}/999999`)).status, 422);
    for (const [method, target, body] of [
      ["POST", path, { labels: [ids.bug] }],
      ["PUT", path, { labels: [] }],
      ["DELETE", path, undefined],
      ["DELETE", `${path}/${ids.urgent}`, undefined],
    ] as const)
      assert.equal((await call("rita", method, target, body)).status, 403, `${method} ${target}`);
    assert.equal((await call("walt", "DELETE", path)).status, 204);
    assert.deepEqual(await ok(call<Label[]>("walt", "GET", path, undefined, "Label[]"), 200), []);
    const labelEvents = (await events(made.id)).filter((e) => e.type === 7);
    assert.deepEqual(
      labelEvents.map((e) => e.body),
      ["1", "1", "1", "", "1", "", "", "1", "", ""],
    );
  });

  test("lock and unlock: writers only, 204; is_locked shows it", async () => {
    const made = await ok(call("rita", "POST", "/repos/olga/tracker/issues", { title: "heated" }), 201);
    const path = `/repos/olga/tracker/issues/${made.number}`;
    assert.equal((await call("rita", "PUT", `${path}/lock`, { lock_reason: "Too heated" })).status, 403);
    assert.equal((await call("walt", "PUT", `${path}/lock`, { lock_reason: "Too heated" })).status, 204);
    assert.equal((await ok(call("rita", "GET", path, undefined, "Issue"), 200)).is_locked, true);
    const again = await call("walt", "PUT", `${path}/lock`);
    assert.equal(again.status, 204, `locking twice is fine: ${JSON.stringify(again.body)}`);
    assert.equal((await call("walt", "DELETE", `${path}/lock`)).status, 204);
    assert.equal((await ok(call("rita", "GET", path, undefined, "Issue"), 200)).is_locked, false);
    assert.deepEqual(
      (await events(made.id)).map((e) => [e.type, e.body]),
      [
        [23, "Too heated"],
        [24, ""],
      ],
    );
  });

  test("pin, move and unpin; the pinned list in order; writers only; at most three", async () => {
    const numbers: number[] = [];
    for (const title of ["p1", "p2", "p3", "p4"])
      numbers.push((await ok(call("olga", "POST", "/repos/olga/tracker/issues", { title }), 201)).number);
    const pin = (n: number) => `/repos/olga/tracker/issues/${n}/pin`;
    assert.equal((await call("rita", "POST", pin(numbers[0]))).status, 403);
    for (const n of numbers.slice(0, 3)) assert.equal((await call("walt", "POST", pin(n))).status, 204);
    assert.equal((await call("walt", "POST", pin(numbers[3]))).status, 400);
    const pinned = async () =>
      (
        await ok(
          call<Issue[]>(undefined, "GET", "/repos/olga/tracker/issues/pinned", undefined, "Issue[]"),
          200,
        )
      ).map((i) => [i.title, i.pin_order]);
    assert.deepEqual(await pinned(), [
      ["p1", 1],
      ["p2", 2],
      ["p3", 3],
    ]);
    assert.equal((await call("walt", "PATCH", `${pin(numbers[2])}/1`)).status, 204);
    assert.deepEqual(await pinned(), [
      ["p3", 1],
      ["p1", 2],
      ["p2", 3],
    ]);
    assert.equal((await call("walt", "DELETE", pin(numbers[0]))).status, 204);
    assert.deepEqual(await pinned(), [
      ["p3", 1],
      ["p2", 2],
    ]);
    assert.deepEqual(
      (await events((await ok(call("olga", "GET", `/repos/olga/tracker/issues/${numbers[0]}`), 200)).id)).map(
        (e) => e.type,
      ),
      [36, 37],
    );
  });

  test("deadline: POST …/deadline answers 201 with the end of that day", async () => {
    const made = await ok(call("olga", "POST", "/repos/olga/tracker/issues", { title: "due" }), 201);
    const path = `/repos/olga/tracker/issues/${made.number}/deadline`;
    const set = await ok(
      call<{ due_date: string }>("walt", "POST", path, { due_date: "2032-03-04T00:00:00Z" }, "IssueDeadline"),
      201,
    );
    assert.equal(set.due_date, "2032-03-04T23:59:59Z");
    const moved = await ok(
      call<{ due_date: string }>("walt", "POST", path, { due_date: "2032-03-05T12:00:00Z" }),
      201,
    );
    assert.equal(moved.due_date, "2032-03-05T23:59:59Z");
    assert.equal(
      (await ok(call("olga", "GET", `/repos/olga/tracker/issues/${made.number}`), 200)).due_date,
      "2032-03-05T23:59:59Z",
    );
    assert.equal((await call("rita", "POST", path, { due_date: "2032-03-04T00:00:00Z" })).status, 403);
    assert.equal((await call("walt", "POST", path, { due_date: "soon" })).status, 422);
    assert.equal((await call("walt", "POST", path, {})).status, 422);
    assert.deepEqual(
      (await events(made.id)).map((e) => [e.type, e.body]),
      [
        [16, "2032-03-04"],
        [17, "2032-03-05|2032-03-04"],
      ],
    );
  });

  test("assignees: who may be assigned, in Gitea's order", async () => {
    const users = await ok(
      call<ApiUser[]>(undefined, "GET", "/repos/olga/tracker/assignees", undefined, "User[]"),
      200,
    );
    assert.deepEqual(
      users.map((u) => u.login),
      ["walt", "olga"],
      "write collaborators by name, the owner last",
    );
    const board = await ok(
      call<ApiUser[]>("tina", "GET", "/repos/guild/board/assignees", undefined, "User[]"),
      200,
    );
    assert.deepEqual(
      board.map((u) => u.login),
      ["cody", "olga", "tina"],
      "members of the Owners team and of teams with write on code, issues or pulls",
    );
  });
});

forEachForge("forge issues: lists with Gitea's filters, and the search across repositories", (forge) => {
  const cast = {} as Record<"olga" | "walt" | "rita" | "otto", Person>;
  let v1 = 0;

  function db() {
    const database = forge.server.app.database;
    if (!database) throw new Error("no database");
    return database.db;
  }

  const titles = (issues: Issue[]) => issues.map((issue) => issue.title);

  async function list(query: string, who?: "olga" | "walt" | "rita" | "otto") {
    const answer = await api<Issue[]>(forge.url, "GET", `/repos/olga/lister/issues${query}`, {
      token: who ? cast[who].token : undefined,
      shape: "Issue[]",
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer;
  }

  async function search(query: string, who?: "olga" | "walt" | "rita" | "otto") {
    const answer = await api<Issue[]>(forge.url, "GET", `/repos/issues/search${query}`, {
      token: who ? cast[who].token : undefined,
      shape: "Issue[]",
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer;
  }

  async function open(repo: string, body: Record<string, unknown>, who: "olga" | "walt" = "olga") {
    const made = await api<Issue>(forge.url, "POST", `/repos/olga/${repo}/issues`, {
      token: cast[who].token,
      body,
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return made.body;
  }

  before(async () => {
    for (const name of ["olga", "walt", "rita", "otto"] as const)
      cast[name] = await makePerson(forge.url, forge.adminToken, name);
    for (const [name, isPrivate] of [
      ["lister", false],
      ["hidden", true],
    ] as const) {
      const made = await api(forge.url, "POST", "/user/repos", {
        token: cast.olga.token,
        body: { name, private: isPrivate },
      });
      assert.equal(made.status, 201);
    }
    for (const repo of ["lister", "hidden"]) {
      const added = await api(forge.url, "PUT", `/repos/olga/${repo}/collaborators/walt`, {
        token: cast.olga.token,
        body: { permission: "write" },
      });
      assert.equal(added.status, 204);
    }
    const repo = await db()
      .selectFrom("repository")
      .select("id")
      .where("lower_name", "=", "lister")
      .executeTakeFirstOrThrow();
    const now = new Date().toISOString();
    const labelIds: number[] = [];
    for (const name of ["bug", "docs"])
      labelIds.push(
        (
          await db()
            .insertInto("label")
            .values({ repo_id: repo.id, name, color: "00aabb", created_at: now, updated_at: now })
            .returning("id")
            .executeTakeFirstOrThrow()
        ).id,
      );
    v1 = (
      await db()
        .insertInto("milestone")
        .values({ repo_id: repo.id, name: "v1", created_at: now, updated_at: now })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
    await open("lister", { title: "i1", labels: [labelIds[0]], milestone: v1 }, "walt");
    await open("lister", { title: "i2", labels: labelIds, assignees: ["walt"] });
    await open("lister", { title: "i3", body: "ping @rita please", closed: true });
    await open("lister", { title: "the needle in i4" });
    await open("lister", { title: "i5" });
    await open("hidden", { title: "a hidden needle" });
    // A pull request's issue row, as the pull work will write it: same numbers, same counters.
    const number = await db()
      .updateTable("repository")
      .set((eb) => ({ last_issue_index: eb("last_issue_index", "+", 1), num_pulls: eb("num_pulls", "+", 1) }))
      .where("id", "=", repo.id)
      .returning("last_issue_index")
      .executeTakeFirstOrThrow();
    const later = new Date(Date.now() + 1000).toISOString();
    await db()
      .insertInto("issue")
      .values({
        repo_id: repo.id,
        number: number.last_issue_index,
        poster_id: cast.olga.id,
        title: "a pull",
        is_pull: true,
        created_at: later,
        updated_at: later,
      })
      .execute();
  });

  test("open issues and pulls by default, newest first, paged with X-Total-Count and Link", async () => {
    const all = await list("");
    assert.deepEqual(titles(all.body), ["a pull", "i5", "the needle in i4", "i2", "i1"]);
    assert.equal(all.headers.get("x-total-count"), "5");
    const pull = all.body[0];
    assert.deepEqual(pull.pull_request, {
      merged: false,
      merged_at: null,
      draft: false,
      html_url: `http://forge.test/olga/lister/pulls/${pull.number}`,
    });
    const page = await list("?limit=2&page=2");
    assert.deepEqual(titles(page.body), ["the needle in i4", "i2"]);
    assert.equal(page.headers.get("x-total-count"), "5");
    const link = page.headers.get("link") ?? "";
    assert.match(link, /page=3[^>]*>; rel="next"/);
    assert.match(link, /page=1[^>]*>; rel="prev"/);
    const repo = await api<Repo>(forge.url, "GET", "/repos/olga/lister", { shape: "Repository" });
    assert.equal(repo.body.open_issues_count, 4);
    assert.equal(repo.body.open_pr_counter, 1);
  });

  test("a page read again after a change shows the change (kept page boundaries follow every write)", async () => {
    const page2 = async () => titles((await list("?type=issues&limit=2&page=2")).body);
    assert.deepEqual(await page2(), ["i2", "i1"]);
    assert.deepEqual(await page2(), ["i2", "i1"], "the same page from its kept boundary");
    const i5 = (await list("?type=issues&limit=1")).body[0];
    const closed = await api(forge.url, "PATCH", `/repos/olga/lister/issues/${i5.number}`, {
      token: cast.olga.token,
      body: { state: "closed" },
    });
    assert.equal(closed.status, 201);
    assert.deepEqual(await page2(), ["i1"]);
    const reopened = await api(forge.url, "PATCH", `/repos/olga/lister/issues/${i5.number}`, {
      token: cast.olga.token,
      body: { state: "open" },
    });
    assert.equal(reopened.status, 201);
    assert.deepEqual(await page2(), ["i2", "i1"]);
    const labelled = await list("?labels=bug&limit=1&page=2");
    assert.deepEqual(titles(labelled.body), ["i1"]);
    assert.equal(labelled.headers.get("x-total-count"), "2");
    const bug = labelled.body[0].labels[0];
    const issue = `/repos/olga/lister/issues/${labelled.body[0].number}/labels`;
    assert.equal(
      (await api(forge.url, "DELETE", `${issue}/${bug.id}`, { token: cast.olga.token })).status,
      204,
    );
    const after = await list("?labels=bug&limit=1&page=2");
    assert.deepEqual(titles(after.body), []);
    assert.equal(after.headers.get("x-total-count"), "1");
    const back = await api(forge.url, "POST", issue, { token: cast.olga.token, body: { labels: [bug.id] } });
    assert.equal(back.status, 200);
    assert.deepEqual(titles((await list("?labels=bug&limit=1&page=2")).body), ["i1"]);
  });

  test("state, type, labels, milestones, q, created_by, assigned_by, mentioned_by, since and before", async () => {
    assert.deepEqual(titles((await list("?state=closed")).body), ["i3"]);
    const every = await list("?state=all");
    assert.equal(every.headers.get("x-total-count"), "6");
    assert.deepEqual(titles((await list("?type=issues")).body), ["i5", "the needle in i4", "i2", "i1"]);
    assert.deepEqual(titles((await list("?type=pulls")).body), ["a pull"]);
    assert.deepEqual(titles((await list("?labels=bug")).body), ["i2", "i1"]);
    const both = await list("?labels=bug,docs");
    assert.deepEqual(titles(both.body), ["i2"], "an issue must carry every label named");
    assert.equal(both.headers.get("x-total-count"), "1");
    assert.deepEqual(titles((await list("?labels=nothing-like-it")).body), []);
    assert.deepEqual(titles((await list("?milestones=v1")).body), ["i1"]);
    assert.deepEqual(titles((await list(`?milestones=${v1}`)).body), ["i1"]);
    assert.deepEqual(titles((await list("?q=NEEDLE")).body), ["the needle in i4"]);
    assert.deepEqual(titles((await list("?created_by=walt")).body), ["i1"]);
    assert.deepEqual(titles((await list("?assigned_by=walt")).body), ["i2"]);
    assert.deepEqual(titles((await list("?mentioned_by=rita&state=all")).body), ["i3"]);
    assert.deepEqual(titles((await list("?since=2999-01-01T00:00:00Z")).body), []);
    assert.deepEqual(titles((await list("?before=2000-01-01T00:00:00Z")).body), []);
    assert.equal((await list("?since=2000-01-01T00:00:00Z&type=issues")).body.length, 4);
    for (const bad of ["?since=yesterday", "?before=2020-02-30"]) {
      const answer = await api(forge.url, "GET", `/repos/olga/lister/issues${bad}`);
      assert.equal(answer.status, 422, bad);
    }
    assert.equal((await api(forge.url, "GET", "/repos/olga/lister/issues?created_by=ghost")).status, 404);
    assert.equal((await api(forge.url, "GET", "/repos/olga/hidden/issues")).status, 404);
  });

  test("search: every repository the caller may see, with owner, type and the caller's own filters", async () => {
    assert.deepEqual(
      titles((await search("?q=needle")).body),
      ["the needle in i4"],
      "anonymous: public only",
    );
    assert.deepEqual(titles((await search("?q=needle", "otto")).body), ["the needle in i4"]);
    const walt = await search("?q=needle", "walt");
    assert.deepEqual(titles(walt.body), ["a hidden needle", "the needle in i4"]);
    assert.equal(walt.headers.get("x-total-count"), "2");
    assert.deepEqual(
      walt.body.map((issue) => issue.repository.full_name),
      ["olga/hidden", "olga/lister"],
    );
    assert.deepEqual(titles((await search("?q=needle&owner=olga&limit=1", "olga")).body), [
      "a hidden needle",
    ]);
    assert.deepEqual(titles((await search("?created=true&state=all", "walt")).body), ["i1"]);
    assert.deepEqual(titles((await search("?assigned=true", "walt")).body), ["i2"]);
    assert.deepEqual(titles((await search("?mentioned=true&state=all", "rita")).body), ["i3"]);
    assert.deepEqual(titles((await search("?type=pulls", "olga")).body), ["a pull"]);
    assert.deepEqual(titles((await search("?labels=docs", "olga")).body), ["i2"]);
    assert.deepEqual(titles((await search("?milestones=v1", "olga")).body), ["i1"]);
    assert.equal((await api(forge.url, "GET", "/repos/issues/search?owner=ghost")).status, 400);
    assert.equal((await api(forge.url, "GET", "/repos/issues/search?team=devs")).status, 400);
    assert.equal((await api(forge.url, "GET", "/repos/issues/search?since=never")).status, 422);
  });

  // Lists and searches are kept, rendered, while the rows they come from are unchanged: each change
  // must show on the next read, and one caller's answer must never reach another.
  test("a list or search read again after a label rename, a title edit or a poster's edit shows it", async () => {
    const i1 = async (query: string) =>
      (await list(query)).body.find((issue) => issue.title === "i1") as Issue;
    const bug = (await i1("?type=issues")).labels[0];
    assert.equal((await i1("?type=issues")).labels[0].name, "bug");
    const renamed = await api<Label>(forge.url, "PATCH", `/repos/olga/lister/labels/${bug.id}`, {
      token: cast.olga.token,
      body: { name: "defect" },
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.deepEqual(
      (await i1("?type=issues")).labels.map((label) => label.name),
      ["defect"],
    );
    const back = await api(forge.url, "PATCH", `/repos/olga/lister/labels/${bug.id}`, {
      token: cast.olga.token,
      body: { name: "bug" },
    });
    assert.equal(back.status, 200);
    assert.equal((await i1("?type=issues")).labels[0].name, "bug");

    const found = async () => titles((await search("?q=needle", "walt")).body);
    assert.deepEqual(await found(), ["a hidden needle", "the needle in i4"]);
    const needle = (await search("?q=needle")).body[0];
    const edit = (title: string) =>
      api(forge.url, "PATCH", `/repos/olga/lister/issues/${needle.number}`, {
        token: cast.olga.token,
        body: { title },
      });
    assert.equal((await edit("the needle in i4, edited")).status, 201);
    assert.deepEqual(await found(), ["a hidden needle", "the needle in i4, edited"]);
    assert.deepEqual(titles((await search("?q=needle")).body), ["the needle in i4, edited"]);
    assert.ok(titles((await list("")).body).includes("the needle in i4, edited"));
    assert.equal((await edit("the needle in i4")).status, 201);
    assert.deepEqual(await found(), ["a hidden needle", "the needle in i4"]);

    const fullName = async () => (await i1("?type=issues")).user.full_name;
    assert.equal(await fullName(), "");
    const edited = await api(forge.url, "PATCH", "/admin/users/walt", {
      token: forge.adminToken,
      body: { source_id: 0, login_name: "walt", full_name: "Walt Whitman" },
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(await fullName(), "Walt Whitman");
  });

  test("a kept list or search is never another caller's: e-mails, private repositories", async () => {
    const posterOfI1 = async (who?: "olga" | "walt" | "otto") =>
      ((await list("?type=issues", who)).body.find((issue) => issue.title === "i1") as Issue).user;
    const anonymous = await posterOfI1();
    assert.match(anonymous.email, /@noreply\./);
    const self = await posterOfI1("walt");
    assert.doesNotMatch(self.email, /@noreply\./);
    assert.equal(self.login_name, "walt");
    const other = await posterOfI1("otto");
    assert.doesNotMatch(other.email, /@noreply\./);
    assert.equal(other.login_name, "");
    assert.match((await posterOfI1()).email, /@noreply\./, "anonymous again, after signed-in callers");
    for (const who of [undefined, "walt", undefined, "otto", "walt"] as const)
      assert.deepEqual(
        titles((await search("?q=needle", who)).body),
        who === "walt" ? ["a hidden needle", "the needle in i4"] : ["the needle in i4"],
        who ?? "anonymous",
      );
  });
});

forEachForge(
  "forge issues: each change reaches the repository's hooks as Gitea's issue events",
  (forge) => {
    const SECRET = "issue-hook-secret";
    let receiver: Receiver;
    let olga: Person;
    let labelId = 0;
    let milestoneId = 0;

    interface IssuePayload {
      action: string;
      number: number;
      issue: Issue;
      changes?: Record<string, { from: string }>;
      repository: { full_name: string };
      sender: { login: string; username: string };
      commit_id: string;
    }

    const call = (method: string, path: string, body?: unknown) =>
      api<Issue>(forge.url, method, `/repos/olga/hooked${path}`, { token: olga.token, body });

    /** The next delivery of X-Gitea-Event-Type `type` with `action`, after `from`; checked and parsed. */
    async function delivered(from: number, type: string, action: string) {
      const request = await receiver.next((r: Received) => {
        if (r.headers["x-gitea-event-type"] !== type) return false;
        return payloadOf<IssuePayload>(r).action === action;
      }, from);
      assertSigned(request, SECRET);
      assert.equal(request.headers["x-gitea-event"], "issues");
      const payload = payloadOf<IssuePayload>(request);
      assertGiteaShape("Issue", payload.issue);
      assert.equal(payload.commit_id, "");
      assert.equal(payload.repository.full_name, "olga/hooked");
      assert.equal(payload.sender.username, "olga");
      return payload;
    }

    before(async () => {
      receiver = await startReceiver();
      olga = await makePerson(forge.url, forge.adminToken, "olga");
      const made = await api(forge.url, "POST", "/user/repos", {
        token: olga.token,
        body: { name: "hooked" },
      });
      assert.equal(made.status, 201);
      const hook = await api(forge.url, "POST", "/repos/olga/hooked/hooks", {
        token: olga.token,
        body: {
          type: "gitea",
          config: { url: receiver.url, content_type: "json", secret: SECRET },
          events: ["issues"],
          active: true,
        },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const label = await api<{ id: number }>(forge.url, "POST", "/repos/olga/hooked/labels", {
        token: olga.token,
        body: { name: "bug", color: "#ff0000" },
      });
      assert.equal(label.status, 201, JSON.stringify(label.body));
      labelId = label.body.id;
      const milestone = await api<{ id: number }>(forge.url, "POST", "/repos/olga/hooked/milestones", {
        token: olga.token,
        body: { title: "v1" },
      });
      assert.equal(milestone.status, 201, JSON.stringify(milestone.body));
      milestoneId = milestone.body.id;
    });
    after(() => receiver.close());

    test("opened, assigned, edited (with changes), label_updated, milestoned, closed, reopened, label_cleared, deleted", async () => {
      let from = receiver.received.length;
      const created = await call("POST", "/issues", { title: "hooked issue", assignees: ["olga"] });
      assert.equal(created.status, 201);
      const opened = await delivered(from, "issues", "opened");
      assert.equal(opened.number, created.body.number);
      assert.equal(opened.issue.title, "hooked issue");
      assert.equal(opened.changes, undefined);
      assert.equal((await delivered(from, "issue_assign", "assigned")).issue.assignee?.login, "olga");

      const path = `/issues/${created.body.number}`;
      from = receiver.received.length;
      assert.equal((await call("PATCH", path, { title: "renamed" })).status, 201);
      const edited = await delivered(from, "issues", "edited");
      assert.deepEqual(edited.changes, { title: { from: "hooked issue" } });
      assert.equal(edited.issue.title, "renamed");

      from = receiver.received.length;
      assert.equal((await call("POST", `${path}/labels`, { labels: [labelId] })).status, 200);
      assert.deepEqual(
        (await delivered(from, "issue_label", "label_updated")).issue.labels.map((l) => l.name),
        ["bug"],
      );
      from = receiver.received.length;
      assert.equal((await call("PATCH", path, { milestone: milestoneId })).status, 201);
      assert.equal((await delivered(from, "issue_milestone", "milestoned")).issue.milestone?.title, "v1");
      from = receiver.received.length;
      assert.equal((await call("PATCH", path, { milestone: 0 })).status, 201);
      assert.equal((await delivered(from, "issue_milestone", "demilestoned")).issue.milestone, null);

      from = receiver.received.length;
      assert.equal((await call("PATCH", path, { state: "closed" })).status, 201);
      assert.equal((await delivered(from, "issues", "closed")).issue.state, "closed");
      from = receiver.received.length;
      assert.equal((await call("PATCH", path, { state: "open" })).status, 201);
      assert.equal((await delivered(from, "issues", "reopened")).issue.state, "open");
      from = receiver.received.length;
      assert.equal((await call("DELETE", `${path}/labels`)).status, 204);
      assert.deepEqual((await delivered(from, "issue_label", "label_cleared")).issue.labels, []);
      from = receiver.received.length;
      assert.equal((await call("PATCH", path, { assignees: [] })).status, 201);
      await delivered(from, "issue_assign", "unassigned");

      from = receiver.received.length;
      assert.equal((await call("DELETE", path)).status, 204);
      assert.equal((await delivered(from, "issues", "deleted")).number, created.body.number);
    });

    test("opened with labels and a milestone: label_updated and milestoned are sent too, as Gitea sends them", async () => {
      const from = receiver.received.length;
      const created = await call("POST", "/issues", {
        title: "born labelled",
        labels: [labelId],
        milestone: milestoneId,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((await delivered(from, "issues", "opened")).number, created.body.number);
      const labelled = await delivered(from, "issue_label", "label_updated");
      assert.equal(labelled.number, created.body.number);
      assert.deepEqual(
        labelled.issue.labels.map((l) => l.name),
        ["bug"],
      );
      const milestoned = await delivered(from, "issue_milestone", "milestoned");
      assert.equal(milestoned.issue.milestone?.title, "v1");
      assert.equal(milestoned.changes, undefined);
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);
