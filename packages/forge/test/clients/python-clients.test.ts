// What the Python clients for Gitea send, replayed with plain fetch: py-gitea (requests) puts
// `Content-type: application/json` and `Authorization: token …` on every call, GETs included,
// sends `{}` as the body of every PUT and DELETE, and fills optional fields with None (null);
// giteapy (swagger-codegen) authenticates with basic auth or a token header, and users who hand
// it plain dicts send their None values as null too. Gitea binds null as "not given".
import assert from "node:assert/strict";
import { test } from "node:test";
import { api, basic, forEachForge } from "../support/forge.ts";

interface User {
  id: number;
  login: string;
  username: string;
}
interface Repo {
  id: number;
  full_name: string;
  description: string;
  website: string;
  private: boolean;
  empty: boolean;
  default_branch: string;
  has_issues: boolean;
  owner: User;
}
interface Team {
  id: number;
  name: string;
  permission: string;
  units_map: Record<string, string>;
  organization: { username: string };
}
interface Label {
  id: number;
  name: string;
}
interface Milestone {
  id: number;
  title: string;
  open_issues: number;
  closed_issues: number;
}
interface Comment {
  id: number;
  body: string;
}
interface Issue {
  number: number;
  title: string;
  state: string;
  closed_at: string | null;
  labels: Label[];
  milestone: Milestone | null;
  assignees: User[];
}

forEachForge("Python clients (py-gitea, giteapy) against the forge", (forge) => {
  const json = { "content-type": "application/json" };
  /** py-gitea's session: every request carries its JSON content type and token header. */
  const pyGitea =
    (token: string) =>
    <T>(method: string, path: string, body?: unknown, shape?: string) =>
      api<T>(forge.url, method, path, {
        headers: { ...json, authorization: `token ${token}` },
        body: body ?? (method === "PUT" || method === "DELETE" ? {} : undefined),
        shape,
      });
  const admin = <T>(method: string, path: string, body?: unknown, shape?: string) =>
    pyGitea(forge.adminToken)<T>(method, path, body, shape);

  /** py-gitea's Gitea.create_user, then a token made with basic auth as giteapy's BasicAuth does. */
  async function person(username: string) {
    const made = await admin<User>(
      "POST",
      "/admin/users",
      {
        source_id: 0,
        login_name: username,
        full_name: username,
        username,
        email: `${username}@example.com`,
        password: "password123",
        send_notify: true,
        must_change_password: false,
      },
      "User",
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const token = await api<{ sha1: string }>(forge.url, "POST", `/users/${username}/tokens`, {
      auth: basic(username, "password123"),
      body: { name: "giteapy", scopes: ["all"] },
      shape: "AccessToken",
    });
    assert.equal(token.status, 201, JSON.stringify(token.body));
    return { user: made.body, call: pyGitea(token.body.sha1) };
  }

  test("py-gitea: an organization, a team with units and units_map, a member, an admin-made repository", async () => {
    const ann = await person("ann");
    const ben = await person("ben");
    const org = await admin<User>(
      "POST",
      "/admin/users/ann/orgs",
      { username: "works", description: "the works", location: "", website: "", full_name: "" },
      "Organization",
    );
    assert.equal(org.status, 201, JSON.stringify(org.body));
    const team = await ann.call<Team>(
      "POST",
      "/orgs/works/teams",
      {
        name: "crew",
        description: "",
        permission: "read",
        can_create_org_repo: false,
        includes_all_repositories: false,
        units: [
          "repo.code",
          "repo.issues",
          "repo.ext_issues",
          "repo.wiki",
          "repo.pulls",
          "repo.releases",
          "repo.ext_wiki",
        ],
        units_map: {
          "repo.code": "write",
          "repo.issues": "read",
          "repo.ext_issues": "none",
          "repo.wiki": "none",
          "repo.pulls": "none",
          "repo.releases": "none",
          "repo.ext_wiki": "none",
        },
      },
      "Team",
    );
    assert.equal(team.status, 201, JSON.stringify(team.body));
    assert.equal(team.body.units_map["repo.code"], "write");
    assert.equal(team.body.units_map["repo.issues"], "read");
    assert.equal((await ann.call("PUT", `/teams/${team.body.id}/members/ben`)).status, 204);

    const repo = await admin<Repo>(
      "POST",
      "/admin/users/works/repos",
      {
        name: "engine",
        description: "",
        private: false,
        auto_init: true,
        gitignores: null,
        license: null,
        issue_labels: null,
        readme: "Default",
        default_branch: "master",
      },
      "Repository",
    );
    assert.equal(repo.status, 201, JSON.stringify(repo.body));
    assert.equal(repo.body.default_branch, "master");
    assert.equal(repo.body.empty, false);
    assert.equal(repo.body.owner.username, "works");
    assert.equal((await ann.call("PUT", `/teams/${team.body.id}/repos/works/engine`)).status, 204);

    const got = await ben.call<Repo>("GET", "/repos/works/engine", undefined, "Repository");
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.owner.username, "works");
    const teams = await ben.call<Team[]>("GET", "/user/teams", undefined, "Team[]");
    assert.deepEqual(
      teams.body.map((listed) => [listed.name, listed.organization.username]),
      [["crew", "works"]],
    );
    const branches = await ben.call<{ name: string }[]>(
      "GET",
      "/repos/works/engine/branches",
      undefined,
      "Branch[]",
    );
    assert.deepEqual(
      branches.body.map((branch) => branch.name),
      ["master"],
    );
    const commits = await ben.call<{ sha: string }[]>(
      "GET",
      "/repos/works/engine/commits",
      undefined,
      "Commit[]",
    );
    assert.equal(commits.body.length, 1);
    const single = await ben.call(
      "GET",
      `/repos/works/engine/git/commits/${commits.body[0].sha}`,
      undefined,
      "Commit",
    );
    assert.equal(single.status, 200);

    // py-gitea's requests_get_paginated asks for page after page until one comes back empty.
    for (const path of [
      "/orgs/works/repos",
      "/orgs/works/members",
      "/orgs/works/teams",
      `/teams/${team.body.id}/members`,
      `/teams/${team.body.id}/repos`,
      "/user/teams",
      "/user/orgs",
      "/users/ann/repos",
      "/repos/works/engine/branches",
      "/repos/works/engine/commits",
      "/repos/works/engine/collaborators",
    ]) {
      const beyond = await ann.call<unknown[]>("GET", `${path}?page=99&limit=50`);
      assert.equal(beyond.status, 200, `${path}: ${JSON.stringify(beyond.body)}`);
      assert.deepEqual(beyond.body, [], path);
    }
  });

  test("null for every optional field: create, edit, collaborators, topics, transfer", async () => {
    const cat = await person("cat");
    await person("dan");
    const made = await cat.call<Repo>(
      "POST",
      "/user/repos",
      {
        name: "nulls",
        description: null,
        private: null,
        auto_init: null,
        gitignores: null,
        license: null,
        readme: null,
        issue_labels: null,
        default_branch: null,
        template: null,
        trust_model: null,
        object_format_name: null,
      },
      "Repository",
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.description, "");
    assert.equal(made.body.private, false);
    assert.equal(made.body.empty, true);

    const edited = await cat.call<Repo>(
      "PATCH",
      "/repos/cat/nulls",
      {
        description: "set",
        website: null,
        private: null,
        has_issues: null,
        default_branch: null,
        archived: null,
      },
      "Repository",
    );
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.description, "set");
    assert.equal(edited.body.has_issues, made.body.has_issues, "null leaves a field as it was");
    assert.equal(edited.body.private, false);

    assert.equal(
      (await cat.call("PUT", "/repos/cat/nulls/collaborators/dan", { permission: null })).status,
      204,
    );
    const permission = await cat.call<{ permission: string }>(
      "GET",
      "/repos/cat/nulls/collaborators/dan/permission",
      undefined,
      "RepoCollaboratorPermission",
    );
    assert.equal(permission.body.permission, "write", "Gitea's default when no permission is given");
    assert.equal((await cat.call("DELETE", "/repos/cat/nulls/collaborators/dan")).status, 204);

    assert.equal((await cat.call("PUT", "/repos/cat/nulls/topics", { topics: ["py", "gitea"] })).status, 204);
    assert.equal((await cat.call("DELETE", "/repos/cat/nulls/topics/py")).status, 204);
    const topics = await cat.call<{ topics: string[] }>(
      "GET",
      "/repos/cat/nulls/topics",
      undefined,
      "TopicName",
    );
    assert.deepEqual(topics.body.topics, ["gitea"]);

    await admin("POST", "/admin/users/cat/orgs", { username: "catco", description: "", full_name: "" });
    const moved = await cat.call<Repo>(
      "POST",
      "/repos/cat/nulls/transfer",
      { new_owner: "catco", team_ids: null },
      "Repository",
    );
    assert.equal(moved.status, 202, JSON.stringify(moved.body));
    assert.equal(moved.body.full_name, "catco/nulls");
    const byId = await cat.call<Repo>("GET", `/repositories/${made.body.id}`, undefined, "Repository");
    assert.equal(byId.body.full_name, "catco/nulls");
  });

  test("an issue's life as py-gitea and giteapy send it: labels, milestone, assignees, comments, relabel, close", async () => {
    const gil = await person("gil");
    await person("hue");
    assert.equal((await gil.call("POST", "/user/repos", { name: "desk", description: null })).status, 201);
    assert.equal(
      (await gil.call("PUT", "/repos/gil/desk/collaborators/hue", { permission: "write" })).status,
      204,
    );
    const label = async (name: string, color: string) => {
      const made = await gil.call<Label>(
        "POST",
        "/repos/gil/desk/labels",
        { name, color, description: "", exclusive: null, is_archived: null },
        "Label",
      );
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return made.body;
    };
    const bug = await label("bug", "#ee0701");
    const ui = await label("ui", "0052cc");
    const milestone = await gil.call<Milestone>(
      "POST",
      "/repos/gil/desk/milestones",
      { title: "v1", description: "first", due_on: null, state: "open" },
      "Milestone",
    );
    assert.equal(milestone.status, 201, JSON.stringify(milestone.body));

    const opened = await gil.call<Issue>(
      "POST",
      "/repos/gil/desk/issues",
      {
        title: "printer on fire",
        body: "",
        assignee: null,
        assignees: ["gil", "hue"],
        closed: false,
        due_date: null,
        labels: [bug.id],
        milestone: milestone.body.id,
        ref: null,
      },
      "Issue",
    );
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    assert.deepEqual(
      opened.body.labels.map((l) => l.name),
      ["bug"],
    );
    assert.equal(opened.body.milestone?.title, "v1");
    assert.deepEqual(opened.body.assignees.map((user) => user.login).sort(), ["gil", "hue"]);
    const other = await gil.call<Issue>("POST", "/repos/gil/desk/issues", {
      title: "still open",
      labels: null,
    });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    const path = `/repos/gil/desk/issues/${opened.body.number}`;

    const comment = await gil.call<Comment>("POST", `${path}/comments`, { body: "smoke seen" }, "Comment");
    assert.equal(comment.status, 201, JSON.stringify(comment.body));
    const edited = await gil.call<Comment>(
      "PATCH",
      `/repos/gil/desk/issues/comments/${comment.body.id}`,
      { body: "fire seen" },
      "Comment",
    );
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.body, "fire seen");
    const comments = await gil.call<Comment[]>("GET", `${path}/comments`, undefined, "Comment[]");
    assert.deepEqual(
      comments.body.map((c) => c.body),
      ["fire seen"],
    );

    const added = await gil.call<Label[]>("POST", `${path}/labels`, { labels: [ui.id] }, "Label[]");
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.deepEqual(added.body.map((l) => l.name).sort(), ["bug", "ui"]);
    assert.equal((await gil.call("DELETE", `${path}/labels/${bug.id}`)).status, 204);
    const labels = await gil.call<Label[]>("GET", `${path}/labels`, undefined, "Label[]");
    assert.deepEqual(
      labels.body.map((l) => l.name),
      ["ui"],
    );

    // py-gitea's Issue.commit sends its fields, the unchanged ones as None.
    const closed = await gil.call<Issue>(
      "PATCH",
      path,
      {
        state: "closed",
        title: null,
        body: null,
        assignee: null,
        assignees: null,
        milestone: null,
        due_date: null,
        unset_due_date: null,
        ref: null,
      },
      "Issue",
    );
    assert.equal(closed.status, 201, JSON.stringify(closed.body));
    assert.equal(closed.body.state, "closed");
    assert.equal(typeof closed.body.closed_at, "string");
    assert.equal(closed.body.title, "printer on fire", "null leaves a field as it was");
    assert.equal(closed.body.milestone?.title, "v1");
    assert.equal(closed.body.assignees.length, 2);

    const listed = await gil.call<Issue[]>(
      "GET",
      "/repos/gil/desk/issues?state=closed&type=issues",
      undefined,
      "Issue[]",
    );
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.map((issue) => issue.number),
      [opened.body.number],
    );
    assert.equal(listed.headers.get("x-total-count"), "1");
    const counted = await gil.call<Milestone>(
      "GET",
      `/repos/gil/desk/milestones/${milestone.body.id}`,
      undefined,
      "Milestone",
    );
    assert.deepEqual([counted.body.open_issues, counted.body.closed_issues], [0, 1]);
  });

  test("giteapy's auth settings: access_token query, Authorization token header, basic auth, Sudo header", async () => {
    const fay = await person("fay");
    const token = await api<{ sha1: string }>(forge.url, "POST", "/users/fay/tokens", {
      auth: basic("fay", "password123"),
      body: { name: "query", scopes: ["read:user"] },
    });
    const byQuery = await api<User>(forge.url, "GET", `/user?access_token=${token.body.sha1}`, {
      shape: "User",
    });
    assert.equal(byQuery.status, 200, JSON.stringify(byQuery.body));
    assert.equal(byQuery.body.login, "fay");
    assert.match(
      String(byQuery.headers.get("x-gitea-warning")),
      /^token and access_token API authentication is deprecated/,
    );
    const byTokenQuery = await api<User>(forge.url, "GET", `/user?token=${token.body.sha1}`, {
      shape: "User",
    });
    assert.equal(byTokenQuery.body.login, "fay");
    assert.match(String(byTokenQuery.headers.get("x-gitea-warning")), /deprecated/);
    const byHeader = await api<User>(forge.url, "GET", "/user", {
      headers: { authorization: `token ${token.body.sha1}` },
      shape: "User",
    });
    assert.equal(byHeader.body.login, "fay");
    assert.equal(byHeader.headers.get("x-gitea-warning"), null);
    const byPassword = await api<User>(forge.url, "GET", "/user", {
      auth: basic("fay", "password123"),
      shape: "User",
    });
    assert.equal(byPassword.body.login, "fay");
    const sudo = await admin<User>("GET", "/user?sudo=fay", undefined, "User");
    assert.equal(sudo.body.login, "fay");
    assert.equal(fay.user.login, "fay");
  });

  test("emails, paginated search until an empty page, and errors a Python client reads", async () => {
    const eve = await person("eve");
    const added = await eve.call<{ email: string }[]>(
      "POST",
      "/user/emails",
      { emails: ["eve@work.example"] },
      "Email[]",
    );
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal((await eve.call("DELETE", "/user/emails", { emails: ["eve@work.example"] })).status, 204);
    const listed = await eve.call<{ email: string }[]>("GET", "/user/emails", undefined, "Email[]");
    assert.deepEqual(
      listed.body.map((email) => email.email),
      ["eve@example.com"],
    );

    for (const name of ["py-one", "py-two", "py-three"]) {
      assert.equal((await eve.call("POST", "/user/repos", { name, description: null })).status, 201);
    }
    const found: string[] = [];
    for (let page = 1; page < 10; page++) {
      const answer = await eve.call<{ ok: boolean; data: Repo[] }>(
        "GET",
        `/repos/search?q=py-&limit=2&page=${page}`,
        undefined,
        "SearchResults",
      );
      assert.equal(answer.body.ok, true);
      if (answer.body.data.length === 0) break;
      found.push(...answer.body.data.map((repo) => repo.full_name));
    }
    assert.deepEqual(found.sort(), ["eve/py-one", "eve/py-three", "eve/py-two"]);

    const missing = await eve.call<{ message: string }>("GET", "/repos/eve/nothing-here");
    assert.equal(missing.status, 404);
    const twice = await eve.call<{ message: string }>("POST", "/user/repos", { name: "py-one" });
    assert.equal(twice.status, 409);
    assert.match(twice.body.message, /already exists/, "py-gitea raises AlreadyExistsException on this text");
    const anonymous = await api(forge.url, "GET", "/user", { headers: json });
    assert.equal(anonymous.status, 401);
  });
});
