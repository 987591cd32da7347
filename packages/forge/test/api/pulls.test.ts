import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type TempDir, tempDir, waitFor } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";
import { type Clone, cloneOf, makeRepository, waitForMergeable } from "../support/pulls.ts";

// Pull requests of one repository: opening them (and what is refused), reading them, their place
// among the issues, editing them, and their diff, commits and files.

interface Pull {
  id: number;
  number: number;
  title: string;
  state: string;
  mergeable: boolean;
  merged: boolean;
  head: { ref: string; sha: string; repo_id: number };
  base: { ref: string; sha: string };
  merge_base: string;
  labels: Array<{ id: number }>;
  requested_reviewers: Array<{ login: string }>;
}

forEachForge("forge pull requests", (forge) => {
  let ada: Person;
  let bob: Person;
  let work: TempDir;
  let clone: Clone;
  let featureHead: string;

  before(async () => {
    work = await tempDir("forge-pulls-");
    ada = await makePerson(forge.url, forge.adminToken, "ada");
    bob = await makePerson(forge.url, forge.adminToken, "bob");
    await makeRepository(forge.url, ada.token, "tool");
    clone = await cloneOf(forge.url, "ada", "password123", "ada", "tool", work.path);
    await clone.branch("feature");
    featureHead = await clone.commit("feature.txt", "a feature\n", "add a feature");
    await clone.push("feature");
    await clone.branch("other", "main");
    await clone.commit("other.txt", "other\n", "other work");
    await clone.push("other");
  });
  after(() => work.remove());

  const pulls = "/repos/ada/tool/pulls";

  test("POST /pulls opens a pull: 201 with both branches, the head commit, and a merge base", async () => {
    const made = await api<Pull>(forge.url, "POST", pulls, {
      token: ada.token,
      body: { head: "feature", base: "main", title: "A feature", body: "adds it" },
      shape: "PullRequest",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.number, 1);
    assert.equal(made.body.state, "open");
    assert.equal(made.body.merged, false);
    assert.equal(made.body.head.ref, "feature");
    assert.equal(made.body.head.sha, featureHead);
    assert.equal(made.body.base.ref, "main");
    assert.equal(made.body.merge_base, await clone.run("rev-parse", "main"));
    assert.equal(made.body.base.sha, await clone.run("rev-parse", "main"));
    const pull = await waitForMergeable(forge.url, ada.token, `${pulls}/1`, true);
    assert.equal(pull.mergeable, true);
    // The base repository keeps the head as refs/pull/1/head.
    await clone.run("fetch", "-q", "origin", "refs/pull/1/head:refs/remotes/pull1");
    assert.equal(await clone.run("rev-parse", "refs/remotes/pull1"), featureHead);
  });

  test("an open pull for the same head and base is a 409; head == base and missing branches are refused", async () => {
    const again = await api<{ message: string }>(forge.url, "POST", pulls, {
      token: ada.token,
      body: { head: "feature", base: "main", title: "again" },
    });
    assert.equal(again.status, 409);
    assert.match(again.body.message, /pull request already exists/);
    const same = await api(forge.url, "POST", pulls, {
      token: ada.token,
      body: { head: "main", base: "main", title: "nothing" },
    });
    assert.equal(same.status, 422);
    for (const body of [
      { head: "missing", base: "main", title: "x" },
      { head: "feature", base: "missing", title: "x" },
      { head: "../etc", base: "main", title: "x" },
      { head: "-x", base: "main", title: "x" },
      { head: "nobody:feature", base: "main", title: "x" },
    ]) {
      const answer = await api(forge.url, "POST", pulls, { token: ada.token, body });
      assert.equal(answer.status, 404, JSON.stringify(body));
    }
    const untitled = await api(forge.url, "POST", pulls, {
      token: ada.token,
      body: { head: "other", base: "main" },
    });
    assert.equal(untitled.status, 422);
    const anonymous = await api(forge.url, "POST", pulls, {
      body: { head: "other", base: "main", title: "x" },
    });
    assert.equal(anonymous.status, 401);
  });

  test("pull numbers interleave with issue numbers; the issue list shows pulls with pull_request, type filters them", async () => {
    const issue = await api<{ number: number }>(forge.url, "POST", "/repos/ada/tool/issues", {
      token: ada.token,
      body: { title: "an issue" },
    });
    assert.equal(issue.body.number, 2);
    const pull = await api<Pull>(forge.url, "POST", pulls, {
      token: ada.token,
      body: { head: "other", base: "main", title: "Other work" },
      shape: "PullRequest",
    });
    assert.equal(pull.status, 201);
    assert.equal(pull.body.number, 3);
    const all = await api<Array<{ number: number; pull_request: { merged: boolean } | null }>>(
      forge.url,
      "GET",
      "/repos/ada/tool/issues?state=all",
      { shape: "Issue[]" },
    );
    assert.deepEqual(
      all.body.map((row) => [row.number, row.pull_request === null ? "issue" : "pull"]),
      [
        [3, "pull"],
        [2, "issue"],
        [1, "pull"],
      ],
    );
    assert.equal(all.body[0].pull_request?.merged, false);
    const onlyPulls = await api<Array<{ number: number }>>(
      forge.url,
      "GET",
      "/repos/ada/tool/issues?type=pulls",
    );
    assert.deepEqual(
      onlyPulls.body.map((row) => row.number),
      [3, 1],
    );
    const onlyIssues = await api<Array<{ number: number }>>(
      forge.url,
      "GET",
      "/repos/ada/tool/issues?type=issues",
    );
    assert.deepEqual(
      onlyIssues.body.map((row) => row.number),
      [2],
    );
    const repo = await api<{ open_pr_counter: number; open_issues_count: number }>(
      forge.url,
      "GET",
      "/repos/ada/tool",
    );
    assert.equal(repo.body.open_pr_counter, 2);
    assert.equal(repo.body.open_issues_count, 1);
    // The issue route reaches a pull's issue side; the pull route does not reach an issue.
    assert.equal((await api(forge.url, "GET", "/repos/ada/tool/issues/1")).status, 200);
    assert.equal((await api(forge.url, "GET", `${pulls}/2`)).status, 404);
  });

  test("GET /pulls lists with state, sort, poster and paging; GET /pulls/{base}/{head} finds one", async () => {
    const listed = await api<Pull[]>(forge.url, "GET", `${pulls}?limit=1`, { shape: "PullRequest[]" });
    assert.equal(listed.status, 200);
    assert.equal(listed.headers.get("x-total-count"), "2");
    assert.deepEqual(
      listed.body.map((row) => row.number),
      [3],
    );
    assert.match(listed.headers.get("link") ?? "", /rel="next"/);
    const oldest = await api<Pull[]>(forge.url, "GET", `${pulls}?sort=oldest`);
    assert.deepEqual(
      oldest.body.map((row) => row.number),
      [1, 3],
    );
    const byBob = await api<Pull[]>(forge.url, "GET", `${pulls}?poster=bob`);
    assert.deepEqual(byBob.body, []);
    const closed = await api<Pull[]>(forge.url, "GET", `${pulls}?state=closed`);
    assert.deepEqual(closed.body, []);
    const found = await api<Pull>(forge.url, "GET", `${pulls}/main/feature`, { shape: "PullRequest" });
    assert.equal(found.status, 200);
    assert.equal(found.body.number, 1);
    const byOwner = await api<Pull>(forge.url, "GET", `${pulls}/main/ada:feature`);
    assert.equal(byOwner.body.number, 1);
    assert.equal((await api(forge.url, "GET", `${pulls}/main/nothing`)).status, 404);
    assert.equal((await api(forge.url, "GET", `${pulls}/abc`)).status, 404);
  });

  test("a commit the forge makes on a pull's head (the contents API) moves the pull's head too", async () => {
    const made = await api<{ commit: { sha: string } }>(
      forge.url,
      "POST",
      "/repos/ada/tool/contents/api.txt",
      {
        token: ada.token,
        body: {
          content: Buffer.from("from the API\n").toString("base64"),
          message: "by the API",
          branch: "feature",
        },
      },
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    await waitFor("the pull's new head", async () => {
      const pull = await api<Pull>(forge.url, "GET", `${pulls}/1`);
      return pull.body.head.sha === made.body.commit.sha ? true : undefined;
    });
    featureHead = made.body.commit.sha;
    await clone.run("fetch", "-q", "origin");
    await clone.run("checkout", "-q", "-B", "feature", "origin/feature");
  });

  test("the diff, patch, commits and files of a pull", async () => {
    const diff = await fetch(`${forge.url}/api/v1${pulls}/1.diff`);
    assert.equal(diff.status, 200);
    const text = await diff.text();
    assert.match(text, /^diff --git a\/feature.txt b\/feature.txt/m);
    assert.match(text, /^\+a feature$/m);
    const patch = await (await fetch(`${forge.url}/api/v1${pulls}/1.patch`)).text();
    assert.match(patch, /^Subject: \[PATCH 1\/2\] add a feature$/m);
    assert.match(patch, /^Subject: \[PATCH 2\/2\] by the API$/m);
    const commits = await api<Array<{ sha: string }>>(forge.url, "GET", `${pulls}/1/commits`, {
      shape: "Commit[]",
    });
    assert.equal(commits.status, 200);
    assert.equal(commits.body[0].sha, featureHead);
    assert.equal(commits.body.length, 2);
    assert.equal(commits.headers.get("x-total-count"), "2");
    const files = await api<Array<{ filename: string; status: string; additions: number }>>(
      forge.url,
      "GET",
      `${pulls}/1/files`,
      { shape: "ChangedFile[]" },
    );
    assert.deepEqual(
      files.body.map((file) => [file.filename, file.status, file.additions]),
      [
        ["api.txt", "added", 1],
        ["feature.txt", "added", 1],
      ],
    );
  });

  test("PATCH /pulls/{index} answers 201: title, labels, state; a reader who did not open it gets 403", async () => {
    const label = await api<{ id: number }>(forge.url, "POST", "/repos/ada/tool/labels", {
      token: ada.token,
      body: { name: "ready", color: "00ff00" },
    });
    const edited = await api<Pull>(forge.url, "PATCH", `${pulls}/3`, {
      token: ada.token,
      body: { title: "Other work, renamed", labels: [label.body.id] },
      shape: "PullRequest",
    });
    assert.equal(edited.status, 201, JSON.stringify(edited.body));
    assert.equal(edited.body.title, "Other work, renamed");
    assert.deepEqual(
      edited.body.labels.map((row) => row.id),
      [label.body.id],
    );
    const byBob = await api(forge.url, "PATCH", `${pulls}/3`, { token: bob.token, body: { title: "mine" } });
    assert.equal(byBob.status, 403);
    const closed = await api<Pull>(forge.url, "PATCH", `${pulls}/3`, {
      token: ada.token,
      body: { state: "closed" },
    });
    assert.equal(closed.status, 201);
    assert.equal(closed.body.state, "closed");
    const repo = await api<{ open_pr_counter: number }>(forge.url, "GET", "/repos/ada/tool");
    assert.equal(repo.body.open_pr_counter, 1);
    const reopened = await api<Pull>(forge.url, "PATCH", `${pulls}/3`, {
      token: ada.token,
      body: { state: "open" },
    });
    assert.equal(reopened.body.state, "open");
  });

  test("PATCH base moves the pull to another branch; a missing base is a 404", async () => {
    await clone.branch("release", "main");
    await clone.push("release");
    const missing = await api<{ message: string }>(forge.url, "PATCH", `${pulls}/3`, {
      token: ada.token,
      body: { base: "nowhere" },
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, "new base 'nowhere' not exist");
    const moved = await api<Pull>(forge.url, "PATCH", `${pulls}/3`, {
      token: ada.token,
      body: { base: "release" },
      shape: "PullRequest",
    });
    assert.equal(moved.status, 201);
    assert.equal(moved.body.base.ref, "release");
    await waitForMergeable(forge.url, ada.token, `${pulls}/3`, true);
  });

  test("a pull from a fork (owner:branch): opened by the fork's owner, found by base and head, merged into the base", async () => {
    const forked = await api<{ id: number; full_name: string }>(forge.url, "POST", "/repos/ada/tool/forks", {
      token: bob.token,
      body: {},
    });
    assert.equal(forked.status, 202, JSON.stringify(forked.body));
    const fork = await cloneOf(forge.url, "bob", "password123", "bob", "tool", work.path);
    await fork.branch("fix");
    const fixed = await fork.commit("fix.txt", "fixed in a fork\n", "fix from the fork");
    await fork.push("fix");
    const made = await api<Pull>(forge.url, "POST", pulls, {
      token: bob.token,
      body: { head: "bob:fix", base: "main", title: "A fix from a fork" },
      shape: "PullRequest",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.head.repo_id, forked.body.id);
    assert.equal(made.body.head.sha, fixed);
    const again = await api(forge.url, "POST", pulls, {
      token: bob.token,
      body: { head: "bob:fix", base: "main", title: "again" },
    });
    assert.equal(again.status, 409);
    const found = await api<Pull>(forge.url, "GET", `${pulls}/main/bob:fix`);
    assert.equal(found.body.number, made.body.number);
    // A push to the fork's branch moves the pull's head in the base repository.
    const more = await fork.commit("fix2.txt", "more\n", "more from the fork");
    await fork.push("fix");
    await waitFor("the fork's new head", async () => {
      const pull = await api<Pull>(forge.url, "GET", `${pulls}/${made.body.number}`);
      return pull.body.head.sha === more && pull.body.mergeable ? true : undefined;
    });
    const merged = await waitFor("the merge", async () => {
      const answer = await api(forge.url, "POST", `${pulls}/${made.body.number}/merge`, {
        token: ada.token,
        body: { Do: "merge" },
      });
      return answer.status === 405 ? undefined : answer;
    });
    assert.equal(merged.status, 200);
    await clone.run("fetch", "-q", "origin");
    assert.equal(
      await clone.run("log", "-1", "--format=%s", "origin/main"),
      `Merge pull request 'A fix from a fork' (#${made.body.number}) from bob/tool:fix into main`,
    );
    assert.equal(await clone.run("show", "origin/main:fix2.txt"), "more");
    // Nobody else's fork: a user without one is not found.
    const stranger = await api(forge.url, "POST", pulls, {
      token: ada.token,
      body: { head: "root:fix", base: "main", title: "x" },
    });
    assert.equal(stranger.status, 404);
  });

  test("pulls and issues opened together draw distinct numbers; of pulls racing for the same branches one is opened", async () => {
    await makeRepository(forge.url, ada.token, "race");
    const racer = await cloneOf(forge.url, "ada", "password123", "ada", "race", work.path);
    for (let n = 0; n < 4; n++) {
      await racer.branch(`b${n}`, "main");
      await racer.commit(`b${n}.txt`, `${n}\n`, `branch ${n}`);
    }
    await racer.push("b0", "b1", "b2", "b3");
    const answers = await Promise.all([
      ...[0, 1, 2, 3].map((n) =>
        api<{ number: number }>(forge.url, "POST", "/repos/ada/race/pulls", {
          token: ada.token,
          body: { head: `b${n}`, base: "main", title: `pull ${n}` },
        }),
      ),
      ...[0, 1, 2, 3].map((n) =>
        api<{ number: number }>(forge.url, "POST", "/repos/ada/race/issues", {
          token: ada.token,
          body: { title: `issue ${n}` },
        }),
      ),
    ]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(8).fill(201),
    );
    assert.deepEqual(
      answers.map((answer) => answer.body.number).sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    await racer.branch("same", "main");
    await racer.commit("same.txt", "same\n", "the same branch");
    await racer.push("same");
    const same = await Promise.all(
      Array.from({ length: 6 }, () =>
        api(forge.url, "POST", "/repos/ada/race/pulls", {
          token: ada.token,
          body: { head: "same", base: "main", title: "the same" },
        }),
      ),
    );
    assert.deepEqual(same.map((answer) => answer.status).sort(), [201, 409, 409, 409, 409, 409]);
    const repo = await api<{ open_pr_counter: number }>(forge.url, "GET", "/repos/ada/race");
    assert.equal(repo.body.open_pr_counter, 5);
  });

  test("a closed pull may be opened again only while no other open pull joins its branches", async () => {
    await clone.branch("dup", "main");
    await clone.commit("dup.txt", "dup\n", "dup work");
    await clone.push("dup");
    const first = await api<Pull>(forge.url, "POST", pulls, {
      token: ada.token,
      body: { head: "dup", base: "main", title: "first" },
    });
    assert.equal(first.status, 201);
    await api(forge.url, "PATCH", `${pulls}/${first.body.number}`, {
      token: ada.token,
      body: { state: "closed" },
    });
    const second = await api<Pull>(forge.url, "POST", pulls, {
      token: ada.token,
      body: { head: "dup", base: "main", title: "second" },
    });
    assert.equal(second.status, 201);
    const reopened = await api<{ message: string }>(forge.url, "PATCH", `${pulls}/${first.body.number}`, {
      token: ada.token,
      body: { state: "open" },
    });
    assert.equal(reopened.status, 409);
    assert.match(reopened.body.message, /pull request already exists/);
    assert.equal((await api<Pull>(forge.url, "GET", `${pulls}/${first.body.number}`)).body.state, "closed");
  });

  test("a private repository's pulls are hidden from outsiders (404), anonymous callers and tokens alike", async () => {
    const made = await api(forge.url, "POST", "/user/repos", {
      token: ada.token,
      body: { name: "secret", auto_init: true, private: true },
    });
    assert.equal(made.status, 201);
    const secret = await cloneOf(forge.url, "ada", "password123", "ada", "secret", work.path);
    await secret.branch("hidden");
    await secret.commit("hidden.txt", "hidden\n", "hidden work");
    await secret.push("hidden");
    const opened = await api(forge.url, "POST", "/repos/ada/secret/pulls", {
      token: ada.token,
      body: { head: "hidden", base: "main", title: "hidden" },
    });
    assert.equal(opened.status, 201);
    for (const token of [bob.token, undefined]) {
      assert.equal((await api(forge.url, "GET", "/repos/ada/secret/pulls", { token })).status, 404);
      assert.equal((await api(forge.url, "GET", "/repos/ada/secret/pulls/1", { token })).status, 404);
      assert.equal((await api(forge.url, "GET", "/repos/ada/secret/pulls/1.diff", { token })).status, 404);
    }
    const byBob = await api(forge.url, "POST", "/repos/ada/secret/pulls", {
      token: bob.token,
      body: { head: "hidden", base: "main", title: "mine" },
    });
    assert.equal(byBob.status, 404);
    const merge = await api(forge.url, "POST", "/repos/ada/secret/pulls/1/merge", {
      token: bob.token,
      body: { Do: "merge" },
    });
    assert.equal(merge.status, 404);
  });

  test("an archived repository's pulls are read-only (423): no pull opened, edited or merged", async () => {
    const [open] = (await api<Pull[]>(forge.url, "GET", "/repos/ada/race/pulls?limit=1")).body;
    const pull = `/repos/ada/race/pulls/${open.number}`;
    const archived = await api(forge.url, "PATCH", "/repos/ada/race", {
      token: ada.token,
      body: { archived: true },
    });
    assert.equal(archived.status, 200);
    const writes: Array<[string, string, Record<string, unknown>]> = [
      ["POST", "/repos/ada/race/pulls", { head: "b0", base: "main", title: "x" }],
      ["PATCH", pull, { title: "y" }],
      ["POST", `${pull}/merge`, { Do: "merge" }],
      ["POST", `${pull}/reviews`, { event: "COMMENT", body: "z" }],
    ];
    for (const [method, path, body] of writes)
      assert.equal((await api(forge.url, method, path, { token: ada.token, body })).status, 423, path);
    assert.equal((await api(forge.url, "GET", pull)).status, 200);
    await api(forge.url, "PATCH", "/repos/ada/race", { token: ada.token, body: { archived: false } });
  });

  test("hostile input is refused with Gitea's 4xx, never a 500", async () => {
    const cases: Array<[Record<string, unknown>, number]> = [
      // A NUL anywhere in a JSON body fails the API's body check first.
      [{ head: "feature\u0000x", base: "main", title: "x" }, 422],
      [{ head: "a".repeat(5000), base: "main", title: "x" }, 404],
      [{ head: "a:b:c", base: "main", title: "x" }, 404],
      [{ head: "other", base: "main", title: "t".repeat(300) }, 422],
      [{ head: "other", base: "main", title: "x", body: "b".repeat(70_000) }, 422],
      [{ head: "other", base: "main", title: "x", due_date: "tomorrow" }, 422],
      [{ head: "other", base: "main", title: "x", labels: ["one"] }, 422],
    ];
    for (const [body, status] of cases) {
      const answer = await api(forge.url, "POST", pulls, { token: ada.token, body });
      assert.equal(answer.status, status, JSON.stringify(body).slice(0, 80));
    }
    const many = Array.from({ length: 101 }, () => ({ path: "a.txt", body: "x", new_position: 1 }));
    const review = await api(forge.url, "POST", `${pulls}/1/reviews`, {
      token: bob.token,
      body: { event: "COMMENT", body: "x", comments: many },
    });
    assert.equal(review.status, 422);
    const base = await api(forge.url, "PATCH", `${pulls}/1`, { token: ada.token, body: { base: "../../x" } });
    assert.equal(base.status, 404);
    const merge = await api(forge.url, "POST", `${pulls}/1/merge`, {
      token: ada.token,
      body: { Do: "merge", MergeTitleField: "m".repeat(70_000) },
    });
    assert.ok([405, 422].includes(merge.status), String(merge.status));
    const labels = await api(forge.url, "GET", `${pulls}?labels=abc`);
    assert.equal(labels.status, 422);
    assert.equal((await api(forge.url, "GET", `${pulls}/99999999999999999999`)).status, 404);
  });

  test("a reader may open a pull between branches of a public repository; only writers may merge", async () => {
    const made = await api<Pull>(forge.url, "POST", pulls, {
      token: bob.token,
      body: { head: "other", base: "main", title: "from bob", labels: [1] },
      shape: "PullRequest",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    // A reader's labels are dropped, as for issues.
    assert.deepEqual(made.body.labels, []);
    await waitForMergeable(forge.url, ada.token, `${pulls}/${made.body.number}`, true);
    const merge = await api<{ message: string }>(forge.url, "POST", `${pulls}/${made.body.number}/merge`, {
      token: bob.token,
      body: { Do: "merge" },
    });
    assert.equal(merge.status, 405);
    assert.equal(merge.body.message, "User not allowed to merge PR");
  });
});
