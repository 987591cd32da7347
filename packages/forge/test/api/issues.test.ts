import assert from "node:assert/strict";
import { before, test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";

interface ApiUser {
  id: number;
  login: string;
}
interface Issue {
  id: number;
  number: number;
  title: string;
  body: string;
  state: string;
  user: ApiUser;
  labels: Array<{ id: number; name: string }>;
  milestone: { id: number; open_issues: number; closed_issues: number } | null;
  assignee: ApiUser | null;
  assignees: ApiUser[] | null;
  is_locked: boolean;
  pin_order: number;
  due_date: string | null;
  closed_at: string | null;
  comments: number;
  html_url: string;
  pull_request: unknown;
  repository: { id: number; name: string; owner: string; full_name: string };
}

forEachForge("forge issues: create, read, edit, list, labels, lock, pin", (forge) => {
  const cast = {} as Record<"olga" | "walt" | "rita" | "otto", Person>;

  before(async () => {
    for (const name of ["olga", "walt", "rita", "otto"] as const)
      cast[name] = await makePerson(forge.url, forge.adminToken, name);
    const repo = await api(forge.url, "POST", "/user/repos", {
      token: cast.olga.token,
      body: { name: "tracker" },
    });
    assert.equal(repo.status, 201);
  });

  test("an issue is created with number 1 and read back in Gitea's shape", async () => {
    const created = await api<Issue>(forge.url, "POST", "/repos/olga/tracker/issues", {
      token: cast.olga.token,
      body: { title: "first", body: "hello", milestone: null },
      shape: "Issue",
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.number, 1);
    assert.equal(created.body.state, "open");
    assert.equal(created.body.user.login, "olga");
    assert.deepEqual(created.body.labels, []);
    assert.equal(created.body.milestone, null);
    assert.equal(created.body.assignees, null);
    assert.equal(created.body.pull_request, null);
    assert.equal(created.body.html_url, "http://forge.test/olga/tracker/issues/1");
    assert.deepEqual(created.body.repository, {
      id: created.body.repository.id,
      name: "tracker",
      owner: "olga",
      full_name: "olga/tracker",
    });
    const read = await api<Issue>(forge.url, "GET", "/repos/olga/tracker/issues/1", { shape: "Issue" });
    assert.equal(read.status, 200);
    assert.equal(read.body.title, "first");
    assert.equal(read.body.body, "hello");
  });
});
