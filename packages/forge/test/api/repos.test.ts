import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { connectDatabase } from "@anvil/core";
import { tempDir } from "@anvil/core/testing";
import type { ForgeTables } from "../../src/schemas/tables.ts";
import { api, basic, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson } from "../support/people.ts";

interface Repo {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  empty: boolean;
  clone_url: string;
  html_url: string;
  default_branch: string;
  description: string;
  permissions: { admin: boolean; push: boolean; pull: boolean };
  owner: { login: string; full_name: string };
}

forEachForge("forge repositories and git over HTTP", (forge) => {
  const users = new Map<string, string>();

  async function user(name: string): Promise<string> {
    const known = users.get(name);
    if (known) return known;
    const { token } = await makePerson(forge.url, forge.adminToken, name);
    users.set(name, token);
    return token;
  }

  async function createRepo(owner: string, body: Record<string, unknown>) {
    return api<Repo>(forge.url, "POST", "/user/repos", {
      token: await user(owner),
      body,
      shape: "Repository",
    });
  }

  const repoDir = (owner: string, name: string) =>
    join(forge.server.dataDir, "repositories", owner.toLowerCase(), `${name.toLowerCase()}.git`);

  test("create with auto_init: a real bare repository with a README, cloned by git", async () => {
    const created = await createRepo("alice", { name: "Demo", description: "A demo", auto_init: true });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.full_name, "alice/Demo");
    assert.equal(created.body.empty, false);
    assert.equal(created.body.default_branch, "main");
    assert.equal(created.body.clone_url, "http://forge.test/alice/Demo.git");
    assert.equal(created.body.html_url, "http://forge.test/alice/Demo");
    assert.deepEqual(created.body.permissions, { admin: true, push: true, pull: true });
    assert.ok(existsSync(repoDir("alice", "Demo")), "stored lower-cased under the data dir");
    const work = await tempDir();
    try {
      const clone = await git(["clone", `${forge.url}/alice/Demo.git`, "demo"], work.path);
      assert.equal(clone.code, 0, clone.stderr);
      assert.equal(await readFile(join(work.path, "demo", "README.md"), "utf8"), "# Demo\n\nA demo\n");
      const withoutSuffix = await git(["clone", `${forge.url}/alice/demo`, "again"], work.path);
      assert.equal(withoutSuffix.code, 0, withoutSuffix.stderr);
    } finally {
      await work.remove();
    }
  });

  test("push needs write access: anonymous 401 (git is asked for credentials), readers 403, writers succeed", async () => {
    await createRepo("bob", { name: "pushy" });
    await user("carol");
    const work = await tempDir();
    try {
      await git(["init", "-q", "-b", "main", "w"], work.path);
      const dir = join(work.path, "w");
      await git(["commit", "-q", "--allow-empty", "-m", "first"], dir);
      const anonymous = await git(["push", `${forge.url}/bob/pushy.git`, "main"], dir);
      assert.notEqual(anonymous.code, 0);
      assert.match(anonymous.stderr, /could not read Username|Authentication failed/);
      const carol = await git(
        ["push", `${withCredentials(forge.url, "carol", "password123")}/bob/pushy.git`, "main"],
        dir,
      );
      assert.notEqual(carol.code, 0);
      assert.match(carol.stderr, /403/);
      const wrong = await git(
        ["push", `${withCredentials(forge.url, "bob", "not-the-password")}/bob/pushy.git`, "main"],
        dir,
      );
      assert.notEqual(wrong.code, 0);
      const byPassword = await git(
        ["push", `${withCredentials(forge.url, "bob", "password123")}/bob/pushy.git`, "main"],
        dir,
      );
      assert.equal(byPassword.code, 0, byPassword.stderr);
      await git(["commit", "-q", "--allow-empty", "-m", "second"], dir);
      const byToken = await git(
        ["push", `${withCredentials(forge.url, "bob", await user("bob"))}/bob/pushy.git`, "main"],
        dir,
      );
      assert.equal(byToken.code, 0, byToken.stderr);
      const tokenAsUser = await git(
        [
          "push",
          `${withCredentials(forge.url, await user("bob"), "")}/bob/pushy.git`,
          "HEAD:refs/heads/other",
        ],
        dir,
      );
      assert.equal(tokenAsUser.code, 0, tokenAsUser.stderr);
      const after = await api<Repo>(forge.url, "GET", "/repos/bob/pushy", { shape: "Repository" });
      assert.equal(after.body.empty, false, "the push is noted");
    } finally {
      await work.remove();
    }
  });

  test("private repositories: 401 with a Basic challenge to anonymous callers, 404 to outsiders, readable by collaborators", async () => {
    await createRepo("dora", { name: "secret", private: true, auto_init: true });
    const refs = await fetch(`${forge.url}/dora/secret.git/info/refs?service=git-upload-pack`);
    assert.equal(refs.status, 401);
    assert.equal(refs.headers.get("www-authenticate"), 'Basic realm="."');
    const outsider = await fetch(`${forge.url}/dora/secret.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: basic("carol", "password123") },
    });
    assert.equal(outsider.status, 404);
    assert.equal((await api(forge.url, "GET", "/repos/dora/secret")).status, 404);
    assert.equal(
      (await api(forge.url, "GET", "/repos/dora/secret", { token: await user("carol") })).status,
      404,
    );
    const added = await api(forge.url, "PUT", "/repos/dora/secret/collaborators/carol", {
      token: await user("dora"),
      body: { permission: "read" },
    });
    assert.equal(added.status, 204);
    const asCollaborator = await api<Repo>(forge.url, "GET", "/repos/dora/secret", {
      token: await user("carol"),
      shape: "Repository",
    });
    assert.equal(asCollaborator.status, 200);
    assert.deepEqual(asCollaborator.body.permissions, { admin: false, push: false, pull: true });
    const work = await tempDir();
    try {
      const clone = await git(
        ["clone", `${withCredentials(forge.url, "carol", "password123")}/dora/secret.git`, "s"],
        work.path,
      );
      assert.equal(clone.code, 0, clone.stderr);
    } finally {
      await work.remove();
    }
  });

  test("edit: rename moves the repository on disk; private, description and default branch change", async () => {
    await createRepo("erin", { name: "old-name", auto_init: true });
    const token = await user("erin");
    const edited = await api<Repo>(forge.url, "PATCH", "/repos/erin/old-name", {
      token,
      body: { name: "new-name", description: "renamed", private: true },
      shape: "Repository",
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.name, "new-name");
    assert.equal(edited.body.private, true);
    assert.ok(existsSync(repoDir("erin", "new-name")));
    assert.ok(!existsSync(repoDir("erin", "old-name")));
    assert.equal((await api(forge.url, "GET", "/repos/erin/old-name", { token })).status, 404);
    const work = await tempDir();
    try {
      const clone = await git(
        ["clone", `${withCredentials(forge.url, "erin", "password123")}/erin/new-name.git`, "n"],
        work.path,
      );
      assert.equal(clone.code, 0, clone.stderr);
    } finally {
      await work.remove();
    }
    const readerEdit = await api(forge.url, "PATCH", "/repos/erin/new-name", {
      token: await user("carol"),
      body: { description: "x" },
    });
    assert.equal(readerEdit.status, 404, "a private repository is invisible to outsiders");
  });

  test("delete removes the repository from disk; only its owner may", async () => {
    await createRepo("fay", { name: "doomed", auto_init: true });
    assert.equal(
      (await api(forge.url, "DELETE", "/repos/fay/doomed", { token: await user("carol") })).status,
      403,
    );
    assert.equal(
      (await api(forge.url, "DELETE", "/repos/fay/doomed", { token: await user("fay") })).status,
      204,
    );
    assert.ok(!existsSync(repoDir("fay", "doomed")));
    assert.equal((await api(forge.url, "GET", "/repos/fay/doomed")).status, 404);
  });

  test("bad names and duplicates: Gitea's 409/422, nothing made on disk or in the database", async () => {
    await createRepo("gus", { name: "taken" });
    const cases: Array<[unknown, number, RegExp]> = [
      [{ name: "taken" }, 409, /^The repository with the same name already exists\.$/],
      [{ name: "TAKEN" }, 409, /^The repository with the same name already exists\.$/],
      [{ name: "../escape" }, 422, /^name is invalid/],
      [{ name: "a/b" }, 422, /^name is invalid/],
      [{ name: ".." }, 422, /^name is invalid|^name is reserved/],
      [{ name: "x.git" }, 422, /^name pattern is not allowed/],
      [{ name: "with space" }, 422, /^name is invalid/],
      [{ name: "x".repeat(101) }, 422, /^\[Name\]: MaxSize$/],
      [{ name: "" }, 422, /^\[Name\]: Required$/],
      [{ name: 5 }, 422, /^\[Name\]: Type$/],
      [{}, 422, /^\[Name\]: Required$/],
      [{ name: "bad-branch", default_branch: "a..b" }, 422, /./],
    ];
    for (const [body, status, message] of cases) {
      const res = await api<{ message: string }>(forge.url, "POST", "/user/repos", {
        token: await user("gus"),
        body,
      });
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.message, message, JSON.stringify(body));
    }
    const mine = await api<Repo[]>(forge.url, "GET", "/user/repos", { token: await user("gus") });
    assert.deepEqual(
      mine.body.map((r) => r.name),
      ["taken"],
    );
    assert.ok(!existsSync(join(forge.server.dataDir, "repositories", "escape.git")));
    assert.ok(!existsSync(repoDir("gus", "bad-branch")));
  });

  test("the same name claimed by 16 clients at once: exactly one 201, the rest 409", async () => {
    const token = await user("hana");
    const answers = await Promise.all(
      Array.from({ length: 16 }, () =>
        api(forge.url, "POST", "/user/repos", { token, body: { name: "race", auto_init: true } }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, ...Array(15).fill(409)]);
    const work = await tempDir();
    try {
      assert.equal((await git(["clone", `${forge.url}/hana/race.git`, "r"], work.path)).code, 0);
    } finally {
      await work.remove();
    }
  });

  test("search is filtered by visibility, paged, and refuses unknown sort, order and mode", async () => {
    await createRepo("ivan", { name: "findme-public", description: "needle" });
    await createRepo("ivan", { name: "findme-private", private: true });
    const anonymous = await api<{ ok: boolean; data: Repo[] }>(forge.url, "GET", "/repos/search?q=findme");
    assert.equal(anonymous.body.ok, true);
    assert.deepEqual(
      anonymous.body.data.map((r) => r.name),
      ["findme-public"],
    );
    assert.equal(anonymous.headers.get("x-total-count"), "1");
    const owner = await api<{ data: Repo[] }>(forge.url, "GET", "/repos/search?q=findme", {
      token: await user("ivan"),
    });
    assert.deepEqual(owner.body.data.map((r) => r.name).sort(), ["findme-private", "findme-public"]);
    const byDescription = await api<{ data: Repo[] }>(
      forge.url,
      "GET",
      "/repos/search?q=needle&includeDesc=true",
    );
    assert.deepEqual(
      byDescription.body.data.map((r) => r.name),
      ["findme-public"],
    );
    const paged = await api<{ data: Repo[] }>(
      forge.url,
      "GET",
      "/repos/search?limit=1&page=2&sort=created&order=desc",
    );
    assert.equal(paged.body.data.length, 1);
    assert.match(paged.headers.get("link") ?? "", /rel="prev"/);
    for (const bad of ["sort=sideways", "order=up", "mode=weird"]) {
      const res = await api(forge.url, "GET", `/repos/search?${bad}`);
      assert.equal(res.status, 422, bad);
    }
    const listed = await api<Repo[]>(forge.url, "GET", "/users/ivan/repos", { shape: "Repository[]" });
    assert.deepEqual(
      listed.body.map((r) => r.name),
      ["findme-public"],
    );
  });

  test("a site admin creates repositories for users", async () => {
    await user("judy");
    const made = await api<Repo>(forge.url, "POST", "/admin/users/judy/repos", {
      token: forge.adminToken,
      body: { name: "given", auto_init: true },
      shape: "Repository",
    });
    assert.equal(made.status, 201);
    assert.equal(made.body.owner.login, "judy");
    const refused = await api(forge.url, "POST", "/admin/users/judy/repos", {
      token: await user("judy"),
      body: { name: "x" },
    });
    assert.equal(refused.status, 403);
  });

  test("collaborators: add with a permission, list, check, report access, remove; only repo admins change them", async () => {
    await createRepo("kim", { name: "team-work" });
    await user("lee");
    await user("max");
    const owner = await user("kim");
    const put = (name: string, permission: string, token = owner) =>
      api(forge.url, "PUT", `/repos/kim/team-work/collaborators/${name}`, { token, body: { permission } });
    assert.equal((await put("lee", "write")).status, 204);
    assert.equal((await put("max", "read", await user("lee"))).status, 403, "a writer is not a repo admin");
    assert.equal((await put("ghost", "read")).status, 422);
    assert.equal((await put("kim", "read")).status, 422);
    const listed = await api<Array<{ login: string }>>(
      forge.url,
      "GET",
      "/repos/kim/team-work/collaborators",
      {
        token: owner,
        shape: "User[]",
      },
    );
    assert.deepEqual(
      listed.body.map((u) => u.login),
      ["lee"],
    );
    assert.equal(listed.headers.get("x-total-count"), "1");
    assert.equal(
      (await api(forge.url, "GET", "/repos/kim/team-work/collaborators/lee", { token: owner })).status,
      204,
    );
    assert.equal(
      (await api(forge.url, "GET", "/repos/kim/team-work/collaborators/max", { token: owner })).status,
      404,
    );
    const permission = await api<{ permission: string }>(
      forge.url,
      "GET",
      "/repos/kim/team-work/collaborators/lee/permission",
      {
        token: owner,
        shape: "RepoCollaboratorPermission",
      },
    );
    assert.equal(permission.body.permission, "write");
    const asLee = await api<Repo>(forge.url, "GET", "/repos/kim/team-work", { token: await user("lee") });
    assert.deepEqual(asLee.body.permissions, { admin: false, push: true, pull: true });
    assert.equal(
      (await api(forge.url, "DELETE", "/repos/kim/team-work/collaborators/lee", { token: owner })).status,
      204,
    );
    const after = await api<Repo>(forge.url, "GET", "/repos/kim/team-work", { token: await user("lee") });
    assert.deepEqual(after.body.permissions, { admin: false, push: false, pull: true });
  });

  test("a repository's answer follows every change to the repository, its owner, topics and readers, from this process or another", async () => {
    await createRepo("erin", { name: "kept" });
    const frank = await user("frank");
    const read = async (token?: string) => {
      // Twice: the second answer is the one a kept rendering would give.
      await api(forge.url, "GET", "/repos/erin/kept", { token });
      return (
        await api<Repo & { topics: string[] }>(forge.url, "GET", "/repos/erin/kept", {
          token,
          shape: "Repository",
        })
      ).body;
    };
    assert.equal((await read()).description, "");
    assert.equal((await read(frank)).permissions.push, false);

    await api(forge.url, "PATCH", "/repos/erin/kept", {
      token: await user("erin"),
      body: { description: "edited" },
    });
    assert.equal((await read()).description, "edited");
    await api(forge.url, "PATCH", "/admin/users/erin", {
      token: forge.adminToken,
      body: { source_id: 0, login_name: "erin", full_name: "Erin Example" },
    });
    assert.equal((await read()).owner.full_name, "Erin Example");
    await api(forge.url, "PUT", "/repos/erin/kept/topics", {
      token: await user("erin"),
      body: { topics: ["cache"] },
    });
    assert.deepEqual((await read()).topics, ["cache"]);
    await api(forge.url, "PUT", "/repos/erin/kept/collaborators/frank", {
      token: await user("erin"),
      body: { permission: "write" },
    });
    assert.equal((await read(frank)).permissions.push, true);
    assert.equal((await read()).permissions.push, false, "anonymous callers keep their own answer");
    await api(forge.url, "DELETE", "/repos/erin/kept/collaborators/frank", { token: await user("erin") });
    assert.equal((await read(frank)).permissions.push, false);

    const other = await connectDatabase<ForgeTables>(forge.databaseUrl);
    try {
      await other.db
        .updateTable("repository")
        .set({ description: "from elsewhere" })
        .where("lower_name", "=", "kept")
        .execute();
    } finally {
      await other.close();
    }
    assert.equal((await read()).description, "from elsewhere");
  });

  test("topics: replace, add, remove, validated; listed on the repository", async () => {
    await createRepo("nia", { name: "tagged" });
    const token = await user("nia");
    assert.equal(
      (
        await api(forge.url, "PUT", "/repos/nia/tagged/topics", {
          token,
          body: { topics: ["Go", "cli", "go"] },
        })
      ).status,
      204,
    );
    assert.equal((await api(forge.url, "PUT", "/repos/nia/tagged/topics/web", { token })).status, 204);
    assert.equal((await api(forge.url, "DELETE", "/repos/nia/tagged/topics/cli", { token })).status, 204);
    const topics = await api<{ topics: string[] }>(forge.url, "GET", "/repos/nia/tagged/topics", {
      shape: "TopicName",
    });
    assert.deepEqual(topics.body.topics, ["go", "web"]);
    const repo = await api<Repo & { topics: string[] }>(forge.url, "GET", "/repos/nia/tagged");
    assert.deepEqual(repo.body.topics, ["go", "web"]);
    const bad = await api(forge.url, "PUT", "/repos/nia/tagged/topics", {
      token,
      body: { topics: ["no spaces allowed"] },
    });
    assert.equal(bad.status, 422);
    assert.equal(
      (await api(forge.url, "PUT", "/repos/nia/tagged/topics/x", { token: await user("lee") })).status,
      403,
    );
  });

  test("branches and commits come from the real repository, with Gitea's paging headers", async () => {
    await createRepo("oli", { name: "history", auto_init: true });
    const work = await tempDir();
    try {
      const url = `${withCredentials(forge.url, "oli", "password123")}/oli/history.git`;
      assert.equal((await git(["clone", "-q", url, "h"], work.path)).code, 0);
      const dir = join(work.path, "h");
      for (let i = 1; i <= 4; i++) await git(["commit", "-q", "--allow-empty", "-m", `change ${i}`], dir);
      await git(["branch", "feature"], dir);
      assert.equal((await git(["push", "-q", "origin", "main", "feature"], dir)).code, 0);
    } finally {
      await work.remove();
    }
    const branches = await api<Array<{ name: string; commit: { message: string } }>>(
      forge.url,
      "GET",
      "/repos/oli/history/branches",
      {
        shape: "Branch[]",
      },
    );
    assert.deepEqual(
      branches.body.map((b) => b.name),
      ["feature", "main"],
    );
    assert.equal(branches.body[1].commit.message, "change 4\n");
    const one = await api<{ name: string }>(forge.url, "GET", "/repos/oli/history/branches/feature", {
      shape: "Branch",
    });
    assert.equal(one.body.name, "feature");
    assert.equal((await api(forge.url, "GET", "/repos/oli/history/branches/nope")).status, 404);
    const commits = await api<Array<{ commit: { message: string }; sha: string }>>(
      forge.url,
      "GET",
      "/repos/oli/history/commits?limit=2&page=2",
      {
        shape: "Commit[]",
      },
    );
    assert.deepEqual(
      commits.body.map((c) => c.commit.message),
      ["change 2\n", "change 1\n"],
    );
    assert.equal(commits.headers.get("x-total"), "5");
    assert.equal(commits.headers.get("x-total-count"), "5");
    assert.equal(commits.headers.get("x-pagecount"), "3");
    assert.equal(commits.headers.get("x-hasmore"), "true");
    assert.equal(commits.headers.get("x-page"), "2");
    await createRepo("oli", { name: "blank" });
    const empty = await api<{ message: string }>(forge.url, "GET", "/repos/oli/blank/commits");
    assert.equal(empty.status, 409);
    assert.equal(empty.body.message, "Git Repository is empty.");
  });

  test("a public-only token reaches public repositories only, over the API and over git", async () => {
    await createRepo("pia", { name: "open", auto_init: true });
    await createRepo("pia", { name: "closed", private: true, auto_init: true });
    const limited = await api<{ sha1: string }>(forge.url, "POST", "/users/pia/tokens", {
      auth: basic("pia", "password123"),
      body: { name: "public-only", scopes: ["read:repository", "public-only"] },
    });
    const token = limited.body.sha1;
    assert.equal((await api(forge.url, "GET", "/repos/pia/open", { token })).status, 200);
    const refused = await api<{ message: string }>(forge.url, "GET", "/repos/pia/closed", { token });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, "token scope is limited to public repos");
    const search = await api<{ data: Repo[] }>(forge.url, "GET", "/repos/search?q=o", { token });
    assert.ok(!search.body.data.some((r) => r.private), "no private repository is listed");
    const refs = await fetch(`${forge.url}/pia/closed.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: basic("pia", token) },
    });
    assert.equal(refs.status, 403);
  });
});
