import assert from "node:assert/strict";
import { join } from "node:path";
import { before, test } from "node:test";
import { tempDir } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";

interface Repo {
  name: string;
  full_name: string;
  private: boolean;
  permissions: { admin: boolean; push: boolean; pull: boolean };
}

forEachForge("forge: organization repositories and team access", (forge) => {
  let owner: Person;
  let dev: Person;
  let reader: Person;
  let outsider: Person;
  let devTeam: number;
  let readTeam: number;

  before(async () => {
    owner = await makePerson(forge.url, forge.adminToken, "olga");
    dev = await makePerson(forge.url, forge.adminToken, "dan");
    reader = await makePerson(forge.url, forge.adminToken, "rita");
    outsider = await makePerson(forge.url, forge.adminToken, "otto");
    const org = await api(forge.url, "POST", "/orgs", {
      token: owner.token,
      body: { username: "acme", visibility: "private" },
    });
    assert.equal(org.status, 201);
    const team = async (body: Record<string, unknown>) => {
      const made = await api<{ id: number }>(forge.url, "POST", "/orgs/acme/teams", {
        token: owner.token,
        body,
        shape: "Team",
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return made.body.id;
    };
    devTeam = await team({
      name: "devs",
      permission: "write",
      units: ["repo.code"],
      can_create_org_repo: true,
    });
    readTeam = await team({ name: "readers", permission: "read", units: ["repo.code"] });
    assert.equal(
      (await api(forge.url, "PUT", `/teams/${devTeam}/members/dan`, { token: owner.token })).status,
      204,
    );
    assert.equal(
      (await api(forge.url, "PUT", `/teams/${readTeam}/members/rita`, { token: owner.token })).status,
      204,
    );
  });

  test("an org owner creates a repository; team members reach it only once the team has it", async () => {
    const created = await api<Repo>(forge.url, "POST", "/orgs/acme/repos", {
      token: owner.token,
      body: { name: "app", auto_init: true, private: true },
      shape: "Repository",
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.full_name, "acme/app");
    assert.equal((await api(forge.url, "GET", "/repos/acme/app", { token: dev.token })).status, 404);
    assert.equal(
      (await api(forge.url, "PUT", `/teams/${devTeam}/repos/acme/app`, { token: owner.token })).status,
      204,
    );
    const asDev = await api<Repo>(forge.url, "GET", "/repos/acme/app", {
      token: dev.token,
      shape: "Repository",
    });
    assert.deepEqual(asDev.body.permissions, { admin: false, push: true, pull: true });
    const listed = await api<Repo[]>(forge.url, "GET", `/teams/${devTeam}/repos`, {
      token: dev.token,
      shape: "Repository[]",
    });
    assert.deepEqual(
      listed.body.map((r) => r.name),
      ["app"],
    );
    assert.equal(
      (
        await api(forge.url, "GET", `/teams/${devTeam}/repos/acme/app`, {
          token: dev.token,
          shape: "Repository",
        })
      ).status,
      200,
    );
    assert.equal(
      (await api(forge.url, "GET", `/teams/${readTeam}/repos/acme/app`, { token: owner.token })).status,
      404,
    );
    assert.equal((await api(forge.url, "GET", "/repos/acme/app", { token: outsider.token })).status, 404);
    const search = await api<{ data: Repo[] }>(forge.url, "GET", "/repos/search?q=app", { token: dev.token });
    assert.deepEqual(
      search.body.data.map((r) => r.full_name),
      ["acme/app"],
    );
    const hidden = await api<{ data: Repo[] }>(forge.url, "GET", "/repos/search?q=app", {
      token: outsider.token,
    });
    assert.deepEqual(hidden.body.data, []);
  });

  test("a writer team member pushes over HTTP; a reader team member cannot", async () => {
    await api(forge.url, "PUT", `/teams/${readTeam}/repos/acme/app`, { token: owner.token });
    const work = await tempDir();
    try {
      const asDev = await git(
        ["clone", `${withCredentials(forge.url, "dan", dev.token)}/acme/app.git`, "d"],
        work.path,
      );
      assert.equal(asDev.code, 0, asDev.stderr);
      await git(["commit", "--allow-empty", "-q", "-m", "from dan"], join(work.path, "d"));
      const push = await git(["push", "-q", "origin", "main"], join(work.path, "d"));
      assert.equal(push.code, 0, push.stderr);
      const asRita = await git(
        ["clone", `${withCredentials(forge.url, "rita", "password123")}/acme/app.git`, "r"],
        work.path,
      );
      assert.equal(asRita.code, 0, asRita.stderr);
      await git(["commit", "--allow-empty", "-q", "-m", "from rita"], join(work.path, "r"));
      const refused = await git(["push", "-q", "origin", "main"], join(work.path, "r"));
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /403/);
    } finally {
      await work.remove();
    }
  });

  test("a team that may create repositories gets the ones its members make; others may not create", async () => {
    const made = await api<Repo>(forge.url, "POST", "/orgs/acme/repos", {
      token: dev.token,
      body: { name: "tool" },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const teamRepos = await api<Repo[]>(forge.url, "GET", `/teams/${devTeam}/repos`, { token: dev.token });
    assert.deepEqual(teamRepos.body.map((r) => r.name).sort(), ["app", "tool"]);
    const refused = await api(forge.url, "POST", "/orgs/acme/repos", {
      token: reader.token,
      body: { name: "nope" },
    });
    assert.equal(refused.status, 403);
    assert.equal(
      (await api(forge.url, "POST", "/orgs/acme/repos", { token: outsider.token, body: { name: "nope" } }))
        .status,
      404,
    );
  });

  test("team repository changes need an org owner with admin access; Gogs' admin path works too", async () => {
    const byDev = await api(forge.url, "DELETE", `/teams/${devTeam}/repos/acme/app`, { token: dev.token });
    assert.equal(byDev.status, 404, "the org is not in context on /teams routes, so non-owners get 404");
    assert.equal(
      (await api(forge.url, "DELETE", `/teams/${readTeam}/repos/acme/app`, { token: owner.token })).status,
      204,
    );
    assert.equal((await api(forge.url, "GET", "/repos/acme/app", { token: reader.token })).status, 404);
    assert.equal(
      (await api(forge.url, "PUT", `/admin/teams/${readTeam}/repos/app`, { token: forge.adminToken })).status,
      204,
    );
    assert.equal((await api(forge.url, "GET", "/repos/acme/app", { token: reader.token })).status, 200);
    assert.equal(
      (await api(forge.url, "PUT", `/admin/teams/${readTeam}/repos/app`, { token: owner.token })).status,
      403,
    );
    assert.equal(
      (await api(forge.url, "PUT", `/admin/teams/${readTeam}/repos/missing`, { token: forge.adminToken }))
        .status,
      404,
    );
  });

  test("org repositories are listed for those who may see them", async () => {
    const asOwner = await api<Repo[]>(forge.url, "GET", "/orgs/acme/repos", {
      token: owner.token,
      shape: "Repository[]",
    });
    assert.deepEqual(
      asOwner.body.map((r) => r.name),
      ["app", "tool"],
    );
    assert.equal(asOwner.headers.get("x-total-count"), "2");
    assert.equal((await api(forge.url, "GET", "/orgs/acme/repos", { token: outsider.token })).status, 404);
  });

  test("an organization or user that still owns repositories or memberships is not deleted", async () => {
    const org = await api<{ message: string }>(forge.url, "DELETE", "/orgs/acme", { token: owner.token });
    assert.equal(org.status, 422);
    assert.match(org.body.message, /^user still has ownership of repositories/);
    const user = await api<{ message: string }>(forge.url, "DELETE", "/admin/users/dan", {
      token: forge.adminToken,
    });
    assert.equal(user.status, 422);
    assert.match(user.body.message, /^user still has membership of organizations/);
    for (const name of ["app", "tool"])
      assert.equal(
        (await api(forge.url, "DELETE", `/repos/acme/${name}`, { token: owner.token })).status,
        204,
      );
    assert.equal((await api(forge.url, "DELETE", "/orgs/acme", { token: owner.token })).status, 204);
    assert.equal(
      (await api(forge.url, "DELETE", "/admin/users/dan", { token: forge.adminToken })).status,
      204,
    );
  });
});
