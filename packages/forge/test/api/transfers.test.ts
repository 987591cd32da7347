// Repository transfers as Gitea does them: direct for admins, to oneself and into an organization
// where the doer may create repositories; otherwise pending until the recipient accepts or
// rejects. The bare repository moves with the row, as the real git client sees.
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";

interface Repo {
  id: number;
  full_name: string;
  owner: { login: string };
  permissions: { admin: boolean; push: boolean; pull: boolean };
}

forEachForge("forge: repository transfers", (forge) => {
  let alice: Person;
  let bob: Person;
  let carol: Person;
  let olga: Person;
  let devs: number;
  let readers: number;
  let otherTeam: number;

  const makeRepo = async (person: Person, name: string) => {
    const made = await api(forge.url, "POST", "/user/repos", {
      token: person.token,
      body: { name, auto_init: true },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
  };
  const transfer = (person: Person | string, path: string, body: unknown) =>
    api<Repo & { message: string }>(forge.url, "POST", `/repos/${path}/transfer`, {
      token: typeof person === "string" ? person : person.token,
      body,
      shape: "Repository",
    });
  const answer = (person: Person, path: string, verb: "accept" | "reject") =>
    api<Repo & { message: string }>(forge.url, "POST", `/repos/${path}/transfer/${verb}`, {
      token: person.token,
      shape: "Repository",
    });
  /** The branches the real git client finds at `path` over HTTP, or undefined when it cannot. */
  const branchesAt = async (path: string, person: Person) => {
    const url = `${withCredentials(forge.url, person.login, person.token)}/${path}.git`;
    const listed = await git(["ls-remote", "--heads", url], process.cwd());
    return listed.code === 0
      ? listed.stdout
          .trim()
          .split("\n")
          .map((line) => line.split("\t")[1])
      : undefined;
  };

  before(async () => {
    alice = await makePerson(forge.url, forge.adminToken, "alice");
    bob = await makePerson(forge.url, forge.adminToken, "bob");
    carol = await makePerson(forge.url, forge.adminToken, "carol");
    olga = await makePerson(forge.url, forge.adminToken, "olga");
    for (const [owner, org, visibility] of [
      [olga, "acme", "public"],
      [olga, "hidden", "private"],
    ] as const) {
      const made = await api(forge.url, "POST", "/orgs", {
        token: owner.token,
        body: { username: org, visibility },
      });
      assert.equal(made.status, 201);
    }
    const team = async (org: string, body: Record<string, unknown>) =>
      (await api<{ id: number }>(forge.url, "POST", `/orgs/${org}/teams`, { token: olga.token, body })).body
        .id;
    devs = await team("acme", {
      name: "devs",
      permission: "write",
      units: ["repo.code"],
      can_create_org_repo: true,
    });
    readers = await team("acme", { name: "readers", permission: "read", units: ["repo.code"] });
    otherTeam = await team("hidden", { name: "crew", permission: "read", units: ["repo.code"] });
    for (const [id, user] of [
      [devs, "alice"],
      [readers, "bob"],
    ] as const)
      assert.equal(
        (await api(forge.url, "PUT", `/teams/${id}/members/${user}`, { token: olga.token })).status,
        204,
      );
  });

  test("to another user: pending until the recipient accepts; then the repository and its files move", async () => {
    await makeRepo(carol, "app");
    const started = await transfer(carol, "carol/app", { new_owner: "dave-missing" });
    assert.equal(started.status, 404);
    assert.equal(started.body.message, "The new owner does not exist or cannot be found");
    const pending = await transfer(carol, "carol/app", { new_owner: "bob" });
    assert.equal(pending.status, 201, JSON.stringify(pending.body));
    assert.equal(pending.body.full_name, "carol/app");
    assert.equal(pending.body.permissions.admin, true);
    // The recipient can now see what they are offered; the repository has not moved yet.
    assert.deepEqual(await branchesAt("carol/app", bob), ["refs/heads/main"]);
    const again = await transfer(carol, "carol/app", { new_owner: "alice" });
    assert.equal(again.status, 409);
    assert.equal(again.body.message, "repository is already being transferred [uname: carol, name: app]");
    assert.equal((await answer(carol, "carol/app", "accept")).status, 403);
    const accepted = await answer(bob, "carol/app", "accept");
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    assert.equal(accepted.body.full_name, "bob/app");
    assert.equal(accepted.body.owner.login, "bob");
    assert.equal(accepted.body.permissions.admin, true);
    const moved = await api<Repo>(forge.url, "GET", "/repos/bob/app", {
      token: bob.token,
      shape: "Repository",
    });
    assert.equal(moved.body.id, pending.body.id);
    assert.equal((await api(forge.url, "GET", "/repos/carol/app", { token: carol.token })).status, 404);
    assert.deepEqual(await branchesAt("bob/app", bob), ["refs/heads/main"]);
    assert.equal(await branchesAt("carol/app", bob), undefined);
    // Nothing is pending any more.
    assert.equal((await answer(bob, "bob/app", "accept")).status, 404);
  });

  test("a rejected transfer leaves the repository where it was", async () => {
    await makeRepo(carol, "kept");
    assert.equal((await transfer(carol, "carol/kept", { new_owner: "bob" })).status, 201);
    assert.equal((await answer(alice, "carol/kept", "reject")).status, 403);
    const rejected = await answer(bob, "carol/kept", "reject");
    assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
    assert.equal(rejected.body.full_name, "carol/kept");
    assert.equal((await answer(bob, "carol/kept", "accept")).status, 404);
    assert.deepEqual(await branchesAt("carol/kept", carol), ["refs/heads/main"]);
  });

  test("into an organization where the doer may create repositories: done at once, with team_ids", async () => {
    await makeRepo(alice, "lib");
    const collaborator = await api(forge.url, "PUT", "/repos/alice/lib/collaborators/olga", {
      token: alice.token,
      body: { permission: "write" },
    });
    assert.equal(collaborator.status, 204);
    const done = await transfer(alice, "alice/lib", { new_owner: "acme", team_ids: [readers] });
    assert.equal(done.status, 202, JSON.stringify(done.body));
    assert.equal(done.body.full_name, "acme/lib");
    const teamRepos = await api<Repo[]>(forge.url, "GET", `/teams/${readers}/repos`, { token: olga.token });
    assert.deepEqual(
      teamRepos.body.map((r) => r.full_name),
      ["acme/lib"],
    );
    // Olga is an org member now: her collaboration became redundant and was dropped.
    const collaborators = await api<Array<{ login: string }>>(
      forge.url,
      "GET",
      "/repos/acme/lib/collaborators",
      {
        token: olga.token,
      },
    );
    assert.deepEqual(collaborators.body, []);
    assert.deepEqual(await branchesAt("acme/lib", bob), ["refs/heads/main"]);
  });

  test("into an organization where the doer may not create repositories: an org owner accepts", async () => {
    await makeRepo(bob, "tool");
    const pending = await transfer(bob, "bob/tool", { new_owner: "acme" });
    assert.equal(pending.status, 201, JSON.stringify(pending.body));
    assert.equal((await answer(bob, "bob/tool", "accept")).status, 403);
    const accepted = await answer(olga, "bob/tool", "accept");
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    assert.equal(accepted.body.full_name, "acme/tool");
    assert.deepEqual(await branchesAt("acme/tool", olga), ["refs/heads/main"]);
    // A private repository offered to the organization: its owners answer without seeing it first.
    const made = await api(forge.url, "POST", "/user/repos", {
      token: bob.token,
      body: { name: "secret", private: true, auto_init: true },
    });
    assert.equal(made.status, 201);
    assert.equal((await transfer(bob, "bob/secret", { new_owner: "acme" })).status, 201);
    assert.equal((await api(forge.url, "GET", "/repos/bob/secret", { token: olga.token })).status, 404);
    assert.equal((await answer(carol, "bob/secret", "accept")).status, 404);
    const taken = await answer(olga, "bob/secret", "accept");
    assert.equal(taken.status, 202, JSON.stringify(taken.body));
    assert.equal(taken.body.full_name, "acme/secret");
    assert.deepEqual(await branchesAt("acme/secret", olga), ["refs/heads/main"]);
  });

  test("a site admin transfers at once; Gitea's refusals change nothing", async () => {
    await makeRepo(carol, "misc");
    await makeRepo(alice, "misc");
    const collaborator = await api(forge.url, "PUT", "/repos/carol/misc/collaborators/bob", {
      token: carol.token,
      body: { permission: "write" },
    });
    assert.equal(collaborator.status, 204);
    const refusals: Array<[Person | string, unknown, number, string]> = [
      [bob, { new_owner: "bob" }, 403, "Must be owner"],
      [carol, { new_owner: "" }, 422, "[NewOwner]: Required"],
      [carol, { new_owner: "hidden" }, 404, "The new owner does not exist or cannot be found"],
      [
        carol,
        { new_owner: "bob", team_ids: [readers] },
        422,
        "Teams can only be added to organization-owned repositories",
      ],
      [carol, { new_owner: "acme", team_ids: [999999] }, 422, "team 999999 not found"],
      // Core bounds every integer to what a JS number holds exactly, before the route runs.
      [carol, { new_owner: "acme", team_ids: [1e20] }, 422, "[TeamIds0]: Maximum"],
      [
        carol,
        { new_owner: "acme", team_ids: [devs, otherTeam] },
        403,
        `team ${otherTeam} belongs not to org`,
      ],
      [carol, { new_owner: "alice" }, 422, "repository already exists [uname: alice, name: misc]"],
      [carol, { new_owner: "carol" }, 422, "repository already exists [uname: carol, name: misc]"],
      [forge.adminToken, { new_owner: "alice" }, 422, "repository already exists [uname: alice, name: misc]"],
    ];
    for (const [person, body, status, message] of refusals) {
      const res = await transfer(person, "carol/misc", body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.ok(res.body.message.startsWith(message), res.body.message);
    }
    assert.deepEqual(await branchesAt("carol/misc", carol), ["refs/heads/main"]);
    const byAdmin = await transfer(forge.adminToken, "carol/misc", { new_owner: "bob" });
    assert.equal(byAdmin.status, 202, JSON.stringify(byAdmin.body));
    assert.equal(byAdmin.body.full_name, "bob/misc");
    assert.deepEqual(await branchesAt("bob/misc", bob), ["refs/heads/main"]);
    // Bob, the new owner, is no longer a collaborator of his own repository.
    const collaborators = await api<unknown[]>(forge.url, "GET", "/repos/bob/misc/collaborators", {
      token: bob.token,
    });
    assert.deepEqual(collaborators.body, []);
  });

  test("files in the way at the new owner: a 422, and the row and the files stay where they were", async () => {
    await makeRepo(carol, "stray");
    // Left by something else under the name the repository would take at bob's.
    const stray = join(forge.server.dataDir, "repositories", "bob", "stray.git");
    await mkdir(stray, { recursive: true });
    await writeFile(join(stray, "keep"), "not ours");
    const refused = await transfer(forge.adminToken, "carol/stray", { new_owner: "bob" });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.message, "repository already exists [uname: bob, name: stray]");
    const still = await api<Repo>(forge.url, "GET", "/repos/carol/stray", { token: carol.token });
    assert.equal(still.body.owner.login, "carol");
    assert.deepEqual(await branchesAt("carol/stray", carol), ["refs/heads/main"]);
    assert.equal(await readFile(join(stray, "keep"), "utf8"), "not ours");
  });
});
