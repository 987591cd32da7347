import assert from "node:assert/strict";
import { test } from "node:test";
import { giteaApi } from "gitea-js";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";
import { ALL_UNITS } from "../support/units.ts";

interface Member {
  id: number;
  login: string;
  username: string;
}
interface Org {
  id: number;
  name: string;
  username: string;
  full_name: string;
  email: string;
  description: string;
  website: string;
  location: string;
  visibility: string;
  repo_admin_change_team_access: boolean;
  owners?: Member[];
}
interface Team {
  id: number;
  name: string;
  permission: string;
  includes_all_repositories: boolean;
  can_create_org_repo: boolean;
  units: string[];
  units_map: Record<string, string>;
}
interface ErrorBody {
  message: string;
}

forEachForge("forge organizations: orgs, members, admin", (forge) => {
  const person = (name: string, extra?: Record<string, unknown>) =>
    makePerson(forge.url, forge.adminToken, name, extra);

  async function makeOrg(owner: Person, body: Record<string, unknown>): Promise<Org> {
    const made = await api<Org>(forge.url, "POST", "/orgs", {
      token: owner.token,
      body,
      shape: "Organization",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return made.body;
  }

  async function addToTeam(orgOwner: Person, org: string, team: Record<string, unknown>, members: Person[]) {
    const made = await api<Team>(forge.url, "POST", `/orgs/${org}/teams`, {
      token: orgOwner.token,
      body: team,
      shape: "Team",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    for (const member of members) {
      const put = await api(forge.url, "PUT", `/teams/${made.body.id}/members/${member.login}`, {
        token: orgOwner.token,
      });
      assert.equal(put.status, 204);
    }
    return made.body;
  }

  function db() {
    const database = forge.server.app.database;
    if (!database) throw new Error("no database");
    return database.db;
  }

  async function countOf(table: "account" | "team" | "team_user" | "org_user" | "team_unit") {
    const row = await db()
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  test("POST /orgs creates the organization, its Owners team and the creator's membership", async () => {
    const alice = await person("alice");
    const org = await makeOrg(alice, {
      username: "acme",
      full_name: "Acme Inc.",
      email: "info@acme.example",
      description: "We make things",
      website: "https://acme.example",
      location: "Earth",
      repo_admin_change_team_access: true,
    });
    assert.equal(org.name, "acme");
    assert.equal(org.username, "acme");
    assert.equal(org.full_name, "Acme Inc.");
    assert.equal(org.visibility, "public");
    assert.equal(org.repo_admin_change_team_access, true);
    assert.deepEqual(
      org.owners?.map((o) => [o.id, o.username, o.login]),
      [[alice.id, "alice", "alice"]],
    );
    const teams = await api<Team[]>(forge.url, "GET", "/orgs/acme/teams", {
      token: alice.token,
      shape: "Team[]",
    });
    assert.equal(teams.status, 200);
    assert.equal(teams.headers.get("x-total-count"), "1");
    const [owners] = teams.body;
    assert.equal(owners.name, "Owners");
    assert.equal(owners.permission, "owner");
    assert.equal(owners.includes_all_repositories, true);
    assert.equal(owners.can_create_org_repo, true);
    assert.deepEqual(owners.units, ALL_UNITS);
    assert.equal(owners.units_map["repo.code"], "owner");
    const members = await api<Member[]>(forge.url, "GET", `/teams/${owners.id}/members`, {
      token: alice.token,
      shape: "User[]",
    });
    assert.deepEqual(
      members.body.map((m) => m.login),
      ["alice"],
    );
    const mine = await api<Org[]>(forge.url, "GET", "/user/orgs", {
      token: alice.token,
      shape: "Organization[]",
    });
    assert.deepEqual(
      mine.body.map((o) => o.name),
      ["acme"],
    );
    // Gitea's default: a new member's membership is private.
    const publicMembers = await api<Member[]>(forge.url, "GET", "/orgs/acme/public_members", {
      shape: "User[]",
    });
    assert.deepEqual(publicMembers.body, []);
  });

  test("Gogs' POST /user/orgs creates an organization too", async () => {
    const gus = await person("gus");
    const made = await api<Org>(forge.url, "POST", "/user/orgs", {
      token: gus.token,
      body: { username: "gogs-org" },
      shape: "Organization",
    });
    assert.equal(made.status, 201);
    assert.equal(made.body.username, "gogs-org");
    assert.deepEqual(
      made.body.owners?.map((o) => o.username),
      ["gus"],
    );
  });

  test("bad input: Gitea's 4xx, and nothing is created", async () => {
    const bob = await person("bob");
    await makeOrg(bob, { username: "bobs" });
    const before = await Promise.all([countOf("account"), countOf("team"), countOf("org_user")]);
    const cases: Array<[unknown, number, RegExp]> = [
      [{ username: "bobs" }, 422, /^user already exists \[name: bobs\]$/],
      [{ username: "BOBS" }, 422, /^user already exists \[name: BOBS\]$/],
      [{ username: "bob" }, 422, /^user already exists \[name: bob\]$/],
      [{ username: "root" }, 422, /^user already exists/],
      [{ username: "admin" }, 422, /^name is reserved \[name: admin\]$/],
      [{ username: "x.keys" }, 422, /^name is reserved/],
      [{ username: "../x" }, 422, /^\[Username\]: Username$/],
      [{ username: "" }, 422, /^\[Username\]: Username$/],
      [{ username: "a".repeat(41) }, 422, /^\[Username\]: MaxSize$/],
      [{}, 422, /^\[Username\]: Required$/],
      [{ username: 12 }, 422, /^\[Username\]: Type$/],
      [{ username: "okname", visibility: "secret" }, 422, /^\[Visibility\]: In$/],
      [{ username: "okname", website: "not a url" }, 422, /^\[Website\]: ValidUrl$/],
      [{ username: "okname", website: "ftp://x.example" }, 422, /^\[Website\]: ValidUrl$/],
      [{ username: "okname", email: "nope" }, 422, /^\[Email\]: Email$/],
      [{ username: "okname", full_name: "f".repeat(101) }, 422, /^\[FullName\]: MaxSize$/],
      [{ username: "okname", location: "l".repeat(51) }, 422, /^\[Location\]: MaxSize$/],
      [
        { username: "okname", repo_admin_change_team_access: "yes" },
        422,
        /^\[RepoAdminChangeTeamAccess\]: Type$/,
      ],
    ];
    for (const [body, status, message] of cases) {
      const res = await api<ErrorBody>(forge.url, "POST", "/orgs", { token: bob.token, body });
      assert.equal(res.status, status, JSON.stringify(body));
      assert.match(res.body.message, message, JSON.stringify(body));
    }
    const malformed = await fetch(`${forge.url}/api/v1/orgs`, {
      method: "POST",
      headers: { authorization: `token ${bob.token}`, "content-type": "application/json" },
      body: "{not json",
    });
    assert.equal(malformed.status, 422);
    assert.deepEqual(await Promise.all([countOf("account"), countOf("team"), countOf("org_user")]), before);
  });

  test("who may create organizations: 401 anonymous, 403 when the account may not", async () => {
    const anonymous = await api<ErrorBody>(forge.url, "POST", "/orgs", { body: { username: "anon-org" } });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.message, "token is required");
    const carl = await person("carl", { allow_create_organization: false });
    await api(forge.url, "PATCH", "/admin/users/carl", {
      token: forge.adminToken,
      body: { source_id: 0, login_name: "carl", allow_create_organization: false },
    });
    for (const path of ["/orgs", "/user/orgs"]) {
      const refused = await api<ErrorBody>(forge.url, "POST", path, {
        token: carl.token,
        body: { username: "carls" },
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.message, "user is not allowed to create organizations");
    }
    assert.equal((await api(forge.url, "GET", "/orgs/carls")).status, 404);
  });

  test("16 simultaneous POST /orgs with one name: exactly one 201, the rest 422", async () => {
    const racers = await Promise.all(Array.from({ length: 4 }, (_, i) => person(`racer${i}`)));
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        api<ErrorBody>(forge.url, "POST", "/orgs", {
          token: racers[i % racers.length].token,
          body: { username: i % 2 === 0 ? "contested" : "Contested" },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, ...Array(15).fill(422)]);
    for (const refused of answers.filter((a) => a.status === 422))
      assert.match(refused.body.message, /^user already exists \[name: [cC]ontested\]$/);
    const orgs = await db()
      .selectFrom("account")
      .select("id")
      .where("lower_name", "=", "contested")
      .execute();
    assert.equal(orgs.length, 1);
    const teams = await db().selectFrom("team").select("id").where("org_id", "=", orgs[0].id).execute();
    assert.equal(teams.length, 1);
    const owners = await db()
      .selectFrom("team_user")
      .select("id")
      .where("team_id", "=", teams[0].id)
      .execute();
    assert.equal(owners.length, 1);
  });

  test("visibility: private and limited organizations are 404 to those who may not see them", async () => {
    const vera = await person("vera");
    const vic = await person("vic");
    const outsider = await person("otto");
    await makeOrg(vera, { username: "vis-public" });
    await makeOrg(vera, { username: "vis-limited", visibility: "limited" });
    await makeOrg(vera, { username: "vis-private", visibility: "private" });
    await addToTeam(vera, "vis-private", { name: "readers", permission: "read", units: ["repo.code"] }, [
      vic,
    ]);
    const cases: Array<[string, string | undefined, number]> = [
      ["vis-public", undefined, 200],
      ["vis-limited", undefined, 404],
      ["vis-private", undefined, 404],
      ["vis-limited", outsider.token, 200],
      ["vis-private", outsider.token, 404],
      ["vis-private", vic.token, 200],
      ["vis-private", forge.adminToken, 200],
      ["vis-private", vera.token, 200],
    ];
    for (const [org, token, status] of cases) {
      const res = await api<Org>(forge.url, "GET", `/orgs/${org}`, { token, shape: "Organization" });
      assert.equal(res.status, status, `${org} ${token}`);
    }
    const hidden = await api<ErrorBody>(forge.url, "GET", "/orgs/vis-private", { token: outsider.token });
    const missing = await api<ErrorBody>(forge.url, "GET", "/orgs/vis-nothing", { token: outsider.token });
    assert.equal(hidden.body.message, missing.body.message.replace("vis-nothing", "vis-private"));
    // A private organization's sub-resources are hidden as well.
    for (const path of [
      "/orgs/vis-private/public_members",
      "/orgs/vis-private/members",
      "/orgs/vis-private/teams",
    ])
      assert.equal((await api(forge.url, "GET", path, { token: outsider.token })).status, 404, path);
    assert.equal(
      (await api(forge.url, "PATCH", "/orgs/vis-private", { token: outsider.token, body: {} })).status,
      404,
    );

    const names = async (token?: string) => {
      const res = await api<Org[]>(forge.url, "GET", "/orgs?limit=50", { token, shape: "Organization[]" });
      assert.equal(res.headers.get("x-total-count"), String(res.body.length));
      return res.body.map((o) => o.name).filter((n) => n.startsWith("vis-"));
    };
    assert.deepEqual(await names(), ["vis-public"]);
    assert.deepEqual(await names(outsider.token), ["vis-limited", "vis-public"]);
    assert.deepEqual(await names(vic.token), ["vis-limited", "vis-private", "vis-public"]);
    assert.deepEqual(await names(forge.adminToken), ["vis-limited", "vis-private", "vis-public"]);

    // A restricted user sees only the organizations they belong to, public ones included.
    const rita = await person("rita", { restricted: true });
    await addToTeam(vera, "vis-limited", { name: "guests", permission: "read", units: ["repo.code"] }, [
      rita,
    ]);
    assert.equal((await api(forge.url, "GET", "/orgs/vis-public", { token: rita.token })).status, 404);
    assert.equal((await api(forge.url, "GET", "/orgs/vis-limited", { token: rita.token })).status, 200);
    assert.deepEqual(await names(rita.token), ["vis-limited"]);
  });

  test("lists are paged with Link and X-Total-Count", async () => {
    const pam = await person("pam");
    for (const name of ["page-a", "page-b", "page-c"]) await makeOrg(pam, { username: name });
    const first = await api<Org[]>(forge.url, "GET", "/user/orgs?limit=2", {
      token: pam.token,
      shape: "Organization[]",
    });
    assert.deepEqual(
      first.body.map((o) => o.name),
      ["page-a", "page-b"],
    );
    assert.equal(first.headers.get("x-total-count"), "3");
    assert.match(
      first.headers.get("link") ?? "",
      /<http:\/\/forge\.test\/api\/v1\/user\/orgs\?limit=2&page=2>; rel="next"/,
    );
    const second = await api<Org[]>(forge.url, "GET", "/user/orgs?limit=2&page=2", { token: pam.token });
    assert.deepEqual(
      second.body.map((o) => o.name),
      ["page-c"],
    );
    assert.match(second.headers.get("link") ?? "", /rel="prev"/);
    const all = await api<Org[]>(forge.url, "GET", "/orgs?limit=1", {});
    assert.ok(Number(all.headers.get("x-total-count")) >= 3);
    assert.match(all.headers.get("link") ?? "", /rel="last"/);
  });

  test("owners: shown to site admins and members, absent for everyone else", async () => {
    const olive = await person("olive");
    const mona = await person("mona");
    const nick = await person("nick");
    await makeOrg(olive, { username: "owned", email: "owned@example.com" });
    await addToTeam(olive, "owned", { name: "writers", permission: "write", units: ["repo.code"] }, [mona]);
    const seen = async (token?: string) => {
      const one = await api<Org>(forge.url, "GET", "/orgs/owned", { token, shape: "Organization" });
      const list = await api<Org[]>(forge.url, "GET", "/orgs?limit=50", { token, shape: "Organization[]" });
      const listed = list.body.find((o) => o.name === "owned");
      assert.equal("owners" in one.body, "owners" in (listed ?? {}));
      return one.body;
    };
    for (const token of [forge.adminToken, olive.token, mona.token]) {
      const org = await seen(token);
      assert.deepEqual(
        org.owners?.map((o) => [o.id, o.username]),
        [[olive.id, "olive"]],
      );
    }
    for (const token of [undefined, nick.token]) assert.equal("owners" in (await seen(token)), false);
    const admin = await api<Org[]>(forge.url, "GET", "/admin/orgs?limit=50", {
      token: forge.adminToken,
      shape: "Organization[]",
    });
    assert.ok(admin.body.every((o) => Array.isArray(o.owners) && o.owners.length > 0));
    // Gitea hides an organization's e-mail from anonymous callers.
    assert.equal((await seen(undefined)).email, "");
    assert.equal((await seen(nick.token)).email, "owned@example.com");
  });

  test("PATCH and DELETE /orgs/{org}: owners and site admins only", async () => {
    const ed = await person("ed");
    const member = await person("edmember");
    const stranger = await person("edstranger");
    await makeOrg(ed, { username: "editable" });
    await addToTeam(ed, "editable", { name: "admins", permission: "admin" }, [member]);
    const denied: Array<[string | undefined, number, string]> = [
      [undefined, 401, "token is required"],
      [stranger.token, 403, "Must be an organization owner"],
      [member.token, 403, "Must be an organization owner"],
    ];
    for (const [token, status, message] of denied) {
      const patch = await api<ErrorBody>(forge.url, "PATCH", "/orgs/editable", {
        token,
        body: { full_name: "X" },
      });
      assert.equal(patch.status, status);
      assert.equal(patch.body.message, message);
      const del = await api<ErrorBody>(forge.url, "DELETE", "/orgs/editable", { token });
      assert.equal(del.status, status);
    }
    const edited = await api<Org>(forge.url, "PATCH", "/orgs/editable", {
      token: ed.token,
      body: { full_name: "Editable", description: "d", website: "http://e.example", visibility: "limited" },
      shape: "Organization",
    });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.full_name, "Editable");
    assert.equal(edited.body.visibility, "limited");
    assert.equal(edited.body.owners?.[0].username, "ed");
    const byAdmin = await api<Org>(forge.url, "PATCH", "/orgs/editable", {
      token: forge.adminToken,
      body: { location: "Mars", repo_admin_change_team_access: true },
      shape: "Organization",
    });
    assert.equal(byAdmin.body.location, "Mars");
    assert.equal(byAdmin.body.full_name, "Editable", "fields left out are kept");
    const bad = await api<ErrorBody>(forge.url, "PATCH", "/orgs/editable", {
      token: ed.token,
      body: { visibility: "hidden" },
    });
    assert.equal(bad.status, 422);
    assert.equal(
      (await api<Org>(forge.url, "GET", "/orgs/editable", { token: ed.token })).body.visibility,
      "limited",
    );

    const teamsBefore = await countOf("team");
    assert.equal((await api(forge.url, "DELETE", "/orgs/editable", { token: ed.token })).status, 204);
    assert.equal((await api(forge.url, "GET", "/orgs/editable", { token: forge.adminToken })).status, 404);
    assert.equal(await countOf("team"), teamsBefore - 2, "its teams went with it");
    assert.equal((await api(forge.url, "DELETE", "/orgs/editable", { token: forge.adminToken })).status, 404);
  });

  test("a user's organizations: all for the user and admins, public memberships for others", async () => {
    const uma = await person("uma");
    const viewer = await person("uviewer");
    const other = await person("uowner");
    await makeOrg(other, { username: "u-shown" });
    await makeOrg(other, { username: "u-quiet" });
    await makeOrg(other, { username: "u-secret", visibility: "private" });
    for (const org of ["u-shown", "u-quiet", "u-secret"])
      await addToTeam(other, org, { name: "crew", permission: "read", units: ["repo.code"] }, [uma]);
    for (const org of ["u-shown", "u-secret"])
      assert.equal(
        (await api(forge.url, "PUT", `/orgs/${org}/public_members/uma`, { token: uma.token })).status,
        204,
      );
    const names = async (path: string, token?: string) => {
      const res = await api<Org[]>(forge.url, "GET", path, { token, shape: "Organization[]" });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("x-total-count"), String(res.body.length));
      return res.body.map((o) => o.name);
    };
    assert.deepEqual(await names("/user/orgs", uma.token), ["u-quiet", "u-secret", "u-shown"]);
    assert.deepEqual(await names("/users/uma/orgs", uma.token), ["u-quiet", "u-secret", "u-shown"]);
    assert.deepEqual(await names("/users/uma/orgs", forge.adminToken), ["u-quiet", "u-secret", "u-shown"]);
    assert.deepEqual(await names("/admin/users/uma/orgs", forge.adminToken), [
      "u-quiet",
      "u-secret",
      "u-shown",
    ]);
    assert.deepEqual(await names("/users/uma/orgs", viewer.token), ["u-shown"]);
    assert.equal((await api(forge.url, "GET", "/users/uma/orgs")).status, 401);
    assert.equal((await api(forge.url, "GET", "/user/orgs")).status, 401);
    assert.equal(
      (await api(forge.url, "GET", "/users/nobody-here/orgs", { token: viewer.token })).status,
      404,
    );
    assert.equal((await api(forge.url, "GET", "/admin/users/uma/orgs", { token: viewer.token })).status, 403);
  });

  test("GET /users/{u}/orgs/{org}/permissions follows the user's teams", async () => {
    const pat = await person("pat");
    const reader = await person("preader");
    const creator = await person("pcreator");
    const nobody = await person("pnobody");
    await makeOrg(pat, { username: "perms" });
    await addToTeam(pat, "perms", { name: "readers", permission: "read", units: ["repo.code"] }, [reader]);
    await addToTeam(
      pat,
      "perms",
      { name: "makers", permission: "write", units: ["repo.code"], can_create_org_repo: true },
      [creator],
    );
    const perms = async (user: string) => {
      const res = await api<Record<string, boolean>>(
        forge.url,
        "GET",
        `/users/${user}/orgs/perms/permissions`,
        {
          token: nobody.token,
          shape: "OrganizationPermissions",
        },
      );
      assert.equal(res.status, 200);
      return res.body;
    };
    assert.deepEqual(await perms("pat"), {
      can_create_repository: true,
      can_read: true,
      can_write: true,
      is_admin: true,
      is_owner: true,
    });
    assert.deepEqual(await perms("preader"), {
      can_create_repository: false,
      can_read: true,
      can_write: false,
      is_admin: false,
      is_owner: false,
    });
    assert.deepEqual(await perms("pcreator"), {
      can_create_repository: true,
      can_read: true,
      can_write: true,
      is_admin: false,
      is_owner: false,
    });
    assert.equal((await perms("pnobody")).can_read, false);
    assert.equal((await api(forge.url, "GET", "/users/pat/orgs/perms/permissions")).status, 401);
    assert.equal(
      (await api(forge.url, "GET", "/users/pat/orgs/missing-org/permissions", { token: nobody.token }))
        .status,
      404,
    );
  });

  test("members: members see all, others the public ones; owners remove, the last owner stays", async () => {
    const mo = await person("mo");
    const mia = await person("mia");
    const max = await person("max");
    const out = await person("mout");
    await makeOrg(mo, { username: "crew" });
    const team = await addToTeam(mo, "crew", { name: "deck", permission: "write", units: ["repo.code"] }, [
      mia,
      max,
    ]);
    assert.equal(
      (await api(forge.url, "PUT", "/orgs/crew/public_members/mia", { token: mia.token })).status,
      204,
    );
    const listed = async (path: string, token?: string) => {
      const res = await api<Member[]>(forge.url, "GET", path, { token, shape: "User[]" });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("x-total-count"), String(res.body.length));
      return res.body.map((m) => m.login);
    };
    assert.deepEqual(await listed("/orgs/crew/members", max.token), ["max", "mia", "mo"]);
    assert.deepEqual(await listed("/orgs/crew/members", forge.adminToken), ["max", "mia", "mo"]);
    assert.deepEqual(await listed("/orgs/crew/members", out.token), ["mia"]);
    assert.deepEqual(await listed("/orgs/crew/public_members"), ["mia"]);
    assert.equal((await api(forge.url, "GET", "/orgs/crew/members")).status, 401);

    const check = async (user: string, token?: string) =>
      (await api(forge.url, "GET", `/orgs/crew/members/${user}`, { token })).status;
    assert.equal(await check("max", max.token), 204);
    assert.equal(await check("mout", max.token), 404);
    assert.equal(await check("max", forge.adminToken), 204);
    assert.equal(await check("mout", out.token), 404);
    // An outsider is sent to the public membership, where only public members are found.
    assert.equal(await check("mia", out.token), 204);
    assert.equal(await check("max", out.token), 404);
    const redirect = await fetch(`${forge.url}/api/v1/orgs/crew/members/max`, {
      headers: { authorization: `token ${out.token}` },
      redirect: "manual",
    });
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get("location"), "/api/v1/orgs/crew/public_members/max");
    assert.equal((await api(forge.url, "GET", "/orgs/crew/public_members/max")).status, 404);
    assert.equal((await api(forge.url, "GET", "/orgs/crew/public_members/nobody-at-all")).status, 404);

    const removeMax = await api<ErrorBody>(forge.url, "DELETE", "/orgs/crew/members/max", {
      token: mia.token,
    });
    assert.equal(removeMax.status, 403);
    assert.equal(removeMax.body.message, "Must be an organization owner");
    assert.equal(
      (await api(forge.url, "DELETE", "/orgs/crew/members/max", { token: out.token })).status,
      403,
    );
    assert.equal((await api(forge.url, "DELETE", "/orgs/crew/members/max")).status, 401);
    assert.equal((await api(forge.url, "DELETE", "/orgs/crew/members/max", { token: mo.token })).status, 204);
    assert.equal(await check("max", mo.token), 404);
    const deck = await api<Member[]>(forge.url, "GET", `/teams/${team.id}/members`, { token: mo.token });
    assert.deepEqual(
      deck.body.map((m) => m.login),
      ["mia"],
      "removed from the org's teams too",
    );
    const last = await api<ErrorBody>(forge.url, "DELETE", "/orgs/crew/members/mo", { token: mo.token });
    assert.equal(last.status, 422);
    assert.equal(last.body.message, `user is the last member of owner team [uid: ${mo.id}]`);
    assert.equal(await check("mo", mo.token), 204);
    assert.equal(
      (await api(forge.url, "DELETE", "/orgs/crew/members/nobody-at-all", { token: mo.token })).status,
      404,
    );
  });

  test("public membership: only members, only for themselves", async () => {
    const pia = await person("pia");
    const pete = await person("pete");
    const pout = await person("pout");
    await makeOrg(pia, { username: "pub" });
    await addToTeam(pia, "pub", { name: "all", permission: "read", units: ["repo.code"] }, [pete]);
    const other = await api<ErrorBody>(forge.url, "PUT", "/orgs/pub/public_members/pete", {
      token: pia.token,
    });
    assert.equal(other.status, 403);
    assert.equal(other.body.message, "Cannot publicize another member");
    const conceal = await api<ErrorBody>(forge.url, "DELETE", "/orgs/pub/public_members/pete", {
      token: pia.token,
    });
    assert.equal(conceal.status, 403);
    assert.equal(conceal.body.message, "Cannot conceal another member");
    const outsider = await api<ErrorBody>(forge.url, "PUT", "/orgs/pub/public_members/pout", {
      token: pout.token,
    });
    assert.equal(outsider.status, 403);
    assert.equal(outsider.body.message, "Must be an organization member");
    assert.equal((await api(forge.url, "PUT", "/orgs/pub/public_members/pete")).status, 401);
    assert.equal(
      (await api(forge.url, "PUT", "/orgs/pub/public_members/pete", { token: pete.token })).status,
      204,
    );
    assert.equal((await api(forge.url, "GET", "/orgs/pub/public_members/pete")).status, 204);
    assert.equal(
      (await api(forge.url, "DELETE", "/orgs/pub/public_members/pete", { token: pete.token })).status,
      204,
    );
    assert.equal((await api(forge.url, "GET", "/orgs/pub/public_members/pete")).status, 404);
  });

  test("site admins: list every organization and create one for a user, who becomes its owner", async () => {
    const sam = await person("sam");
    await api(forge.url, "PATCH", "/admin/users/sam", {
      token: forge.adminToken,
      body: { source_id: 0, login_name: "sam", allow_create_organization: false },
    });
    const made = await api<Org>(forge.url, "POST", "/admin/users/sam/orgs", {
      token: forge.adminToken,
      body: { username: "sams-org", visibility: "private" },
      shape: "Organization",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(
      made.body.owners?.map((o) => o.username),
      ["sam"],
    );
    assert.equal(
      (await api(forge.url, "PATCH", "/orgs/sams-org", { token: sam.token, body: {} })).status,
      200,
    );
    const dup = await api<ErrorBody>(forge.url, "POST", "/admin/users/sam/orgs", {
      token: forge.adminToken,
      body: { username: "sams-org" },
    });
    assert.equal(dup.status, 422);
    assert.equal(dup.body.message, "user already exists [name: sams-org]");
    const reserved = await api(forge.url, "POST", "/admin/users/sam/orgs", {
      token: forge.adminToken,
      body: { username: "api" },
    });
    assert.equal(reserved.status, 422);
    assert.equal(
      (
        await api(forge.url, "POST", "/admin/users/nobody-at-all/orgs", {
          token: forge.adminToken,
          body: { username: "zz" },
        })
      ).status,
      404,
    );
    assert.equal(
      (
        await api(forge.url, "POST", "/admin/users/sams-org/orgs", {
          token: forge.adminToken,
          body: { username: "zz" },
        })
      ).status,
      404,
      "an organization cannot own an organization",
    );
    const refused = await api<ErrorBody>(forge.url, "POST", "/admin/users/sam/orgs", {
      token: sam.token,
      body: { username: "sneaky" },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, "user should be the site admin");
    const all = await api<Org[]>(forge.url, "GET", "/admin/orgs?limit=50", {
      token: forge.adminToken,
      shape: "Organization[]",
    });
    assert.ok(all.body.some((o) => o.name === "sams-org"));
    assert.equal(all.headers.get("x-total-count"), String(all.body.length));
    const adminOnly = await api<ErrorBody>(forge.url, "GET", "/admin/orgs", { token: sam.token });
    assert.equal(adminOnly.status, 403);
    assert.equal((await api(forge.url, "GET", "/admin/orgs")).status, 401);
  });

  test("token scopes: organization routes need the organization category, admin ones admin", async () => {
    const tess = await person("tess");
    await makeOrg(tess, { username: "scoped" });
    const tokenWith = async (name: string, scopes: string[]) => {
      const res = await api<{ sha1: string }>(forge.url, "POST", "/users/tess/tokens", {
        auth: `Basic ${Buffer.from("tess:password123").toString("base64")}`,
        body: { name, scopes },
      });
      return res.body.sha1;
    };
    const reader = await tokenWith("org-read", ["read:organization"]);
    const userOnly = await tokenWith("user-only", ["read:user", "write:user"]);
    assert.equal((await api(forge.url, "GET", "/orgs/scoped", { token: reader })).status, 200);
    assert.equal((await api(forge.url, "GET", "/user/orgs", { token: reader })).status, 200);
    const write = await api<ErrorBody>(forge.url, "PATCH", "/orgs/scoped", { token: reader, body: {} });
    assert.equal(write.status, 403);
    assert.match(write.body.message, /required=\[write:organization\]/);
    assert.equal(
      (await api(forge.url, "POST", "/orgs", { token: reader, body: { username: "nope" } })).status,
      403,
    );
    assert.equal((await api(forge.url, "GET", "/orgs/scoped", { token: userOnly })).status, 403);
    const adminRead = await api<ErrorBody>(forge.url, "GET", "/admin/orgs", {
      token: await (async () => {
        const res = await api<{ sha1: string }>(forge.url, "POST", "/users/root/tokens", {
          auth: `Basic ${Buffer.from("root:rootpassword").toString("base64")}`,
          body: { name: "org-only", scopes: ["write:organization"] },
        });
        return res.body.sha1;
      })(),
    });
    assert.equal(adminRead.status, 403);
    assert.match(adminRead.body.message, /required=\[read:admin write:admin\]/);
  });

  test("gitea-js, the npm client, manages organizations unchanged", async () => {
    const gina = await person("gina");
    const client = giteaApi(forge.url, { token: gina.token, customFetch: fetch });
    const created = await client.orgs.orgCreate({ username: "gitea-js-org", full_name: "Via gitea-js" });
    assert.equal(created.status, 201);
    const got = await client.orgs.orgGet("gitea-js-org");
    assert.equal(got.data.full_name, "Via gitea-js");
    const teams = await client.orgs.orgListTeams("gitea-js-org");
    assert.equal(teams.data[0].name, "Owners");
    const edited = await client.orgs.orgEdit("gitea-js-org", { description: "edited" });
    assert.equal(edited.data.description, "edited");
    await assert.rejects(client.orgs.orgCreate({ username: "gitea-js-org" }), (error: Response) => {
      assert.equal(error.status, 422);
      return true;
    });
    const deleted = await client.orgs.orgDelete("gitea-js-org");
    assert.equal(deleted.status, 204);
  });
});
