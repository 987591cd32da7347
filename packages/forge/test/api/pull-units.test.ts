import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";
import { cloneOf, waitForMergeable } from "../support/pulls.ts";

// Pull requests follow the teams' units of an organization's repository: the pulls unit decides
// who sees and edits them, and merging also takes writing the code, as in Gitea.

forEachForge("forge pull requests by team unit", (forge) => {
  let olga: Person;
  let cody: Person;
  let rita: Person;
  let rick: Person;
  let work: TempDir;
  const pull = "/repos/acme/tool/pulls/1";

  before(async () => {
    work = await tempDir("forge-pull-units-");
    [olga, cody, rita, rick] = await Promise.all(
      ["olga", "cody", "rita", "rick"].map((name) => makePerson(forge.url, forge.adminToken, name)),
    );
    assert.equal(
      (await api(forge.url, "POST", "/orgs", { token: olga.token, body: { username: "acme" } })).status,
      201,
    );
    const repo = await api(forge.url, "POST", "/orgs/acme/repos", {
      token: olga.token,
      body: { name: "tool", auto_init: true, private: true },
    });
    assert.equal(repo.status, 201);
    for (const [team, member, units] of [
      ["coders", "cody", { "repo.code": "write", "repo.pulls": "none" }],
      ["reviewers", "rita", { "repo.code": "read", "repo.pulls": "write" }],
      ["readers", "rick", { "repo.code": "read", "repo.pulls": "read" }],
    ] as const) {
      const made = await api<{ id: number }>(forge.url, "POST", "/orgs/acme/teams", {
        token: olga.token,
        body: { name: team, units_map: units, includes_all_repositories: true },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const joined = await api(forge.url, "PUT", `/teams/${made.body.id}/members/${member}`, {
        token: olga.token,
      });
      assert.equal(joined.status, 204);
    }
    const clone = await cloneOf(forge.url, "olga", "password123", "acme", "tool", work.path);
    await clone.branch("feature");
    await clone.commit("feature.txt", "a feature\n", "add a feature");
    await clone.push("feature");
    const opened = await api(forge.url, "POST", "/repos/acme/tool/pulls", {
      token: olga.token,
      body: { head: "feature", base: "main", title: "A feature" },
    });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    await waitForMergeable(forge.url, olga.token, pull, true);
  });
  after(() => work?.remove());

  test("without the pulls unit a code writer sees no pull: the list, the pull and its merge are 404", async () => {
    assert.equal((await api(forge.url, "GET", "/repos/acme/tool/pulls", { token: cody.token })).status, 404);
    assert.equal((await api(forge.url, "GET", pull, { token: cody.token })).status, 404);
    const merge = await api(forge.url, "POST", `${pull}/merge`, { token: cody.token, body: { Do: "merge" } });
    assert.equal(merge.status, 404);
  });

  test("pulls readers read the pull, and may neither edit nor merge it", async () => {
    const read = await api<{ number: number }>(forge.url, "GET", pull, {
      token: rick.token,
      shape: "PullRequest",
    });
    assert.equal(read.status, 200);
    assert.equal(read.body.number, 1);
    const edit = await api(forge.url, "PATCH", pull, { token: rick.token, body: { title: "renamed" } });
    assert.equal(edit.status, 403);
    const merge = await api(forge.url, "POST", `${pull}/merge`, { token: rick.token, body: { Do: "merge" } });
    assert.equal(merge.status, 405);
  });

  test("pulls writers edit the pull; merging it takes writing the code too, which the owner has", async () => {
    const edit = await api<{ title: string }>(forge.url, "PATCH", pull, {
      token: rita.token,
      body: { title: "A better feature" },
    });
    assert.equal(edit.status, 201, JSON.stringify(edit.body));
    assert.equal(edit.body.title, "A better feature");
    const refused = await api(forge.url, "POST", `${pull}/merge`, {
      token: rita.token,
      body: { Do: "merge" },
    });
    assert.equal(refused.status, 405);
    const merged = await api(forge.url, "POST", `${pull}/merge`, {
      token: olga.token,
      body: { Do: "merge" },
    });
    assert.equal(merged.status, 200);
    assert.equal((await api(forge.url, "GET", `${pull}/merge`, { token: rick.token })).status, 204);
  });
});
