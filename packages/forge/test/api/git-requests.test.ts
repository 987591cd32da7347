import assert from "node:assert/strict";
import { test } from "node:test";
import { api, basic, forEachForge } from "../support/forge.ts";
import { makePerson } from "../support/people.ts";

// What a client that is not git (or a broken one) sends to the forge's git endpoints.

forEachForge("malformed git requests over HTTP", (forge) => {
  const post = (path: string, service: string, body: string, auth?: string) =>
    fetch(`${forge.url}${path}/${service}`, {
      method: "POST",
      headers: {
        "content-type": `application/x-${service}-request`,
        ...(auth ? { authorization: auth } : {}),
      },
      body,
    });

  test("a body git cannot read is a 400 in Gitea's shape, without git's own words", async () => {
    const { token } = await makePerson(forge.url, forge.adminToken, "junk");
    const created = await api(forge.url, "POST", "/user/repos", {
      token,
      body: { name: "public", auto_init: true },
    });
    assert.equal(created.status, 201);
    const owner = basic("junk", "password123");
    const cases: Array<[string, string, string | undefined]> = [
      ["git-receive-pack", "zzzz", owner],
      ["git-receive-pack", "fff0junk", owner],
      ["git-receive-pack", "0009done\n", owner],
      ["git-upload-pack", "0009done\n", undefined],
      ["git-upload-pack", "zzzz", undefined],
      ["git-upload-pack", "0003", undefined],
      ["git-upload-pack", "", undefined],
    ];
    for (const [service, body, auth] of cases) {
      const answer = await post("/junk/public.git", service, body, auth);
      const text = await answer.text();
      assert.equal(answer.status, 400, `${service} ${JSON.stringify(body)}: ${text}`);
      assert.deepEqual(JSON.parse(text), {
        message: `the request is not a valid ${service} request`,
        url: "http://forge.test/api/swagger",
      });
    }
    // The repository still serves a real fetch afterwards.
    const refs = await fetch(`${forge.url}/junk/public.git/info/refs?service=git-upload-pack`);
    assert.equal(refs.status, 200);
    await refs.body?.cancel();
  });

  test("a want of an object the repository does not have is git's ERR packet, not a broken connection", async () => {
    const { token } = await makePerson(forge.url, forge.adminToken, "wanting");
    const created = await api(forge.url, "POST", "/user/repos", {
      token,
      body: { name: "public", auto_init: true },
    });
    assert.equal(created.status, 201);
    const missing = "0".repeat(40);
    for (const body of [`0032want ${missing}\n0000`, `0032want ${missing}\n00000009done\n`]) {
      const answer = await post("/wanting/public.git", "git-upload-pack", body);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get("content-type"), "application/x-git-upload-pack-result");
      // The whole body arrives: reading it fails if the connection is broken off.
      assert.equal(await answer.text(), `0049ERR upload-pack: not our ref ${missing}`);
    }
  });
});

forEachForge("branch names before git", (forge) => {
  test("default_branch: git's ref rules and Gitea's 100 characters, refused with 422 before git runs", async () => {
    const { token } = await makePerson(forge.url, forge.adminToken, "brancher");
    const org = await api(forge.url, "POST", "/orgs", { token, body: { username: "branchers" } });
    assert.equal(org.status, 201, JSON.stringify(org.body));
    const made = await api(forge.url, "POST", "/user/repos", { token, body: { name: "kept" } });
    assert.equal(made.status, 201);
    const cases: Array<[string, string]> = [
      ["x".repeat(140_000), "MaxSize"],
      ["x".repeat(70_000), "MaxSize"],
      ["x".repeat(101), "MaxSize"],
      ["a..b", "GitRefName"],
      ["-option", "GitRefName"],
      ["with space", "GitRefName"],
      ["ends.lock", "GitRefName"],
      ["a/.hidden", "GitRefName"],
      ["a@{1}", "GitRefName"],
      ["trailing/", "GitRefName"],
      // Core refuses a NUL in any body value before the route runs.
      ["nul\u0000byte", "Pattern"],
      ["@", "GitRefName"],
    ];
    for (const [branch, rule] of cases) {
      const label = `${JSON.stringify(branch.slice(0, 20))} (${branch.length})`;
      const message = `[DefaultBranch]: ${rule}`;
      const mine = await api<{ message: string }>(forge.url, "POST", "/user/repos", {
        token,
        body: { name: "refused", default_branch: branch },
      });
      assert.equal(mine.status, 422, label);
      assert.equal(mine.body.message, message, label);
      const ours = await api<{ message: string }>(forge.url, "POST", "/orgs/branchers/repos", {
        token,
        body: { name: "refused", default_branch: branch },
      });
      assert.equal(ours.status, 422, label);
      assert.equal(ours.body.message, message, label);
      const edited = await api<{ message: string }>(forge.url, "PATCH", "/repos/brancher/kept", {
        token,
        body: { default_branch: branch },
      });
      assert.equal(edited.status, 422, label);
      assert.equal(edited.body.message, message, label);
    }
    for (const owner of ["brancher", "branchers"]) {
      assert.equal((await api(forge.url, "GET", `/repos/${owner}/refused`, { token })).status, 404);
    }
    const longest = "b".repeat(100);
    const accepted = await api<{ default_branch: string }>(forge.url, "POST", "/user/repos", {
      token,
      body: { name: "long-branch", default_branch: longest, auto_init: true },
    });
    assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
    assert.equal(accepted.body.default_branch, longest);
    const branch = await api<{ name: string }>(
      forge.url,
      "GET",
      `/repos/brancher/long-branch/branches/${longest}`,
      {
        token,
      },
    );
    assert.equal(branch.status, 200);
    assert.equal(branch.body.name, longest);
    const renamed = await api<{ default_branch: string }>(forge.url, "PATCH", "/repos/brancher/kept", {
      token,
      body: { default_branch: "release/1.x" },
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.default_branch, "release/1.x");
  });
});
