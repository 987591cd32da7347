// GET /commits with its filters, flags and paging headers, /git/commits/{sha} (.diff, .patch) and
// /compare/{base}...{head}, on real pushes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";
import { type Clone, cloneNewRepository } from "../support/history.ts";
import { makePerson, type Person } from "../support/people.ts";

interface ApiCommit {
  sha: string;
  commit: { message: string; verification: { verified: boolean; reason: string } | null };
  stats?: { total: number; additions: number; deletions: number };
  files?: { filename: string; status: string }[];
  parents: { sha: string }[];
}

forEachForge("commit queries and compare", (forge) => {
  let owner: Person;
  let stranger: Person;
  let clone: Clone;
  const ids: Record<string, string> = {};
  const base = "/repos/cora/log";

  before(async () => {
    owner = await makePerson(forge.url, forge.adminToken, "cora");
    stranger = await makePerson(forge.url, forge.adminToken, "sven");
    clone = await cloneNewRepository(forge.url, owner, "log");
    ids.readme = await clone.git("rev-parse", "HEAD");
    ids.january = await clone.commit(
      "january",
      { "a.txt": "one\ntwo\n", "b.txt": "gone soon\n" },
      "2024-01-15T12:00:00Z",
    );
    ids.february = await clone.commit(
      "february",
      { "a.txt": "one\nthree\nfour\n", "b.txt": null, "c/d.txt": "new\n" },
      "2024-02-15T12:00:00Z",
    );
    await clone.git("checkout", "-q", "-b", "feature");
    ids.march = await clone.commit("march", { "e.txt": "e\n" }, "2024-03-15T12:00:00Z");
    ids.april = await clone.commit("april", { "a.txt": "one\n" }, "2024-04-15T12:00:00Z");
    await clone.git("tag", "-a", "v2", "-m", "two");
    await clone.git("checkout", "-q", "main");
    await clone.git("merge", "-q", "--ff-only", "feature");
    await clone.git("push", "-q", "origin", "main", "feature", "v2");
  });
  after(() => clone.remove());

  test("a commit carries its stats, files and verification unless a flag turns them off", async () => {
    const listed = await api<ApiCommit[]>(forge.url, "GET", `${base}/commits?sha=${ids.february}&limit=1`, {
      shape: "Commit[]",
    });
    assert.equal(listed.status, 200);
    const [february] = listed.body;
    assert.equal(february.sha, ids.february);
    assert.deepEqual(february.stats, { total: 5, additions: 3, deletions: 2 });
    assert.deepEqual(february.files, [
      { filename: "a.txt", status: "modified" },
      { filename: "b.txt", status: "removed" },
      { filename: "c/d.txt", status: "added" },
    ]);
    assert.equal(february.commit.verification?.verified, false);
    const bare = await api<ApiCommit[]>(
      forge.url,
      "GET",
      `${base}/commits?sha=${ids.february}&limit=1&stat=false&files=0&verification=false`,
      { shape: "Commit[]" },
    );
    assert.equal(bare.body[0].stats, undefined);
    assert.equal(bare.body[0].files, undefined);
    assert.equal(bare.body[0].commit.verification, null);
    const one = await api<ApiCommit>(forge.url, "GET", `${base}/git/commits/${ids.january}?files=false`, {
      shape: "Commit",
    });
    assert.deepEqual(one.body.stats, { total: 3, additions: 3, deletions: 0 });
    assert.equal(one.body.files, undefined);
    // The first commit is compared with nothing: all it holds was added.
    const root = await api<ApiCommit>(forge.url, "GET", `${base}/git/commits/${ids.readme}`);
    assert.deepEqual(root.body.files, [{ filename: "README.md", status: "added" }]);
  });

  test("since, until and not narrow the history; the paging headers count what is left", async () => {
    const listed = await api<ApiCommit[]>(
      forge.url,
      "GET",
      `${base}/commits?since=2024-02-01T00:00:00Z&until=2024-04-01T00:00:00Z&stat=false&files=false`,
      { shape: "Commit[]" },
    );
    assert.deepEqual(
      listed.body.map((c) => c.commit.message),
      ["march\n", "february\n"],
    );
    assert.equal(listed.headers.get("x-total-count"), "2");
    const excluded = await api<ApiCommit[]>(forge.url, "GET", `${base}/commits?not=${ids.february}&limit=1`);
    assert.deepEqual(
      excluded.body.map((c) => c.sha),
      [ids.april],
    );
    assert.equal(excluded.headers.get("x-total-count"), "2");
    assert.equal(excluded.headers.get("x-total"), "2");
    assert.equal(excluded.headers.get("x-page"), "1");
    assert.equal(excluded.headers.get("x-perpage"), "1");
    assert.equal(excluded.headers.get("x-pagecount"), "2");
    assert.equal(excluded.headers.get("x-hasmore"), "true");
    assert.match(excluded.headers.get("link") ?? "", /page=2.*rel="next"/);
    const byPath = await api<ApiCommit[]>(forge.url, "GET", `${base}/commits?path=a.txt&files=false`);
    assert.deepEqual(
      byPath.body.map((c) => c.commit.message),
      ["april\n", "february\n", "january\n"],
    );
    const bad = await api<{ message: string }>(forge.url, "GET", `${base}/commits?since=yesterday-ish`);
    assert.equal(bad.status, 400);
    for (const revision of ["-p", "a..b", "main%00"])
      assert.equal((await api(forge.url, "GET", `${base}/commits?not=${revision}`)).status, 422, revision);
    assert.equal((await api(forge.url, "GET", `${base}/commits?sha=--all`)).status, 422);
    assert.equal((await api(forge.url, "GET", `${base}/commits?not=nosuchbranch`)).status, 404);
  });

  test("a commit's .diff and .patch are git's own text", async () => {
    const diff = await fetch(`${forge.url}/api/v1${base}/git/commits/${ids.april}.diff`);
    assert.equal(diff.status, 200);
    assert.match(diff.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(await diff.text(), `${await clone.git("diff", ids.march, ids.april)}\n`);
    const patch = await fetch(`${forge.url}/api/v1${base}/git/commits/${ids.april}.patch`);
    const text = await patch.text();
    assert.match(text, new RegExp(`^From ${ids.april} `));
    assert.match(text, /Subject: \[PATCH\] april/);
    assert.match(text, /-three\n-four\n/);
    const root = await fetch(`${forge.url}/api/v1${base}/git/commits/${ids.readme}.diff`);
    assert.match(await root.text(), /\+\+\+ b\/README.md/);
    assert.equal((await fetch(`${forge.url}/api/v1${base}/git/commits/${"0".repeat(40)}.diff`)).status, 404);
    assert.equal((await fetch(`${forge.url}/api/v1${base}/git/commits/-p.patch`)).status, 422);
  });

  test("compare lists what head has that base lacks, between branches, tags or commits", async () => {
    const branches = await api<{ total_commits: number; commits: ApiCommit[] }>(
      forge.url,
      "GET",
      `${base}/compare/${ids.february}...feature`,
      { shape: "Compare" },
    );
    assert.equal(branches.status, 200);
    assert.equal(branches.body.total_commits, 2);
    assert.deepEqual(
      branches.body.commits.map((c) => c.sha),
      [ids.april, ids.march],
    );
    assert.deepEqual(branches.body.commits[0].stats, { total: 2, additions: 0, deletions: 2 });
    const tags = await api<{ total_commits: number }>(forge.url, "GET", `${base}/compare/${ids.readme}...v2`);
    assert.equal(tags.body.total_commits, 4);
    const none = await api<{ total_commits: number; commits: ApiCommit[] }>(
      forge.url,
      "GET",
      `${base}/compare/feature...main`,
      { shape: "Compare" },
    );
    assert.equal(none.body.total_commits, 0);
    assert.deepEqual(none.body.commits, []);
    assert.equal((await api(forge.url, "GET", `${base}/compare/main...nope`)).status, 404);
    assert.equal((await api(forge.url, "GET", `${base}/compare/-p...main`)).status, 404);
    assert.equal((await api(forge.url, "GET", `${base}/compare/main`)).status, 404);
  });

  test("a private repository's history is hidden from strangers", async () => {
    const secret = await cloneNewRepository(forge.url, owner, "hidden", { private: true });
    try {
      const sha = await secret.git("rev-parse", "HEAD");
      for (const path of [
        "/commits",
        `/git/commits/${sha}`,
        `/git/commits/${sha}.diff`,
        "/compare/main...main",
      ]) {
        assert.equal((await api(forge.url, "GET", `/repos/cora/hidden${path}`)).status, 404, path);
        const seen = await api(forge.url, "GET", `/repos/cora/hidden${path}`, { token: stranger.token });
        assert.equal(seen.status, 404, path);
      }
      const own = await api(forge.url, "GET", "/repos/cora/hidden/commits", { token: owner.token });
      assert.equal(own.status, 200);
    } finally {
      await secret.remove();
    }
  });
});
