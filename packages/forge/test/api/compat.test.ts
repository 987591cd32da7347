// What Python and JavaScript clients written for Gitea rely on: `username` beside `login` on every
// User, an organization-owned repository's owner rendered as Gitea renders it, GET /user/teams,
// GET /repositories/{id}, and Sudo checked against the token's owner.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { before, test } from "node:test";
import { api, basic, forEachForge } from "../support/forge.ts";
import { makePerson, makeUser, type Person } from "../support/people.ts";

interface User {
  id: number;
  login: string;
  username?: string;
  email: string;
  is_admin: boolean;
  active: boolean;
  full_name: string;
}

interface Repo {
  id: number;
  full_name: string;
  owner: User & { description: string; website: string; location: string; visibility: string };
}

interface Team {
  id: number;
  name: string;
  organization: { name: string; username: string };
}

/** A fresh ed25519 public key in the OpenSSH form. */
function ed25519PublicKey(): string {
  const { x = "" } = generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" });
  const field = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  const blob = Buffer.concat([field(Buffer.from("ssh-ed25519")), field(Buffer.from(x, "base64url"))]);
  return `ssh-ed25519 ${blob.toString("base64")}`;
}

function assertUsernames(users: User[], where: string): void {
  assert.ok(users.length > 0, where);
  for (const user of users) assert.equal(user.username, user.login, `${where}: ${JSON.stringify(user)}`);
}

forEachForge("forge: Gitea client compatibility", (forge) => {
  let olga: Person;
  let dan: Person;
  let otto: Person;
  let devTeam: number;

  before(async () => {
    olga = await makePerson(forge.url, forge.adminToken, "olga");
    dan = await makePerson(forge.url, forge.adminToken, "dan");
    otto = await makePerson(forge.url, forge.adminToken, "otto");
    const org = await api(forge.url, "POST", "/orgs", {
      token: olga.token,
      body: {
        username: "acme",
        full_name: "Acme Inc.",
        description: "tools",
        website: "https://acme.example",
        location: "Lyon",
        email: "info@acme.example",
      },
    });
    assert.equal(org.status, 201, JSON.stringify(org.body));
    const team = await api<{ id: number }>(forge.url, "POST", "/orgs/acme/teams", {
      token: olga.token,
      body: { name: "devs", permission: "write", units: ["repo.code"] },
      shape: "Team",
    });
    devTeam = team.body.id;
    assert.equal(
      (await api(forge.url, "PUT", `/teams/${devTeam}/members/dan`, { token: olga.token })).status,
      204,
    );
    for (const [path, token] of [
      ["/orgs/acme/repos", olga.token],
      ["/user/repos", dan.token],
    ] as const) {
      const made = await api(forge.url, "POST", path, { token, body: { name: "tool" }, shape: "Repository" });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    assert.equal(
      (await api(forge.url, "PUT", `/teams/${devTeam}/repos/acme/tool`, { token: olga.token })).status,
      204,
    );
  });

  test("every User carries username equal to login, and every Organization name and username", async () => {
    const token = olga.token;
    const one = async (path: string, shape: string) => {
      const res = await api<User>(forge.url, "GET", path, { token, shape });
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const many = async (path: string, shape: string) => {
      const res = await api<User[]>(forge.url, "GET", path, { token, shape });
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    assertUsernames([await one("/user", "User")], "/user");
    assertUsernames([await one("/users/dan", "User")], "/users/dan");
    assertUsernames(
      (await api<{ data: User[] }>(forge.url, "GET", "/users/search?q=o", { token })).body.data,
      "/users/search",
    );
    assertUsernames(await many("/orgs/acme/members", "User[]"), "/orgs/acme/members");
    assertUsernames(await many(`/teams/${devTeam}/members`, "User[]"), "team members");
    const added = await api(forge.url, "PUT", "/repos/dan/tool/collaborators/otto", {
      token: dan.token,
      body: { permission: "read" },
    });
    assert.equal(added.status, 204);
    assertUsernames(await many("/repos/dan/tool/collaborators", "User[]"), "collaborators");
    const admins = await api<User[]>(forge.url, "GET", "/admin/users", {
      token: forge.adminToken,
      shape: "User[]",
    });
    assertUsernames(admins.body, "/admin/users");
    const repos = await api<Repo[]>(forge.url, "GET", "/repos/search?q=tool", { token });
    assertUsernames(
      (repos.body as unknown as { data: Repo[] }).data.map((r) => r.owner),
      "repository owners",
    );
    const org = await api<{ name: string; username: string; owners?: User[] }>(
      forge.url,
      "GET",
      "/orgs/acme",
      {
        token,
        shape: "Organization",
      },
    );
    assert.deepEqual([org.body.name, org.body.username], ["acme", "acme"]);
    assertUsernames(org.body.owners ?? [], "organization owners");
    const made = await api(forge.url, "POST", "/user/repos", {
      token,
      body: { name: "notes", auto_init: true },
    });
    assert.equal(made.status, 201);
    const commits = await api<Array<{ author: User; committer: User }>>(
      forge.url,
      "GET",
      "/repos/olga/notes/commits",
      { token, shape: "Commit[]" },
    );
    assertUsernames(
      commits.body.flatMap((c) => [c.author, c.committer]),
      "commit authors",
    );
    // A branch's head commit names its author and committer as PayloadUsers, with their login.
    const branch = await api<{ commit: { author: { username: string }; committer: { username: string } } }>(
      forge.url,
      "GET",
      "/repos/olga/notes/branches/main",
      { token, shape: "Branch" },
    );
    assert.deepEqual(
      [branch.body.commit.author.username, branch.body.commit.committer.username],
      ["olga", "olga"],
    );
    const branches = await api<Array<{ commit: { author: { username: string } } }>>(
      forge.url,
      "GET",
      "/repos/olga/notes/branches",
      { token, shape: "Branch[]" },
    );
    assert.deepEqual(
      branches.body.map((b) => b.commit.author.username),
      ["olga"],
    );
    const key = await api<{ user: User }>(forge.url, "POST", "/user/keys", {
      token,
      body: {
        title: "laptop",
        key: ed25519PublicKey(),
      },
      shape: "PublicKey",
    });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    assertUsernames([key.body.user], "a key's user");
  });

  test("an organization's repository has the organization as its owner, rendered as Gitea renders it", async () => {
    const org = await api<Record<string, unknown>>(forge.url, "GET", "/orgs/acme", { token: dan.token });
    for (const viewer of [forge.adminToken, olga.token, dan.token]) {
      const repo = await api<Repo>(forge.url, "GET", "/repos/acme/tool", {
        token: viewer,
        shape: "Repository",
      });
      assert.equal(repo.status, 200);
      const owner = repo.body.owner;
      assert.equal(owner.id, org.body.id);
      assert.equal(owner.login, "acme");
      assert.equal(owner.username, "acme");
      assert.equal(owner.full_name, "Acme Inc.");
      assert.equal(owner.email, "info@acme.example");
      assert.deepEqual(
        [owner.description, owner.website, owner.location, owner.visibility],
        [org.body.description, org.body.website, org.body.location, org.body.visibility],
      );
      // Gitea renders a repository's owner without account details, whoever asks.
      assert.equal(owner.is_admin, false);
      assert.equal(owner.active, false);
    }
    const mine = await api<Repo>(forge.url, "GET", "/repos/dan/tool", {
      token: dan.token,
      shape: "Repository",
    });
    assert.equal(mine.body.owner.active, false);
    assert.equal(mine.body.owner.email, "dan@example.com");
    const anonymous = await api<Repo>(forge.url, "GET", "/repos/dan/tool", { shape: "Repository" });
    assert.match(anonymous.body.owner.email, /@noreply\./);
  });

  test("GET /user/teams lists the caller's teams in every organization, with their organization", async () => {
    const other = await api(forge.url, "POST", "/orgs", { token: otto.token, body: { username: "beta" } });
    assert.equal(other.status, 201);
    const ottoTeam = await api<{ id: number }>(forge.url, "POST", "/orgs/beta/teams", {
      token: otto.token,
      body: { name: "apes", permission: "read", units: ["repo.code"] },
    });
    assert.equal(
      (await api(forge.url, "PUT", `/teams/${ottoTeam.body.id}/members/dan`, { token: otto.token })).status,
      204,
    );
    const dans = await api<Team[]>(forge.url, "GET", "/user/teams", { token: dan.token, shape: "Team[]" });
    assert.equal(dans.status, 200);
    assert.deepEqual(
      dans.body.map((t) => [t.name, t.organization.name, t.organization.username]),
      [
        ["apes", "beta", "beta"],
        ["devs", "acme", "acme"],
      ],
    );
    assert.equal(dans.headers.get("x-total-count"), "2");
    const paged = await api<Team[]>(forge.url, "GET", "/user/teams?limit=1&page=2", { token: dan.token });
    assert.deepEqual(
      paged.body.map((t) => t.name),
      ["devs"],
    );
    const olgas = await api<Team[]>(forge.url, "GET", "/user/teams", { token: olga.token, shape: "Team[]" });
    assert.deepEqual(
      olgas.body.map((t) => [t.name, t.organization.name]),
      [["Owners", "acme"]],
    );
    const anonymous = await api<{ message: string }>(forge.url, "GET", "/user/teams");
    assert.equal(anonymous.status, 401);
  });

  test("GET /repositories/{id} answers the repository to those who may see it, 404 to others", async () => {
    const repo = await api<Repo>(forge.url, "POST", "/user/repos", {
      token: dan.token,
      body: { name: "secret", private: true },
    });
    assert.equal(repo.status, 201);
    const byId = await api<Repo>(forge.url, "GET", `/repositories/${repo.body.id}`, {
      token: dan.token,
      shape: "Repository",
    });
    assert.equal(byId.status, 200);
    assert.equal(byId.body.full_name, "dan/secret");
    const byAdmin = await api<Repo>(forge.url, "GET", `/repositories/${repo.body.id}`, {
      token: forge.adminToken,
    });
    assert.equal(byAdmin.body.full_name, "dan/secret");
    const orgRepo = await api<Repo>(forge.url, "POST", "/orgs/acme/repos", {
      token: olga.token,
      body: { name: "vault", private: true },
    });
    assert.equal(
      (await api(forge.url, "PUT", `/teams/${devTeam}/repos/acme/vault`, { token: olga.token })).status,
      204,
    );
    const viaTeam = await api<Repo>(forge.url, "GET", `/repositories/${orgRepo.body.id}`, {
      token: dan.token,
      shape: "Repository",
    });
    assert.equal(viaTeam.body.full_name, "acme/vault");
    for (const [id, token] of [
      [repo.body.id, otto.token],
      [orgRepo.body.id, otto.token],
      [999999, dan.token],
      // Gitea finds nothing for what is not an id, however large or malformed.
      ["99999999999999999999", dan.token],
      ["-1", dan.token],
      ["abc", dan.token],
    ] as const) {
      const hidden = await api<{ message: string }>(forge.url, "GET", `/repositories/${id}`, { token });
      assert.equal(hidden.status, 404, `${id}`);
    }
    assert.equal((await api(forge.url, "GET", `/repositories/${repo.body.id}`)).status, 401);
  });

  test("Sudo: the token's owner must be allowed in; the user acted as may be new or prohibited", async () => {
    // A user an admin just made must change their password, and is refused on their own.
    await makeUser(forge.url, forge.adminToken, "fresh", { must_change_password: true });
    assert.equal((await api(forge.url, "GET", "/user", { auth: basic("fresh", "password123") })).status, 403);
    const asFresh = await api<User>(forge.url, "GET", "/user", {
      token: forge.adminToken,
      headers: { sudo: "fresh" },
      shape: "User",
    });
    assert.equal(asFresh.status, 200, JSON.stringify(asFresh.body));
    assert.equal(asFresh.body.login, "fresh");
    const made = await api(forge.url, "POST", "/user/repos", {
      token: forge.adminToken,
      headers: { sudo: "fresh" },
      body: { name: "first" },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    await makeUser(forge.url, forge.adminToken, "banned");
    const edit = await api(forge.url, "PATCH", "/admin/users/banned", {
      token: forge.adminToken,
      body: { source_id: 0, login_name: "banned", prohibit_login: true },
    });
    assert.equal(edit.status, 200);
    const asBanned = await api<User>(forge.url, "GET", "/user", {
      token: forge.adminToken,
      headers: { sudo: "banned" },
    });
    assert.equal(asBanned.status, 200, JSON.stringify(asBanned.body));
    // An admin who must change their own password cannot sudo around it.
    const admin = await makePerson(forge.url, forge.adminToken, "admin2", { admin: true });
    await api(forge.url, "PATCH", "/admin/users/admin2", {
      token: forge.adminToken,
      body: { source_id: 0, login_name: "admin2", must_change_password: true },
    });
    const refused = await api<{ message: string }>(forge.url, "GET", "/user", {
      token: admin.token,
      headers: { sudo: "dan" },
    });
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /^You must change your password/);
  });
});
