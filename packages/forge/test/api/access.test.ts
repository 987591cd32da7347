// Who may see and do what with a repository, decided in one place (services/access.ts): per unit
// through teams, the same visibility for single repositories and every list, restricted users,
// collaborator look-ups. Driven over HTTP and with the real git client, over HTTP and SSH.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { generateKey, gitSshCommand } from "../ssh/tools.ts";
import { api, basic, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";
import { ALL_UNITS } from "../support/units.ts";

interface Repo {
  full_name: string;
  permissions: { admin: boolean; push: boolean; pull: boolean };
}

forEachForge(
  "forge: access per unit, one visibility rule, restricted users, collaborator look-ups",
  (forge) => {
    let work: TempDir;
    let dirs = 0;
    const people = new Map<string, Person>();

    before(async () => {
      work = await tempDir("anvil-access-");
    });
    after(() => work.remove());

    async function person(name: string, extra: Record<string, unknown> = {}): Promise<Person> {
      let known = people.get(name);
      if (!known) {
        known = await makePerson(forge.url, forge.adminToken, name, extra);
        people.set(name, known);
      }
      return known;
    }
    const token = async (name: string) => (await person(name)).token;

    async function call<T = unknown>(name: string | undefined, method: string, path: string, body?: unknown) {
      return api<T>(forge.url, method, path, { token: name ? await token(name) : undefined, body });
    }

    async function ok(answer: Promise<{ status: number; body: unknown }>, status: number) {
      const { status: got, body } = await answer;
      assert.equal(got, status, JSON.stringify(body));
    }

    /** A team of `org` made by its owner, given the repositories and members named. */
    async function team(
      owner: string,
      org: string,
      body: Record<string, unknown>,
      repos: string[],
      members: string[],
    ) {
      const made = await call<{ id: number }>(owner, "POST", `/orgs/${org}/teams`, body);
      assert.equal(made.status, 201, JSON.stringify(made.body));
      for (const repo of repos)
        await ok(call(owner, "PUT", `/teams/${made.body.id}/repos/${org}/${repo}`), 204);
      for (const member of members) {
        await person(member);
        await ok(call(owner, "PUT", `/teams/${made.body.id}/members/${member}`), 204);
      }
      return made.body.id;
    }

    /** `git clone` into a new directory; its result and the directory. */
    async function clone(url: string, env: NodeJS.ProcessEnv = {}) {
      const dir = join(work.path, `clone-${++dirs}`);
      return { ...(await git(["clone", "-q", url, dir], work.path, env)), dir };
    }

    /** A push of a new commit on a new branch from a fresh local repository. */
    async function push(url: string, env: NodeJS.ProcessEnv = {}) {
      const dir = join(work.path, `push-${++dirs}`);
      await git(["init", "-q", "-b", "main", dir], work.path);
      await git(["commit", "-q", "--allow-empty", "-m", "from a test"], dir);
      return git(["push", "-q", url, `main:refs/heads/side-${dirs}`], dir, env);
    }

    const httpUrl = (user: string, repo: string) =>
      `${withCredentials(forge.url, user, "password123")}/${repo}.git`;

    before(async () => {
      await person("olga");
      await ok(call("olga", "POST", "/orgs", { username: "acme" }), 201);
      await ok(
        call("olga", "POST", "/orgs/acme/repos", { name: "vault", private: true, auto_init: true }),
        201,
      );
      await ok(call("olga", "POST", "/orgs/acme/repos", { name: "commons", auto_init: true }), 201);
      await ok(call("olga", "POST", "/user/repos", { name: "open", auto_init: true }), 201);
    });

    test("a team with issues write but no code can neither clone nor push a private repository, over HTTP or SSH", async () => {
      await team(
        "olga",
        "acme",
        { name: "issuers", units_map: { "repo.issues": "write", "repo.code": "none" } },
        ["vault"],
        ["ivy"],
      );
      await team("olga", "acme", { name: "readers", units_map: { "repo.code": "read" } }, ["vault"], ["rob"]);

      const seen = await call<Repo>("ivy", "GET", "/repos/acme/vault");
      assert.equal(seen.status, 200, "a readable unit (issues) makes the repository visible");
      assert.deepEqual(seen.body.permissions, { admin: false, push: false, pull: false });
      assert.equal((await clone(httpUrl("ivy", "acme/vault"))).code === 0, false, "no clone without code");
      assert.notEqual((await push(httpUrl("ivy", "acme/vault"))).code, 0, "no push without code");
      const refs = await fetch(`${forge.url}/acme/vault.git/info/refs?service=git-upload-pack`, {
        headers: { authorization: basic("ivy", "password123") },
      });
      assert.equal(refs.status, 404);
      await ok(call("ivy", "GET", "/repos/acme/vault/branches"), 403);
      await ok(call("ivy", "PATCH", "/repos/acme/vault", { description: "mine now" }), 403);
      await ok(call("ivy", "DELETE", "/repos/acme/vault"), 403);

      const read = await call<Repo>("rob", "GET", "/repos/acme/vault");
      assert.deepEqual(read.body.permissions, { admin: false, push: false, pull: true });
      const robClone = await clone(httpUrl("rob", "acme/vault"));
      assert.equal(robClone.code, 0, robClone.stderr);
      const robPush = await push(httpUrl("rob", "acme/vault"));
      assert.notEqual(robPush.code, 0);
      assert.match(robPush.stderr, /403/);
      await ok(call("rob", "GET", "/repos/acme/vault/branches"), 200);

      // The same rule over SSH.
      const keys = join(work.path, "keys");
      await mkdir(keys);
      const sshUrl = `ssh://git@127.0.0.1:${forge.sshPort}/acme/vault.git`;
      for (const name of ["ivy", "rob"]) {
        const pair = await generateKey(keys, name, ["-t", "ed25519"]);
        await ok(call(name, "POST", "/user/keys", { title: "laptop", key: pair.publicText }), 201);
      }
      const viaSsh = (name: string) => ({ GIT_SSH_COMMAND: gitSshCommand(join(keys, name)) });
      const ivySsh = await clone(sshUrl, viaSsh("ivy"));
      assert.notEqual(ivySsh.code, 0);
      assert.match(ivySsh.stderr, /repository does not exist/);
      assert.notEqual((await push(sshUrl, viaSsh("ivy"))).code, 0);
      const robSsh = await clone(sshUrl, viaSsh("rob"));
      assert.equal(robSsh.code, 0, robSsh.stderr);
      const robSshPush = await push(sshUrl, viaSsh("rob"));
      assert.match(robSshPush.stderr, /you do not have permission to push/);
    });

    test("a member's access follows changes to their team's units and membership, kept answers included", async () => {
      const teams = await call<Array<{ id: number; name: string }>>("olga", "GET", "/orgs/acme/teams");
      const readers = teams.body.find((t) => t.name === "readers");
      assert.ok(readers);
      const permissions = async () => {
        // Twice: the second answer is the one a kept rendering or kept access would give.
        await call("rob", "GET", "/repos/acme/vault");
        const seen = await call<Repo>("rob", "GET", "/repos/acme/vault");
        return seen.status === 200 ? seen.body.permissions : seen.status;
      };
      assert.deepEqual(await permissions(), { admin: false, push: false, pull: true });
      await ok(call("olga", "PATCH", `/teams/${readers.id}`, { units_map: { "repo.code": "write" } }), 200);
      assert.deepEqual(await permissions(), { admin: false, push: true, pull: true });
      await ok(
        call("olga", "PATCH", `/teams/${readers.id}`, {
          units_map: { "repo.code": "none", "repo.pulls": "read" },
        }),
        200,
      );
      assert.deepEqual(await permissions(), { admin: false, push: false, pull: false });
      await ok(call("rob", "GET", "/repos/acme/vault/commits"), 403);
      await ok(call("olga", "DELETE", `/teams/${readers.id}/members/rob`), 204);
      assert.equal(await permissions(), 404);
    });

    test("team units: every unit Gitea 1.25 knows is accepted; a unit mode is none, read, write or admin", async () => {
      const everyUnit = Object.fromEntries(ALL_UNITS.map((unit) => [unit, "read"]));
      const made = await call<{ units_map: Record<string, string> }>("olga", "POST", "/orgs/acme/teams", {
        name: "everything",
        units_map: everyUnit,
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.deepEqual(made.body.units_map, everyUnit);
      const listed = await call("olga", "POST", "/orgs/acme/teams", {
        name: "listed",
        permission: "write",
        units: ALL_UNITS,
      });
      assert.equal(listed.status, 201, JSON.stringify(listed.body));
      const owner = await call<{ message: string }>("olga", "POST", "/orgs/acme/teams", {
        name: "owners-too",
        units_map: { "repo.code": "owner" },
      });
      assert.equal(owner.status, 422);
      assert.match(owner.body.message, /invalid access mode \[unit: repo.code, mode: owner\]/);
    });

    test("lists show public repositories only of owners the caller may see, as the single GET does", async () => {
      await person("pam");
      await person("otto");
      await person("lim", { visibility: "limited" });
      await ok(call("pam", "POST", "/orgs", { username: "shadow", visibility: "private" }), 201);
      await ok(call("pam", "POST", "/orgs/shadow/repos", { name: "pubshadow" }), 201);
      await ok(call("lim", "POST", "/user/repos", { name: "pubbylim" }), 201);
      const names = async (who: string | undefined) => {
        const found = await call<{ ok: boolean; data: Repo[] }>(who, "GET", "/repos/search?q=pub&limit=50");
        assert.equal(found.status, 200);
        const all = found.body.data.map((repo) => repo.full_name);
        assert.equal(
          found.headers.get("x-total-count"),
          String(all.length),
          "the count follows the same rule",
        );
        return all.sort();
      };
      const pubshadow = await names(undefined);
      assert.deepEqual(pubshadow, [], "anonymous callers see public owners only");
      assert.deepEqual(
        await names("otto"),
        ["lim/pubbylim"],
        "a limited owner is visible to the signed-in, a private org is not",
      );
      assert.deepEqual(await names("pam"), ["lim/pubbylim", "shadow/pubshadow"]);
      const shadowed = await call<{ data: Repo[] }>("otto", "GET", "/repos/search?q=pubshadow");
      assert.deepEqual(shadowed.body.data, []);
      await ok(call("otto", "GET", "/repos/shadow/pubshadow"), 404);
      await ok(call(undefined, "GET", "/repos/lim/pubbylim"), 404);
      await ok(call(undefined, "GET", "/users/lim/repos"), 404);
      await ok(call("otto", "GET", "/orgs/shadow/repos"), 404);
      const mine = await call<Repo[]>("pam", "GET", "/orgs/shadow/repos");
      assert.deepEqual(
        mine.body.map((repo) => repo.full_name),
        ["shadow/pubshadow"],
      );
    });

    test("a restricted user reads only what they are given: collaborations and their organizations", async () => {
      await person("rita", { restricted: true });
      await ok(call("rita", "GET", "/repos/olga/open"), 404);
      await ok(call("rita", "GET", "/repos/acme/commons"), 404);
      const searched = await call<{ data: Repo[] }>("rita", "GET", "/repos/search?q=o&limit=50");
      assert.deepEqual(searched.body.data, []);
      const listed = await call<Repo[]>("rita", "GET", "/users/olga/repos");
      assert.ok(listed.status === 404 || listed.body.length === 0, JSON.stringify(listed.body));
      // Git too, where signing in is what would let a user read: a limited owner's public repository.
      await ok(call("otto", "GET", "/repos/lim/pubbylim"), 200);
      const signedIn = await clone(httpUrl("otto", "lim/pubbylim"));
      assert.equal(signedIn.code, 0, signedIn.stderr);
      await ok(call("rita", "GET", "/repos/lim/pubbylim"), 404);
      assert.notEqual(
        (await clone(httpUrl("rita", "lim/pubbylim"))).code,
        0,
        "git refuses a restricted user",
      );

      await ok(call("olga", "PUT", "/repos/olga/open/collaborators/rita", { permission: "read" }), 204);
      await ok(call("rita", "GET", "/repos/olga/open"), 200);
      const collaborating = await clone(httpUrl("rita", "olga/open"));
      assert.equal(collaborating.code, 0, collaborating.stderr);

      await team("olga", "acme", { name: "guests", units_map: { "repo.issues": "read" } }, [], ["rita"]);
      await ok(call("rita", "GET", "/repos/acme/commons"), 200);
      await ok(call("rita", "GET", "/repos/acme/vault"), 404);
      const inOrg = await call<{ data: Repo[] }>("rita", "GET", "/repos/search?q=o&limit=50");
      assert.deepEqual(inOrg.body.data.map((repo) => repo.full_name).sort(), ["acme/commons", "olga/open"]);
    });

    test("collaborator look-ups need a signed-in caller; permissions only for admins of the repository or the user themself", async () => {
      await person("otto");
      await person("cole");
      await ok(call("olga", "PUT", "/repos/olga/open/collaborators/cole", { permission: "write" }), 204);
      await ok(call(undefined, "GET", "/repos/olga/open/collaborators"), 401);
      await ok(call(undefined, "GET", "/repos/olga/open/collaborators/cole"), 401);
      await ok(call(undefined, "GET", "/repos/olga/open/collaborators/cole/permission"), 401);
      await ok(call("otto", "GET", "/repos/olga/open/collaborators"), 200);

      const refused = await call<{ message: string }>(
        "otto",
        "GET",
        "/repos/olga/open/collaborators/cole/permission",
      );
      assert.equal(refused.status, 403);
      assert.equal(
        refused.body.message,
        "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own",
      );
      await ok(call("cole", "GET", "/repos/olga/open/collaborators/otto/permission"), 403);
      const own = await call<{ permission: string }>(
        "cole",
        "GET",
        "/repos/olga/open/collaborators/Cole/permission",
      );
      assert.equal(own.status, 200);
      assert.equal(own.body.permission, "write");
      const byOwner = await call<{ permission: string }>(
        "olga",
        "GET",
        "/repos/olga/open/collaborators/otto/permission",
      );
      assert.equal(byOwner.body.permission, "read");
      const bySiteAdmin = await api<{ permission: string }>(
        forge.url,
        "GET",
        "/repos/olga/open/collaborators/cole/permission",
        {
          token: forge.adminToken,
        },
      );
      assert.equal(bySiteAdmin.body.permission, "write");
      await ok(call("olga", "GET", "/repos/olga/open/collaborators/nobody/permission"), 404);
    });

    test("a public-only token lists only the public repositories of a team", async () => {
      const teams = await call<Array<{ id: number; name: string }>>("olga", "GET", "/orgs/acme/teams");
      const owners = teams.body.find((t) => t.name === "Owners");
      assert.ok(owners);
      const all = await call<Repo[]>("olga", "GET", `/teams/${owners.id}/repos`);
      assert.deepEqual(
        all.body.map((repo) => repo.full_name),
        ["acme/commons", "acme/vault"],
      );
      const made = await api<{ sha1: string }>(forge.url, "POST", "/users/olga/tokens", {
        auth: basic("olga", "password123"),
        body: { name: "public", scopes: ["public-only", "read:organization"] },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const publicOnly = await api<Repo[]>(forge.url, "GET", `/teams/${owners.id}/repos`, {
        token: made.body.sha1,
      });
      assert.equal(publicOnly.status, 200);
      assert.deepEqual(
        publicOnly.body.map((repo) => repo.full_name),
        ["acme/commons"],
      );
      assert.equal(publicOnly.headers.get("x-total-count"), "1");
    });
  },
  { ssh: true },
);
