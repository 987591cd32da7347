import assert from "node:assert/strict";
import { before, test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";
import { ALL_UNITS } from "../support/units.ts";

interface Member {
  id: number;
  login: string;
  username?: string;
}
interface Team {
  id: number;
  name: string;
  description: string;
  permission: string;
  includes_all_repositories: boolean;
  can_create_org_repo: boolean;
  units: string[];
  units_map: Record<string, string>;
  organization: { id: number; name: string; owners?: Member[] };
}
interface ErrorBody {
  message: string;
}

forEachForge("forge teams: org owners manage teams, Gogs' admin paths", (forge) => {
  // The cast: olga owns "guild", mike is in its "devs" team, nina in its "docs" team, oscar is
  // outside; all tests share them.
  const cast = {} as Record<"olga" | "mike" | "nina" | "oscar", Person>;
  let orgId = 0;
  let ownersId = 0;
  let devsId = 0;

  function db() {
    const database = forge.server.app.database;
    if (!database) throw new Error("no database");
    return database.db;
  }

  async function teamCount() {
    return (await db().selectFrom("team").select("id").execute()).length;
  }

  async function createTeam(token: string, org: string, body: Record<string, unknown>) {
    return api<Team & ErrorBody>(forge.url, "POST", `/orgs/${org}/teams`, { token, body });
  }

  async function put(token: string | undefined, teamId: number, user: string) {
    return api<ErrorBody>(forge.url, "PUT", `/teams/${teamId}/members/${user}`, { token });
  }

  before(async () => {
    for (const name of ["olga", "mike", "nina", "oscar"] as const)
      cast[name] = await makePerson(forge.url, forge.adminToken, name);
    const org = await api<{ id: number }>(forge.url, "POST", "/orgs", {
      token: cast.olga.token,
      body: { username: "guild" },
    });
    orgId = org.body.id;
    const devs = await createTeam(cast.olga.token, "guild", {
      name: "devs",
      permission: "write",
      units: ["repo.code", "repo.pulls"],
    });
    devsId = devs.body.id;
    const docs = await createTeam(cast.olga.token, "guild", {
      name: "docs",
      units_map: { "repo.wiki": "write" },
    });
    assert.equal((await put(cast.olga.token, devsId, "mike")).status, 204);
    assert.equal((await put(cast.olga.token, docs.body.id, "nina")).status, 204);
    const teams = await api<Team[]>(forge.url, "GET", "/orgs/guild/teams", { token: cast.olga.token });
    ownersId = teams.body.find((t) => t.name === "Owners")?.id ?? 0;
  });

  test("POST /orgs/{org}/teams: units from units_map, units or an admin permission, as Gitea derives them", async () => {
    const fromMap = await api<Team>(forge.url, "POST", "/orgs/guild/teams", {
      token: cast.olga.token,
      shape: "Team",
      body: {
        name: "mapped",
        description: "by units_map",
        permission: "read",
        units_map: {
          "repo.code": "write",
          "repo.issues": "read",
          "repo.ext_wiki": "read",
          "repo.wiki": "none",
        },
        includes_all_repositories: true,
      },
    });
    assert.equal(fromMap.status, 201);
    assert.equal(fromMap.body.permission, "read", "the weakest mode above none, external units left out");
    assert.deepEqual(fromMap.body.units, ["repo.code", "repo.issues", "repo.wiki", "repo.ext_wiki"]);
    assert.deepEqual(fromMap.body.units_map, {
      "repo.code": "write",
      "repo.issues": "read",
      "repo.wiki": "none",
      "repo.ext_wiki": "read",
    });
    assert.equal(fromMap.body.includes_all_repositories, true);
    assert.equal(fromMap.body.can_create_org_repo, false);
    assert.equal(fromMap.body.organization.name, "guild");
    assert.deepEqual(
      fromMap.body.organization.owners?.map((o) => o.username),
      ["olga"],
    );

    const fromList = await api<Team>(forge.url, "POST", "/orgs/guild/teams", {
      token: cast.olga.token,
      shape: "Team",
      body: {
        name: "listed",
        permission: "write",
        units: ["repo.issues", "repo.code"],
        can_create_org_repo: true,
      },
    });
    assert.equal(fromList.body.permission, "write");
    assert.deepEqual(fromList.body.units, ["repo.code", "repo.issues"]);
    assert.deepEqual(fromList.body.units_map, { "repo.code": "write", "repo.issues": "write" });
    assert.equal(fromList.body.can_create_org_repo, true);

    const admins = await api<Team>(forge.url, "POST", "/orgs/guild/teams", {
      token: forge.adminToken,
      shape: "Team",
      body: { name: "admins", permission: "admin" },
    });
    assert.equal(admins.status, 201, "site admins may too");
    assert.equal(admins.body.permission, "admin");
    assert.deepEqual(admins.body.units, ALL_UNITS);
    assert.ok(Object.values(admins.body.units_map).every((mode) => mode === "admin"));
    const stored = await db()
      .selectFrom("team_unit")
      .select(["unit", "access_mode"])
      .where("team_id", "=", admins.body.id)
      .where("unit", "=", "repo.ext_issues")
      .executeTakeFirst();
    assert.equal(stored?.access_mode, "read", "stored as Gitea does: external units read only");
  });

  test("POST /orgs/{org}/teams: org owners only (members 403, outsiders 403 or 404, anonymous 401)", async () => {
    const before = await teamCount();
    const denied: Array<[string | undefined, string, number, string]> = [
      [undefined, "guild", 401, "token is required"],
      [cast.oscar.token, "guild", 403, "Must be an organization member"],
      [cast.mike.token, "guild", 403, "Must be an organization owner"],
    ];
    for (const [token, org, status, message] of denied) {
      const res = await createTeam(token as string, org, { name: "sneaky", permission: "admin" });
      assert.equal(res.status, status, message);
      assert.equal(res.body.message, message);
    }
    await api(forge.url, "POST", "/orgs", {
      token: cast.olga.token,
      body: { username: "hidden-guild", visibility: "private" },
    });
    const hidden = await createTeam(cast.oscar.token, "hidden-guild", {
      name: "sneaky",
      permission: "admin",
    });
    assert.equal(hidden.status, 404, "a private organization is not there for outsiders");
    assert.equal(await teamCount(), before + 1, "only the private org's own Owners team was added");
  });

  test("bad team input: Gitea's 422s, and nothing is created", async () => {
    const before = await teamCount();
    const cases: Array<[unknown, RegExp]> = [
      [
        { name: "devs", permission: "admin" },
        new RegExp(`^team already exists \\[org_id: ${orgId}, name: devs\\]$`),
      ],
      [{ name: "DEVS", permission: "admin" }, /^team already exists/],
      [{ name: "Owners", permission: "admin" }, /^team already exists/],
      [{ name: "quiet", permission: "read" }, /^units permission should not be empty/],
      [{ name: "quiet" }, /^units permission should not be empty/],
      [
        { name: "quiet", permission: "write", units: [], units_map: {} },
        /^units permission should not be empty/,
      ],
      [{ name: "bad name", permission: "admin" }, /^\[Name\]: AlphaDashDot$/],
      [{ name: "", permission: "admin" }, /^\[Name\]: Required$/],
      [{ permission: "admin" }, /^\[Name\]: Required$/],
      [{ name: "n".repeat(256), permission: "admin" }, /^\[Name\]: MaxSize$/],
      [{ name: "new", permission: "admin" }, /^name is reserved \[name: new\]$/],
      [{ name: 7, permission: "admin" }, /^\[Name\]: Type$/],
      [{ name: "ok", permission: "owner" }, /^\[Permission\]: In$/],
      [{ name: "ok", permission: "superuser" }, /^\[Permission\]: In$/],
      [
        { name: "ok", permission: "read", units: ["repo.nothing"] },
        /^unit does not exist \[key: repo.nothing\]/,
      ],
      [{ name: "ok", units_map: { "repo.code": "all" } }, /^invalid access mode/],
      [{ name: "ok", permission: "admin", description: "d".repeat(256) }, /^\[Description\]: MaxSize$/],
      [
        { name: "ok", permission: "admin", includes_all_repositories: "yes" },
        /^\[IncludesAllRepositories\]: Type$/,
      ],
      [{ name: "ok", permission: "read", units: "repo.code" }, /^\[Units\]: Type$/],
    ];
    for (const [body, message] of cases) {
      const res = await api<ErrorBody>(forge.url, "POST", "/orgs/guild/teams", {
        token: cast.olga.token,
        body,
      });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.match(res.body.message, message, JSON.stringify(body));
    }
    assert.equal(await teamCount(), before);
  });

  test("GET /orgs/{org}/teams and /teams/search: org members; search finds only one's own teams unless admin", async () => {
    const listed = await api<Team[]>(forge.url, "GET", "/orgs/guild/teams?limit=2", {
      token: cast.nina.token,
      shape: "Team[]",
    });
    assert.equal(listed.status, 200);
    assert.equal(listed.body.length, 2);
    assert.ok(Number(listed.headers.get("x-total-count")) >= 3);
    assert.match(listed.headers.get("link") ?? "", /rel="next"/);
    const denied = await api<ErrorBody>(forge.url, "GET", "/orgs/guild/teams", { token: cast.oscar.token });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.message, "Must be an organization member");
    assert.equal((await api(forge.url, "GET", "/orgs/guild/teams")).status, 401);
    assert.equal((await api(forge.url, "GET", "/orgs/guild/teams", { token: forge.adminToken })).status, 200);

    const search = async (token: string, query: string) => {
      const res = await api<{ ok: boolean; data: Team[] }>(
        forge.url,
        "GET",
        `/orgs/guild/teams/search${query}`,
        {
          token,
        },
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.ok, true);
      assert.equal(res.headers.get("x-total-count"), String(res.body.data.length));
      return res.body.data.map((t) => t.name);
    };
    assert.deepEqual(await search(cast.mike.token, "?q=DEV"), ["devs"]);
    assert.deepEqual(await search(cast.mike.token, "?q=doc"), [], "mike is not in docs");
    assert.deepEqual(await search(cast.olga.token, "?q=doc"), [], "owners too search only their own teams");
    assert.deepEqual(await search(forge.adminToken, "?q=doc"), ["docs"]);
    assert.deepEqual(await search(forge.adminToken, "?q=units_map"), ["mapped"], "descriptions count");
    assert.deepEqual(await search(forge.adminToken, "?q=units_map&include_desc=false"), []);
    assert.equal(
      (await api(forge.url, "GET", "/orgs/guild/teams/search", { token: cast.oscar.token })).status,
      403,
    );
  });

  test("GET /teams/{id}: team members, org owners and site admins; 403 for other members, 404 for outsiders", async () => {
    for (const token of [cast.mike.token, cast.olga.token, forge.adminToken]) {
      const res = await api<Team>(forge.url, "GET", `/teams/${devsId}`, { token, shape: "Team" });
      assert.equal(res.status, 200);
      assert.equal(res.body.name, "devs");
      assert.deepEqual(res.body.units, ["repo.code", "repo.pulls"]);
      assert.equal(res.body.organization.owners?.[0].username, "olga");
    }
    const otherMember = await api<ErrorBody>(forge.url, "GET", `/teams/${devsId}`, {
      token: cast.nina.token,
    });
    assert.equal(otherMember.status, 403);
    assert.equal(otherMember.body.message, "Must be a team member");
    const outsider = await api<ErrorBody>(forge.url, "GET", `/teams/${devsId}`, { token: cast.oscar.token });
    const missing = await api<ErrorBody>(forge.url, "GET", "/teams/999999", { token: cast.oscar.token });
    assert.equal(outsider.status, 404);
    assert.equal(missing.status, 404);
    assert.equal(outsider.body.message, missing.body.message.replace("999999", String(devsId)));
    assert.equal((await api(forge.url, "GET", `/teams/${devsId}`)).status, 401);
    assert.equal((await api(forge.url, "GET", "/teams/devs", { token: forge.adminToken })).status, 404);
  });

  test("PATCH /teams/{id}: org owners; other members get 404; the Owners team stays the Owners team", async () => {
    const team = await createTeam(cast.olga.token, "guild", {
      name: "editme",
      permission: "read",
      units: ["repo.code"],
    });
    await put(cast.olga.token, team.body.id, "mike");
    for (const token of [cast.mike.token, cast.nina.token, cast.oscar.token]) {
      const res = await api<ErrorBody>(forge.url, "PATCH", `/teams/${team.body.id}`, {
        token,
        body: { description: "x" },
      });
      assert.equal(res.status, token === cast.nina.token ? 403 : 404);
    }
    const edited = await api<Team>(forge.url, "PATCH", `/teams/${team.body.id}`, {
      token: cast.olga.token,
      shape: "Team",
      body: {
        name: "edited",
        description: "now write",
        permission: "write",
        includes_all_repositories: true,
      },
    });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.name, "edited");
    assert.equal(edited.body.description, "now write");
    assert.equal(edited.body.permission, "write");
    assert.deepEqual(edited.body.units_map, { "repo.code": "write" }, "its units follow the new mode");
    assert.equal(edited.body.includes_all_repositories, true);
    const remapped = await api<Team>(forge.url, "PATCH", `/teams/${team.body.id}`, {
      token: forge.adminToken,
      shape: "Team",
      body: { units_map: { "repo.issues": "read", "repo.code": "write" } },
    });
    assert.equal(remapped.body.permission, "read");
    assert.deepEqual(remapped.body.units, ["repo.code", "repo.issues"]);
    assert.equal(remapped.body.name, "edited", "a name left out is kept");
    const dup = await api<ErrorBody>(forge.url, "PATCH", `/teams/${team.body.id}`, {
      token: cast.olga.token,
      body: { name: "Devs" },
    });
    assert.equal(dup.status, 422);
    assert.match(dup.body.message, /^team already exists/);
    const badMode = await api(forge.url, "PATCH", `/teams/${team.body.id}`, {
      token: cast.olga.token,
      body: { permission: "owner" },
    });
    assert.equal(badMode.status, 422);

    const owners = await api<Team>(forge.url, "PATCH", `/teams/${ownersId}`, {
      token: cast.olga.token,
      shape: "Team",
      body: {
        name: "Owners",
        description: "the bosses",
        permission: "read",
        units: ["repo.code"],
        can_create_org_repo: false,
        includes_all_repositories: false,
      },
    });
    assert.equal(owners.status, 200);
    assert.equal(owners.body.description, "the bosses");
    assert.equal(owners.body.permission, "owner", "the Owners team cannot lose owner permission");
    assert.deepEqual(owners.body.units, ALL_UNITS);
    assert.equal(owners.body.can_create_org_repo, true);
    assert.equal(owners.body.includes_all_repositories, true);
    const rename = await api<ErrorBody>(forge.url, "PATCH", `/teams/${ownersId}`, {
      token: cast.olga.token,
      body: { name: "Bosses" },
    });
    assert.equal(rename.status, 422);
    assert.equal(rename.body.message, "the Owners team cannot be renamed");
  });

  test("DELETE /teams/{id}: org owners; the Owners team cannot be deleted", async () => {
    const team = await createTeam(cast.olga.token, "guild", { name: "doomed", permission: "admin" });
    await put(cast.olga.token, team.body.id, "mike");
    assert.equal(
      (await api(forge.url, "DELETE", `/teams/${team.body.id}`, { token: cast.mike.token })).status,
      404,
    );
    assert.equal(
      (await api(forge.url, "DELETE", `/teams/${team.body.id}`, { token: cast.oscar.token })).status,
      404,
    );
    assert.equal((await api(forge.url, "DELETE", `/teams/${team.body.id}`)).status, 401);
    assert.equal(
      (await api(forge.url, "DELETE", `/teams/${team.body.id}`, { token: cast.olga.token })).status,
      204,
    );
    assert.equal(
      (await api(forge.url, "GET", `/teams/${team.body.id}`, { token: cast.olga.token })).status,
      404,
    );
    const units = await db()
      .selectFrom("team_unit")
      .select("id")
      .where("team_id", "=", team.body.id)
      .execute();
    assert.deepEqual(units, []);
    assert.equal(
      (await api(forge.url, "GET", "/orgs/guild/members/mike", { token: cast.olga.token })).status,
      204,
      "members stay in the organization",
    );
    const owners = await api<ErrorBody>(forge.url, "DELETE", `/teams/${ownersId}`, {
      token: forge.adminToken,
    });
    assert.equal(owners.status, 422);
    assert.equal(owners.body.message, "the Owners team cannot be deleted");
  });

  test("team members: listed to the team, added and removed by org owners (404 for other members)", async () => {
    const pam = await makePerson(forge.url, forge.adminToken, "pam");
    const team = await createTeam(cast.olga.token, "guild", {
      name: "crew",
      permission: "read",
      units: ["repo.code"],
    });
    const id = team.body.id;
    assert.equal((await put(cast.oscar.token, id, "pam")).status, 404);
    assert.equal((await put(undefined, id, "pam")).status, 401);
    assert.equal((await put(cast.olga.token, id, "pam")).status, 204);
    assert.equal((await put(cast.olga.token, id, "pam")).status, 204, "adding twice is fine");
    assert.equal(
      (await api(forge.url, "GET", "/orgs/guild/members/pam", { token: cast.olga.token })).status,
      204,
      "a team member is an org member",
    );
    const byMember = await put(pam.token, id, "mike");
    assert.equal(byMember.status, 404, "a team member who is not an owner gets 404, as in Gitea");
    assert.equal((await put(cast.olga.token, id, "nobody-at-all")).status, 404);
    assert.equal((await put(cast.olga.token, id, "guild")).status, 404, "an organization is not a user");

    const members = await api<Member[]>(forge.url, "GET", `/teams/${id}/members`, {
      token: pam.token,
      shape: "User[]",
    });
    assert.deepEqual(
      members.body.map((m) => m.login),
      ["pam"],
    );
    assert.equal(members.headers.get("x-total-count"), "1");
    assert.equal(
      (await api(forge.url, "GET", `/teams/${id}/members`, { token: cast.oscar.token })).status,
      404,
    );
    const one = await api<Member>(forge.url, "GET", `/teams/${id}/members/pam`, {
      token: cast.olga.token,
      shape: "User",
    });
    assert.equal(one.body.login, "pam");
    assert.equal(
      (await api(forge.url, "GET", `/teams/${id}/members/mike`, { token: cast.olga.token })).status,
      404,
    );

    const removed = await api(forge.url, "DELETE", `/teams/${id}/members/pam`, { token: pam.token });
    assert.equal(removed.status, 404);
    assert.equal(
      (await api(forge.url, "DELETE", `/teams/${id}/members/pam`, { token: cast.olga.token })).status,
      204,
    );
    assert.equal(
      (await api(forge.url, "GET", `/teams/${id}/members/pam`, { token: cast.olga.token })).status,
      404,
    );
  });

  test("the last owner cannot leave the Owners team, even when all owners are removed at once", async () => {
    const last = await api<ErrorBody>(forge.url, "DELETE", `/teams/${ownersId}/members/olga`, {
      token: cast.olga.token,
    });
    assert.equal(last.status, 422);
    assert.equal(last.body.message, `user is the last member of owner team [uid: ${cast.olga.id}]`);
    const crowd = await Promise.all(
      Array.from({ length: 16 }, (_, i) => makePerson(forge.url, forge.adminToken, `crowd${i}`)),
    );
    const org = await api(forge.url, "POST", "/orgs", {
      token: crowd[0].token,
      body: { username: "crowded" },
    });
    assert.equal(org.status, 201);
    const teams = await api<Team[]>(forge.url, "GET", "/orgs/crowded/teams", { token: crowd[0].token });
    const owners = teams.body[0].id;
    for (const person of crowd.slice(1))
      assert.equal((await put(crowd[0].token, owners, person.login)).status, 204);
    const removals = await Promise.all(
      crowd.map((person) =>
        api(forge.url, "DELETE", `/teams/${owners}/members/${person.login}`, { token: forge.adminToken }),
      ),
    );
    assert.deepEqual(removals.map((r) => r.status).sort(), [...Array(15).fill(204), 422]);
    const left = await api<Member[]>(forge.url, "GET", `/teams/${owners}/members`, {
      token: forge.adminToken,
    });
    assert.equal(left.body.length, 1);
  });

  test("Gogs' admin team paths: site admins create teams and manage members", async () => {
    const before = await teamCount();
    const made = await api<Record<string, unknown>>(forge.url, "POST", "/admin/orgs/guild/teams", {
      token: forge.adminToken,
      body: { name: "gogs-team", description: "from Gogs", permission: "write" },
    });
    assert.equal(made.status, 201);
    assert.deepEqual(made.body, {
      id: made.body.id,
      name: "gogs-team",
      description: "from Gogs",
      permission: "write",
    });
    const asGitea = await api<Team>(forge.url, "GET", `/teams/${made.body.id}`, {
      token: cast.olga.token,
      shape: "Team",
    });
    assert.deepEqual(asGitea.body.units, ALL_UNITS, "a Gogs team reaches every unit");
    const plain = await api<Record<string, unknown>>(forge.url, "POST", "/admin/orgs/guild/teams", {
      token: forge.adminToken,
      body: { name: "gogs-reader" },
    });
    assert.equal(plain.body.permission, "read", "Gogs' default");
    const cases: Array<[unknown, number, RegExp]> = [
      [{ name: "gogs-team" }, 422, /^team already exists/],
      [{ name: "g".repeat(31) }, 422, /^\[Name\]: MaxSize$/],
      [{ name: "ok", permission: "owner" }, 422, /^\[Permission\]: In$/],
      [{}, 422, /^\[Name\]: Required$/],
    ];
    for (const [body, status, message] of cases) {
      const res = await api<ErrorBody>(forge.url, "POST", "/admin/orgs/guild/teams", {
        token: forge.adminToken,
        body,
      });
      assert.equal(res.status, status, JSON.stringify(body));
      assert.match(res.body.message, message);
    }
    const notAdmin = await api<ErrorBody>(forge.url, "POST", "/admin/orgs/guild/teams", {
      token: cast.olga.token,
      body: { name: "owner-try" },
    });
    assert.equal(notAdmin.status, 403);
    assert.equal(notAdmin.body.message, "user should be the site admin");
    assert.equal(
      (
        await api(forge.url, "POST", "/admin/orgs/no-such-org/teams", {
          token: forge.adminToken,
          body: { name: "x" },
        })
      ).status,
      404,
    );
    assert.equal(await teamCount(), before + 2);

    const id = made.body.id;
    const member = (method: string, user: string, token = forge.adminToken) =>
      api(forge.url, method, `/admin/teams/${id}/members/${user}`, { token });
    assert.equal((await member("PUT", "nina")).status, 204);
    assert.equal((await member("PUT", "nina", cast.olga.token)).status, 403);
    const listed = await api<Member[]>(forge.url, "GET", `/admin/teams/${id}/members`, {
      token: forge.adminToken,
      shape: "User[]",
    });
    assert.deepEqual(
      listed.body.map((m) => [m.login, m.username]),
      [["nina", "nina"]],
    );
    assert.equal(listed.headers.get("x-total-count"), "1");
    assert.equal(
      (await api(forge.url, "GET", `/admin/teams/${id}/members`, { token: cast.nina.token })).status,
      403,
    );
    assert.equal((await member("DELETE", "nina")).status, 204);
    assert.equal((await member("DELETE", "nina", cast.olga.token)).status, 403);
    assert.equal(
      (await api(forge.url, "GET", "/admin/teams/999999/members", { token: forge.adminToken })).status,
      404,
    );
    assert.equal((await member("PUT", "nobody-at-all")).status, 404);
    const lastOwner = await api(forge.url, "DELETE", `/admin/teams/${ownersId}/members/olga`, {
      token: forge.adminToken,
    });
    assert.equal(lastOwner.status, 422);
  });
});
