import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";
import { payloadOf, type Receiver, startReceiver } from "../support/receiver.ts";

// Forks: a real bare repository made from the parent's objects, its row and directory made
// together, one per owner and parent, surviving the parent's deletion; `fork`, `parent` and
// `forks_count` on repository objects; the `fork` webhook.

interface Repo {
  id: number;
  full_name: string;
  fork: boolean;
  private: boolean;
  forks_count: number;
  default_branch: string;
  parent: Repo | null;
}

forEachForge(
  "forks",
  (forge) => {
    const cast = {} as Record<"alice" | "bob" | "carol" | "dave" | "erin", Person>;
    let work: TempDir;
    let receiver: Receiver;
    let dirs = 0;

    const call = <T = Repo>(who: Person | undefined, method: string, path: string, body?: unknown) =>
      api<T & { message: string }>(forge.url, method, path, { token: who?.token, body });
    const fork = (who: Person, path: string, body: Record<string, unknown> = {}) =>
      api<Repo & { message: string }>(forge.url, "POST", `/repos/${path}/forks`, {
        token: who.token,
        body,
        shape: "Repository",
      });
    const cloneUrl = (path: string, who?: Person) =>
      who ? `${withCredentials(forge.url, who.login, who.token)}/${path}.git` : `${forge.url}/${path}.git`;

    async function clone(path: string, who?: Person) {
      const dir = join(work.path, `clone-${++dirs}`);
      const result = await git(["clone", "-q", cloneUrl(path, who), dir], work.path);
      return { ...result, dir };
    }
    async function log(dir: string): Promise<string> {
      const result = await git(["log", "--format=%H %s", "--all"], dir);
      assert.equal(result.code, 0, result.stderr);
      return result.stdout;
    }
    /** The repository directories under the data directory (what a failed fork must not leave). */
    function storedUnder(owner: string): string[] {
      const folder = join(forge.server.dataDir, "repositories", owner);
      return existsSync(folder) ? readdirSync(folder).sort() : [];
    }

    before(async () => {
      work = await tempDir("anvil-forge-forks-");
      receiver = await startReceiver();
      for (const name of ["alice", "bob", "carol", "dave", "erin"] as const)
        cast[name] = await makePerson(forge.url, forge.adminToken, name);
      for (const [name, priv] of [
        ["lib", false],
        ["secret", true],
        ["doomed", false],
      ] as const) {
        const made = await call(cast.alice, "POST", "/user/repos", { name, auto_init: true, private: priv });
        assert.equal(made.status, 201, JSON.stringify(made.body));
      }
      // A second commit on a second branch, so the fork has history and more than one ref to copy.
      const work1 = await clone("alice/lib", cast.alice);
      assert.equal(work1.code, 0, work1.stderr);
      await git(["checkout", "-q", "-b", "feature"], work1.dir);
      await git(
        ["-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "--allow-empty", "-m", "two"],
        work1.dir,
      );
      const pushed = await git(["push", "-q", "origin", "feature"], work1.dir);
      assert.equal(pushed.code, 0, pushed.stderr);
    });
    after(async () => {
      await receiver.close();
      await work.remove();
    });

    test("a fork is a 202 Repository with its parent, and a clone of it has the parent's history", async () => {
      const made = await fork(cast.bob, "alice/lib");
      assert.equal(made.status, 202, JSON.stringify(made.body));
      assert.equal(made.body.full_name, "bob/lib");
      assert.equal(made.body.fork, true);
      assert.equal(made.body.private, false);
      assert.equal(made.body.parent?.full_name, "alice/lib");
      assert.equal(made.body.parent?.parent, null);
      assert.equal(made.body.default_branch, "main");

      const parent = await call(cast.bob, "GET", "/repos/alice/lib");
      assert.equal(parent.body.forks_count, 1);
      assert.equal(parent.body.fork, false);
      assert.equal(parent.body.parent, null);
      const shown = await api<Repo>(forge.url, "GET", "/repos/bob/lib", { shape: "Repository" });
      assert.equal(shown.body.parent?.full_name, "alice/lib");

      // The fork's object files are the parent's, hard-linked (the data directory is one filesystem).
      const objects = join(forge.server.dataDir, "repositories", "bob", "lib.git", "objects");
      const files = readdirSync(objects, { recursive: true, withFileTypes: true }).filter((entry) =>
        entry.isFile(),
      );
      assert.ok(files.length > 0);
      assert.ok(files.every((entry) => statSync(join(entry.parentPath, entry.name)).nlink > 1));
      assert.equal(existsSync(join(objects, "info", "alternates")), false);

      const original = await clone("alice/lib");
      const copy = await clone("bob/lib");
      assert.equal(copy.code, 0, copy.stderr);
      assert.equal(await log(copy.dir), await log(original.dir));
      assert.match(await log(copy.dir), / two\n/);

      // The fork takes pushes of its own; the parent does not see them.
      await git(
        [
          "-c",
          "user.name=B",
          "-c",
          "user.email=b@example.com",
          "commit",
          "-q",
          "--allow-empty",
          "-m",
          "bob's",
        ],
        copy.dir,
      );
      const pushed = await git(["push", "-q", cloneUrl("bob/lib", cast.bob), "HEAD:main"], copy.dir);
      assert.equal(pushed.code, 0, pushed.stderr);
      const again = await clone("alice/lib");
      assert.doesNotMatch(await log(again.dir), /bob's/);

      const listed = await api<Repo[]>(forge.url, "GET", "/repos/alice/lib/forks", { shape: "Repository[]" });
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.map((repo) => repo.full_name),
        ["bob/lib"],
      );
      assert.equal(listed.headers.get("x-total-count"), "1");
      const search = await api<{ data: Repo[] }>(forge.url, "GET", "/repos/search?mode=fork");
      assert.deepEqual(
        search.body.data.map((repo) => repo.full_name),
        ["bob/lib"],
      );
    });

    test("a second fork into the same owner, or onto a taken name, is a 409 that leaves nothing", async () => {
      const again = await fork(cast.bob, "alice/lib", { name: "lib-again" });
      assert.equal(again.status, 409);
      assert.match(
        again.body.message,
        /^repository is already forked by user \[uname: bob, repo path: alice\/lib, fork path: bob\/lib\]/,
      );
      assert.equal((await call(cast.bob, "GET", "/repos/bob/lib-again")).status, 404);

      const taken = await call(cast.carol, "POST", "/user/repos", { name: "lib" });
      assert.equal(taken.status, 201);
      const clash = await fork(cast.carol, "alice/lib");
      assert.equal(clash.status, 409);
      assert.equal(clash.body.message, "The repository with the same name already exists.");
      const renamed = await fork(cast.carol, "alice/lib", { name: "lib-fork" });
      assert.equal(renamed.status, 202, JSON.stringify(renamed.body));
      assert.deepEqual(storedUnder("carol"), ["lib-fork.git", "lib.git"]);
      assert.equal((await call(cast.carol, "GET", "/repos/alice/lib")).body.forks_count, 2);

      for (const name of ["bad/name", "..", "x.git", "-"]) {
        const refused = await fork(cast.dave, "alice/lib", { name });
        assert.equal(refused.status, 422, `${name}: ${JSON.stringify(refused.body)}`);
      }
      assert.deepEqual(storedUnder("dave"), []);
    });

    test("forks racing into one owner: one 202, the others 409, one repository on disk", async () => {
      const answers = await Promise.all(
        ["a", "b", "c", "d"].map((suffix) => fork(cast.dave, "alice/lib", { name: `race-${suffix}` })),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [202, 409, 409, 409], JSON.stringify(answers.map((a) => a.body)));
      const winner = answers.find((answer) => answer.status === 202)?.body.full_name;
      assert.deepEqual(storedUnder("dave"), [`${winner?.split("/")[1]}.git`]);
      const leftovers = join(forge.server.dataDir, "repositories", ".staging");
      assert.deepEqual(existsSync(leftovers) ? readdirSync(leftovers) : [], []);
      const listed = await call<Repo[]>(cast.dave, "GET", "/repos/alice/lib/forks");
      assert.equal(listed.body.filter((repo) => repo.full_name.startsWith("dave/")).length, 1);
    });

    test("a private repository: only readers may fork it, its fork is private and hidden as it is", async () => {
      const hidden = await fork(cast.erin, "alice/secret");
      assert.equal(hidden.status, 404);
      const added = await call(cast.alice, "PUT", "/repos/alice/secret/collaborators/erin", {
        permission: "read",
      });
      assert.equal(added.status, 204);
      const made = await fork(cast.erin, "alice/secret");
      assert.equal(made.status, 202, JSON.stringify(made.body));
      assert.equal(made.body.private, true);
      assert.equal((await call(undefined, "GET", "/repos/erin/secret")).status, 404);
      assert.equal((await call(cast.bob, "GET", "/repos/erin/secret")).status, 404);
      // The forks list shows each caller only the forks they may see.
      const asBob = await call<Repo[]>(cast.bob, "GET", "/repos/alice/secret/forks");
      assert.equal(asBob.status, 404);
      const asAlice = await call<Repo[]>(cast.alice, "GET", "/repos/alice/secret/forks");
      assert.deepEqual(
        asAlice.body.map((repo) => repo.full_name),
        [],
      );
      const asErin = await call<Repo[]>(cast.erin, "GET", "/repos/alice/secret/forks");
      assert.deepEqual(
        asErin.body.map((repo) => repo.full_name),
        ["erin/secret"],
      );
      const copy = await clone("erin/secret", cast.erin);
      assert.equal(copy.code, 0, copy.stderr);
    });

    test("into an organization: its creators may, others get 403, a missing one 422", async () => {
      const org = await call(cast.carol, "POST", "/orgs", { username: "forkers" });
      assert.equal(org.status, 201, JSON.stringify(org.body));
      const member = await call<{ id: number }>(cast.carol, "POST", "/orgs/forkers/teams", {
        name: "readers",
        permission: "read",
        units: ["repo.code"],
        can_create_org_repo: false,
      });
      assert.equal(member.status, 201, JSON.stringify(member.body));
      assert.equal((await call(cast.carol, "PUT", `/teams/${member.body.id}/members/bob`)).status, 204);
      const refused = await fork(cast.bob, "alice/lib", { organization: "forkers" });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.message, "User is not allowed to create repositories in this organization.");
      const missing = await fork(cast.bob, "alice/lib", { organization: "nowhere" });
      assert.equal(missing.status, 422);
      const made = await fork(cast.carol, "alice/lib", { organization: "forkers" });
      assert.equal(made.status, 202, JSON.stringify(made.body));
      assert.equal(made.body.full_name, "forkers/lib");
      assert.deepEqual(storedUnder("forkers"), ["lib.git"]);
    });

    test("an empty repository forks too, and the fork takes a first push", async () => {
      assert.equal((await call(cast.alice, "POST", "/user/repos", { name: "blank" })).status, 201);
      const made = await fork(cast.bob, "alice/blank");
      assert.equal(made.status, 202, JSON.stringify(made.body));
      const dir = join(work.path, `push-${++dirs}`);
      await git(["init", "-q", "-b", "main", dir], work.path);
      await git(
        [
          "-c",
          "user.name=B",
          "-c",
          "user.email=b@example.com",
          "commit",
          "-q",
          "--allow-empty",
          "-m",
          "first",
        ],
        dir,
      );
      const pushed = await git(["push", "-q", cloneUrl("bob/blank", cast.bob), "main"], dir);
      assert.equal(pushed.code, 0, pushed.stderr);
      const copy = await clone("bob/blank");
      assert.match(await log(copy.dir), / first\n/);
      assert.equal((await call(cast.bob, "GET", "/repos/bob/blank")).body.default_branch, "main");
    });

    test("a team that reaches an organization's repository without its code may not fork it", async () => {
      const made = await call(cast.carol, "POST", "/orgs/forkers/repos", {
        name: "inner",
        auto_init: true,
        private: true,
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const team = await call<{ id: number }>(cast.carol, "POST", "/orgs/forkers/teams", {
        name: "issuers",
        units_map: { "repo.code": "none", "repo.issues": "write" },
        includes_all_repositories: true,
      });
      assert.equal(team.status, 201, JSON.stringify(team.body));
      assert.equal((await call(cast.carol, "PUT", `/teams/${team.body.id}/members/dave`)).status, 204);
      assert.equal((await call(cast.dave, "GET", "/repos/forkers/inner")).status, 200);
      const refused = await fork(cast.dave, "forkers/inner");
      assert.equal(refused.status, 403);
      assert.equal((await call(cast.dave, "GET", "/repos/dave/inner")).status, 404);
      assert.ok(!storedUnder("dave").includes("inner.git"));
    });

    test("the parent's hooks hear `fork`: forkee the parent, repository the fork (as Gitea sends it)", async () => {
      const hook = await call(cast.alice, "POST", "/repos/alice/doomed/hooks", {
        type: "gitea",
        config: { url: receiver.url, content_type: "json" },
        events: ["fork"],
        active: true,
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const from = receiver.received.length;
      const made = await fork(cast.bob, "alice/doomed");
      assert.equal(made.status, 202);
      const delivery = await receiver.next((r) => r.headers["x-gitea-event"] === "fork", from);
      const payload = payloadOf<{ forkee: Repo; repository: Repo; sender: { login: string } }>(delivery);
      assert.equal(payload.forkee.full_name, "alice/doomed");
      assert.equal(payload.repository.full_name, "bob/doomed");
      assert.equal(payload.repository.fork, true);
      assert.equal(payload.sender.login, "bob");
    });

    test("a fork survives its parent's deletion: it still clones whole, and its parent is null", async () => {
      const before = await clone("bob/doomed");
      assert.equal(before.code, 0, before.stderr);
      const history = await log(before.dir);
      assert.equal((await call(cast.alice, "DELETE", "/repos/alice/doomed")).status, 204);
      const after = await clone("bob/doomed");
      assert.equal(after.code, 0, after.stderr);
      assert.equal(await log(after.dir), history);
      const fsck = await git(
        ["--git-dir", join(forge.server.dataDir, "repositories", "bob", "doomed.git"), "fsck", "--full"],
        work.path,
      );
      assert.equal(fsck.code, 0, fsck.stderr);
      const shown = await api<Repo>(forge.url, "GET", "/repos/bob/doomed", { shape: "Repository" });
      assert.equal(shown.body.fork, true);
      assert.equal(shown.body.parent, null);
    });

    test("deleting a fork counts it off its parent", async () => {
      const before = (await call(cast.alice, "GET", "/repos/alice/lib")).body.forks_count;
      assert.equal((await call(cast.carol, "DELETE", "/repos/carol/lib-fork")).status, 204);
      assert.equal((await call(cast.alice, "GET", "/repos/alice/lib")).body.forks_count, before - 1);
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);
