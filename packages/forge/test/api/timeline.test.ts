import assert from "node:assert/strict";
import { before, test } from "node:test";
import { type Cast, forgeDb, insertEvent, makeCast, openIssue } from "../support/discussion.ts";
import { api, forEachForge } from "../support/forge.ts";

interface TimelineComment {
  id: number;
  type: string;
  body: string;
  html_url: string;
  issue_url: string;
  user: { login: string };
  label: { id: number; name: string; color: string } | null;
  milestone: { id: number; title: string } | null;
  old_milestone: { id: number; title: string } | null;
  assignee: { login: string } | null;
  removed_assignee: boolean;
  old_title: string;
  new_title: string;
  created_at: string;
}
interface User {
  login: string;
}
interface WatchInfo {
  subscribed: boolean;
  ignored: boolean;
  reason: unknown;
  created_at: string;
  url: string;
  repository_url: string;
}

forEachForge("forge issue timeline and subscriptions", (forge) => {
  let cast: Cast;
  let pub = "";
  let priv = "";
  let repoId = 0;

  const db = () => forgeDb(forge.server);

  /** A timeline event by olive, `seconds` into 2030. */
  function event(issueId: number, type: number, seconds: number, fields: Record<string, unknown> = {}) {
    return insertEvent(
      db(),
      issueId,
      cast.olive.id,
      type,
      fields,
      new Date(Date.UTC(2030, 0, 1, 0, 0, seconds)),
    );
  }

  before(async () => {
    cast = await makeCast(forge.url, forge.adminToken);
    pub = `${cast.olive.login}/pub`;
    priv = `${cast.olive.login}/priv`;
    const repo = await db()
      .selectFrom("repository")
      .select("id")
      .where("owner_id", "=", cast.olive.id)
      .where("name", "=", "pub")
      .executeTakeFirstOrThrow();
    repoId = repo.id;
  });

  test("GET /issues/{index}/timeline: every row of the issue as Gitea's TimelineComment, with its type and what it names", async () => {
    const now = new Date().toISOString();
    const label = await db()
      .insertInto("label")
      .values({ repo_id: repoId, name: "bug", color: "ee0701", created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    const [v1, v2] = await Promise.all(
      ["v1", "v2"].map((name) =>
        db()
          .insertInto("milestone")
          .values({ repo_id: repoId, name, created_at: now, updated_at: now })
          .returning("id")
          .executeTakeFirstOrThrow(),
      ),
    );
    // The issue service writes the label, milestone and assignee events of a new issue.
    const opened = await openIssue(forge.url, cast.olive.token, pub, {
      labels: [label.id],
      milestone: v1.id,
      assignees: [cast.walt.login],
    });
    const said = await api<{ id: number }>(
      forge.url,
      "POST",
      `/repos/${pub}/issues/${opened.number}/comments`,
      {
        token: cast.rita.token,
        body: { body: "a comment among the events" },
      },
    );
    assert.equal(said.status, 201);
    // Later events, as the issue's edits will record them.
    await event(opened.id, 10, 1, { old_title: "a question", new_title: "a better question" });
    await event(opened.id, 8, 2, { milestone_id: v2.id, old_milestone_id: v1.id });
    await event(opened.id, 9, 3, { assignee_id: cast.walt.id, removed_assignee: true });
    await event(opened.id, 7, 4, { label_id: label.id, body: "" });
    await event(opened.id, 16, 5, { body: "2030-02-01|" });
    await event(opened.id, 23, 6, { body: "off-topic" });
    await event(opened.id, 24, 7);
    await event(opened.id, 2, 8);
    await event(opened.id, 1, 9);
    await event(opened.id, 36, 10);
    await event(opened.id, 37, 11);

    const timeline = await api<TimelineComment[]>(
      forge.url,
      "GET",
      `/repos/${pub}/issues/${opened.number}/timeline?limit=50`,
      {
        token: cast.ozzy.token,
        shape: "TimelineComment[]",
      },
    );
    assert.equal(timeline.status, 200);
    assert.equal(timeline.headers.get("x-total-count"), "15");
    const types = timeline.body.map((row) => row.type);
    assert.deepEqual(types.slice(0, 3).sort(), ["assignees", "label", "milestone"]);
    assert.deepEqual(types.slice(3), [
      "comment",
      "change_title",
      "milestone",
      "assignees",
      "label",
      "added_deadline",
      "lock",
      "unlock",
      "close",
      "reopen",
      "pin",
      "unpin",
    ]);
    const byType = (type: string, nth = 0) => timeline.body.filter((row) => row.type === type)[nth];
    const page = `http://forge.test/${pub}/issues/${opened.number}`;

    const added = byType("label");
    assert.equal(added.label?.name, "bug");
    assert.equal(added.label?.color, "ee0701");
    assert.equal(added.body, "1", "an added label is body 1, as Gitea stores it");
    assert.equal(byType("label", 1).body, "", "a removed label has an empty body");
    assert.equal(byType("milestone").milestone?.title, "v1");
    assert.equal(byType("milestone").old_milestone, null);
    assert.equal(byType("milestone", 1).milestone?.title, "v2");
    assert.equal(byType("milestone", 1).old_milestone?.title, "v1");
    assert.equal(byType("assignees").assignee?.login, cast.walt.login);
    assert.equal(byType("assignees").removed_assignee, false);
    assert.equal(byType("assignees", 1).removed_assignee, true);
    assert.equal(byType("change_title").old_title, "a question");
    assert.equal(byType("change_title").new_title, "a better question");
    assert.equal(byType("lock").body, "off-topic");
    assert.equal(byType("close").label, null);
    assert.equal(byType("close").assignee, null);
    const comment = byType("comment");
    assert.equal(comment.id, said.body.id);
    assert.equal(comment.body, "a comment among the events");
    assert.equal(comment.user.login, cast.rita.login);
    assert.equal(comment.html_url, `${page}#issuecomment-${said.body.id}`);
    assert.equal(comment.issue_url, page);

    // since and before, then paging.
    const since = await api<TimelineComment[]>(
      forge.url,
      "GET",
      `/repos/${pub}/issues/${opened.number}/timeline?since=2030-01-01T00:00:08Z&before=2030-01-01T00:00:10Z`,
      { token: cast.ozzy.token, shape: "TimelineComment[]" },
    );
    assert.deepEqual(
      since.body.map((row) => row.type),
      ["close", "reopen", "pin"],
    );
    const second = await api<TimelineComment[]>(
      forge.url,
      "GET",
      `/repos/${pub}/issues/${opened.number}/timeline?limit=4&page=2`,
      {
        token: cast.ozzy.token,
        shape: "TimelineComment[]",
      },
    );
    assert.deepEqual(
      second.body.map((row) => row.type),
      ["change_title", "milestone", "assignees", "label"],
    );
    assert.equal(second.headers.get("x-total-count"), "15");
    assert.match(second.headers.get("link") ?? "", /rel="next"/);
    assert.equal(
      (await api(forge.url, "GET", `/repos/${pub}/issues/${opened.number}/timeline?since=soon`)).status,
      422,
    );
  });

  test("GET timeline: the events the issue routes record (title, state, lock) arrive in order with their fields", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const path = `/repos/${pub}/issues/${opened.number}`;
    const edit = async (body: Record<string, unknown>) => {
      const edited = await api(forge.url, "PATCH", path, { token: cast.olive.token, body });
      assert.equal(edited.status, 201);
    };
    await edit({ title: "renamed" });
    await edit({ state: "closed" });
    await edit({ state: "open" });
    assert.equal(
      (
        await api(forge.url, "PUT", `${path}/lock`, {
          token: cast.olive.token,
          body: { lock_reason: "spam" },
        })
      ).status,
      204,
    );
    assert.equal((await api(forge.url, "DELETE", `${path}/lock`, { token: cast.olive.token })).status, 204);
    const timeline = await api<TimelineComment[]>(forge.url, "GET", `${path}/timeline`, {
      token: cast.rita.token,
      shape: "TimelineComment[]",
    });
    assert.deepEqual(
      timeline.body.map((row) => row.type),
      ["change_title", "close", "reopen", "lock", "unlock"],
    );
    assert.equal(timeline.body[0].old_title, "a question");
    assert.equal(timeline.body[0].new_title, "renamed");
    assert.ok(timeline.body.every((row) => row.user.login === cast.olive.login));
  });

  test("GET timeline: 404 for an unknown issue and for outsiders of a private repository", async () => {
    assert.equal((await api(forge.url, "GET", `/repos/${pub}/issues/404/timeline`)).status, 404);
    const secret = await openIssue(forge.url, cast.olive.token, priv);
    assert.equal(
      (
        await api(forge.url, "GET", `/repos/${priv}/issues/${secret.number}/timeline`, {
          token: cast.ozzy.token,
        })
      ).status,
      404,
    );
    const seen = await api<TimelineComment[]>(
      forge.url,
      "GET",
      `/repos/${priv}/issues/${secret.number}/timeline`,
      {
        token: cast.rita.token,
        shape: "TimelineComment[]",
      },
    );
    assert.equal(seen.status, 200);
    assert.deepEqual(seen.body, []);
  });

  test("subscriptions: the poster and commenters follow an issue until they leave it; PUT · DELETE answer 201 on a change, 200 otherwise", async () => {
    const opened = await openIssue(forge.url, cast.walt.token, pub);
    const base = `/repos/${pub}/issues/${opened.number}/subscriptions`;
    const subscribers = async () => {
      const got = await api<User[]>(forge.url, "GET", base, { token: cast.ozzy.token, shape: "User[]" });
      assert.equal(got.status, 200);
      return { logins: got.body.map((u) => u.login), total: got.headers.get("x-total-count") };
    };
    const check = async (token: string) => {
      const got = await api<WatchInfo>(forge.url, "GET", `${base}/check`, { token, shape: "WatchInfo" });
      assert.equal(got.status, 200);
      return got.body;
    };
    assert.deepEqual((await subscribers()).logins, [cast.walt.login]);
    const posterCheck = await check(cast.walt.token);
    assert.equal(posterCheck.subscribed, true);
    assert.equal(posterCheck.ignored, false);
    assert.equal(posterCheck.reason, null);
    assert.equal(posterCheck.url, `http://forge.test/api/v1${base}`);
    assert.equal(posterCheck.repository_url, `http://forge.test/api/v1/repos/${pub}`);
    assert.equal((await check(cast.rita.token)).subscribed, false);

    // Commenting makes rita follow it.
    await api(forge.url, "POST", `/repos/${pub}/issues/${opened.number}/comments`, {
      token: cast.rita.token,
      body: { body: "following" },
    });
    assert.equal((await check(cast.rita.token)).subscribed, true);
    assert.deepEqual((await subscribers()).logins, [cast.rita.login, cast.walt.login]);

    // Leaving: 201 on the change, 200 when there is nothing to change.
    const leave = await api(forge.url, "DELETE", `${base}/${cast.rita.login}`, { token: cast.rita.token });
    assert.equal(leave.status, 201);
    assert.equal(leave.body, undefined);
    assert.equal(
      (await api(forge.url, "DELETE", `${base}/${cast.rita.login}`, { token: cast.rita.token })).status,
      200,
    );
    const left = await check(cast.rita.token);
    assert.equal(left.subscribed, false);
    assert.equal(left.ignored, true);
    assert.deepEqual((await subscribers()).logins, [cast.walt.login]);

    // ozzy follows without taking part.
    assert.equal(
      (await api(forge.url, "PUT", `${base}/${cast.ozzy.login}`, { token: cast.ozzy.token })).status,
      201,
    );
    assert.equal(
      (await api(forge.url, "PUT", `${base}/${cast.ozzy.login}`, { token: cast.ozzy.token })).status,
      200,
    );
    assert.equal(
      (await api(forge.url, "PUT", `${base}/${cast.walt.login}`, { token: cast.walt.token })).status,
      200,
      "the poster already follows",
    );
    const all = await subscribers();
    assert.deepEqual(all.logins, [cast.walt.login, cast.ozzy.login], "in the order the users were made");
    assert.equal(all.total, "2");
  });

  test("subscriptions: only the user or a site admin changes them (403); unknown users and issues 404; check needs a token", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const base = `/repos/${pub}/issues/${opened.number}/subscriptions`;
    const refused = await api<{ message: string }>(forge.url, "PUT", `${base}/${cast.rita.login}`, {
      token: cast.walt.token,
    });
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      `${cast.walt.login} is not permitted to change subscriptions for ${cast.rita.login}`,
    );
    const byOwner = await api(forge.url, "PUT", `${base}/${cast.rita.login}`, { token: cast.olive.token });
    assert.equal(byOwner.status, 403, "a repository owner is not a site admin");
    assert.equal(
      (await api(forge.url, "PUT", `${base}/${cast.rita.login}`, { token: forge.adminToken })).status,
      201,
    );
    assert.equal(
      (await api(forge.url, "PUT", `${base}/nobody-here`, { token: forge.adminToken })).status,
      404,
    );
    assert.equal(
      (
        await api(forge.url, "PUT", `/repos/${pub}/issues/999/subscriptions/${cast.rita.login}`, {
          token: cast.rita.token,
        })
      ).status,
      404,
    );
    assert.equal((await api(forge.url, "GET", `${base}/check`)).status, 401);
    assert.equal((await api(forge.url, "PUT", `${base}/${cast.rita.login}`)).status, 401);
    const secret = await openIssue(forge.url, cast.olive.token, priv);
    const hidden = `/repos/${priv}/issues/${secret.number}/subscriptions`;
    assert.equal((await api(forge.url, "GET", hidden, { token: cast.ozzy.token })).status, 404);
    assert.equal((await api(forge.url, "GET", `${hidden}/check`, { token: cast.ozzy.token })).status, 404);
    assert.equal(
      (await api(forge.url, "PUT", `${hidden}/${cast.ozzy.login}`, { token: cast.ozzy.token })).status,
      404,
    );
  });
});
