// The npm client gitea-js drives the forge exactly as a user's script would: only its API object,
// its own request bodies and its own error handling. Every answer is checked against the types
// the client declares for it.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "@anvil/core/testing";
import { giteaApi } from "gitea-js";
import { forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { type Client, type ClientError, giteaJsPerson } from "./gitea-js-people.ts";
import { assertClientType } from "./typings.ts";

const usernameOf = (user: unknown) => (user as { username?: unknown } | undefined)?.username;

forEachForge("gitea-js, the npm client, against the forge", (forge) => {
  const client = (token?: string): Client => giteaApi(forge.url, { token });

  const person = (username: string) => giteaJsPerson(forge.url, forge.adminToken, username);

  test("an organization, a team with units_map, a member and an organization repository", async () => {
    const ada = await person("ada");
    const bea = await person("bea");
    const org = await ada.client.orgs.orgCreate({
      username: "lab",
      full_name: "The Lab",
      visibility: "public",
      description: undefined,
      website: undefined,
      repo_admin_change_team_access: true,
    });
    assert.equal(org.status, 201);
    assertClientType("Organization", org.data);
    const team = await ada.client.orgs.orgCreateTeam("lab", {
      name: "devs",
      description: "developers",
      permission: "write",
      includes_all_repositories: false,
      can_create_org_repo: false,
      units: undefined,
      units_map: { "repo.code": "write", "repo.issues": "read", "repo.pulls": "write" },
    });
    assert.equal(team.status, 201);
    assertClientType("Team", team.data);
    assert.equal(team.data.units_map?.["repo.code"], "write");
    assert.equal(team.data.units_map?.["repo.issues"], "read");
    const teamId = team.data.id as number;
    assert.equal((await ada.client.teams.orgAddTeamMember(teamId, "bea")).status, 204);
    const members = await ada.client.teams.orgListTeamMembers(teamId);
    assertClientType("User[]", members.data);
    assert.deepEqual(
      members.data.map((member) => member.login),
      ["bea"],
    );

    const repo = await ada.client.orgs.createOrgRepo("lab", {
      name: "tool",
      description: "a tool",
      private: false,
      auto_init: false,
      default_branch: "main",
      gitignores: undefined,
      license: undefined,
      readme: undefined,
      issue_labels: undefined,
      template: false,
      trust_model: "default",
      object_format_name: "sha1",
    });
    assert.equal(repo.status, 201);
    assertClientType("Repository", repo.data);
    assert.equal((await ada.client.teams.orgAddTeamRepository(teamId, "lab", "tool")).status, 204);

    const got = await bea.client.repos.repoGet("lab", "tool");
    assertClientType("Repository", got.data);
    assert.equal(got.data.full_name, "lab/tool");
    assert.equal(got.data.owner?.login, "lab");
    // Gitea adds `username` beside `login` on every User (gitea-js's typings predate it).
    assert.equal(usernameOf(got.data.owner), "lab", "the owner is the organization, with its username");
    assert.deepEqual(got.data.permissions, { admin: false, push: true, pull: true });

    const byId = await bea.client.repositories.repoGetById(repo.data.id as number);
    assertClientType("Repository", byId.data);
    assert.equal(byId.data.full_name, "lab/tool");

    const teams = await bea.client.user.userListTeams();
    assertClientType("Team[]", teams.data);
    assert.deepEqual(
      teams.data.map((listed) => [listed.name, listed.organization?.username]),
      [["devs", "lab"]],
    );
  });

  test("email addresses are added, listed and deleted", async () => {
    const cy = await person("cy");
    const added = await cy.client.user.userAddEmail({ emails: ["cy.work@example.com"] });
    assert.equal(added.status, 201);
    assertClientType("Email[]", added.data);
    assert.deepEqual(
      added.data.map((email) => [email.email, email.primary]),
      [
        ["cy@example.com", true],
        ["cy.work@example.com", false],
      ],
      "Gitea answers the whole list",
    );
    const listed = await cy.client.user.userListEmails();
    assertClientType("Email[]", listed.data);
    assert.deepEqual(listed.data, added.data);
    assert.equal((await cy.client.user.userDeleteEmail({ emails: ["cy.work@example.com"] })).status, 204);
    const after = await cy.client.user.userListEmails();
    assert.deepEqual(
      after.data.map((email) => email.email),
      ["cy@example.com"],
    );
  });

  test("topics, collaborators and their permission", async () => {
    const dee = await person("dee");
    await person("eve");
    const repo = await dee.client.user.createCurrentUserRepo({ name: "notes", auto_init: true });
    assertClientType("Repository", repo.data);
    assert.equal(
      (await dee.client.repos.repoUpdateTopics("dee", "notes", { topics: ["alpha", "beta"] })).status,
      204,
    );
    assert.equal((await dee.client.repos.repoAddTopic("dee", "notes", "gamma")).status, 204);
    assert.equal((await dee.client.repos.repoDeleteTopic("dee", "notes", "alpha")).status, 204);
    const topics = await dee.client.repos.repoListTopics("dee", "notes");
    assertClientType("TopicName", topics.data);
    assert.deepEqual(topics.data.topics, ["beta", "gamma"]);

    assert.equal(
      (await dee.client.repos.repoAddCollaborator("dee", "notes", "eve", { permission: "read" })).status,
      204,
    );
    const collaborators = await dee.client.repos.repoListCollaborators("dee", "notes");
    assertClientType("User[]", collaborators.data);
    assert.deepEqual(
      collaborators.data.map((user) => user.login),
      ["eve"],
    );
    assert.equal((await dee.client.repos.repoCheckCollaborator("dee", "notes", "eve")).status, 204);
    const permission = await dee.client.repos.repoGetRepoPermissions("dee", "notes", "eve");
    assertClientType("RepoCollaboratorPermission", permission.data);
    assert.equal(permission.data.permission, "read");
    assert.equal(permission.data.user?.login, "eve");
  });

  test("branches and commits after a push with the real git", async () => {
    const fay = await person("fay");
    await fay.client.user.createCurrentUserRepo({ name: "code", default_branch: "main" });
    const work = await tempDir();
    try {
      await git(["init", "-q", "-b", "main", "w"], work.path);
      const dir = join(work.path, "w");
      await writeFile(join(dir, "README.md"), "hello\n");
      await git(["add", "README.md"], dir);
      await git(["commit", "-q", "-m", "first"], dir);
      await writeFile(join(dir, "README.md"), "hello again\n");
      await git(["commit", "-q", "-am", "second"], dir);
      const pushed = await git(
        ["push", `${withCredentials(forge.url, "fay", fay.token)}/fay/code.git`, "main"],
        dir,
      );
      assert.equal(pushed.code, 0, pushed.stderr);
      const head = (await git(["rev-parse", "HEAD"], dir)).stdout.trim();

      const branches = await fay.client.repos.repoListBranches("fay", "code");
      assertClientType("Branch[]", branches.data);
      assert.deepEqual(
        branches.data.map((branch) => [branch.name, branch.commit?.id]),
        [["main", head]],
      );
      const branch = await fay.client.repos.repoGetBranch("fay", "code", "main");
      assertClientType("Branch", branch.data);
      assert.equal(branch.data.commit?.message?.trim(), "second");

      const commits = await fay.client.repos.repoGetAllCommits("fay", "code", { sha: "main" });
      assertClientType("Commit[]", commits.data);
      assert.deepEqual(
        commits.data.map((commit) => commit.commit?.message?.trim()),
        ["second", "first"],
      );
      assert.equal(commits.headers.get("x-total-count"), "2");
      const single = await fay.client.repos.repoGetSingleCommit("fay", "code", head);
      assertClientType("Commit", single.data);
      assert.equal(single.data.sha, head);
      assert.equal(single.data.parents?.length, 1);
      assert.equal(single.data.url, commits.data[0].url, "the url of a listed commit is this route");
      const byBranch = await fay.client.repos.repoGetSingleCommit("fay", "code", "main");
      assert.equal(byBranch.data.sha, head);
      await assert.rejects(
        fay.client.repos.repoGetSingleCommit("fay", "code", "0".repeat(40)),
        (thrown: ClientError) => thrown.status === 404 && typeof thrown.error.message === "string",
      );
      await assert.rejects(
        fay.client.repos.repoGetSingleCommit("fay", "code", "bad..ref"),
        (thrown: ClientError) =>
          thrown.status === 422 && thrown.error.message === "no valid ref or sha: bad..ref",
      );
    } finally {
      await work.remove();
    }
  });

  test("a repository is transferred into an organization and found by search", async () => {
    const gus = await person("gus");
    await gus.client.orgs.orgCreate({ username: "guild" });
    await gus.client.user.createCurrentUserRepo({ name: "moving", description: "on the move" });
    const moved = await gus.client.repos.repoTransfer("gus", "moving", {
      new_owner: "guild",
      team_ids: undefined,
    });
    assert.equal(moved.status, 202);
    assertClientType("Repository", moved.data);
    assert.equal(moved.data.full_name, "guild/moving");
    assert.equal(usernameOf(moved.data.owner), "guild");

    const found = await gus.client.repos.repoSearch({ q: "moving", includeDesc: true, limit: 10, page: 1 });
    assertClientType("SearchResults", found.data);
    assert.equal(found.data.ok, true);
    assert.deepEqual(
      found.data.data?.map((repo) => repo.full_name),
      ["guild/moving"],
    );
    assert.equal(found.headers.get("x-total-count"), "1");
  });

  test("an error is thrown as the Response, with Gitea's status and {message}", async () => {
    const hal = await person("hal");
    await assert.rejects(hal.client.repos.repoGet("hal", "missing"), (thrown: ClientError) => {
      assert.equal(thrown.status, 404);
      assertClientType("APIError", thrown.error);
      assert.equal(typeof thrown.error.message, "string");
      return true;
    });
    await hal.client.user.createCurrentUserRepo({ name: "twice" });
    await assert.rejects(hal.client.user.createCurrentUserRepo({ name: "twice" }), (thrown: ClientError) => {
      assert.equal(thrown.status, 409);
      assert.match(String(thrown.error.message), /already exists/);
      return true;
    });
    await assert.rejects(client().user.userGetCurrent(), (thrown: ClientError) => {
      assert.equal(thrown.status, 401);
      assertClientType("APIError", thrown.error);
      return true;
    });
  });
});
