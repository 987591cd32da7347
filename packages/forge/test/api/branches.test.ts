import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";
import { payloadOf, type Receiver, startReceiver } from "../support/receiver.ts";

interface Branch {
  name: string;
  commit: { id: string };
  protected: boolean;
  user_can_push: boolean;
  user_can_merge: boolean;
  effective_branch_protection_name: string;
}
interface ErrorBody {
  message: string;
}

forEachForge(
  "forge branches: create from any ref, delete, rename, races, webhooks",
  (forge) => {
    const cast = {} as Record<"ann" | "ben" | "rae", Person>;
    let work: TempDir;
    let receiver: Receiver;
    let head = "";

    const repoPath = "/repos/ann/tree";
    const call = <T = Branch & ErrorBody>(
      who: Person | undefined,
      method: string,
      path: string,
      body?: unknown,
    ) => api<T>(forge.url, method, `${repoPath}${path}`, { token: who?.token, body });
    const remoteRefs = async () => {
      const listed = await git(["ls-remote", `${forge.url}/ann/tree.git`], work.path);
      assert.equal(listed.code, 0, listed.stderr);
      return new Map(
        listed.stdout
          .trim()
          .split("\n")
          .map((line) => line.split("\t").reverse() as [string, string]),
      );
    };

    before(async () => {
      work = await tempDir("anvil-forge-branches-");
      receiver = await startReceiver();
      for (const name of ["ann", "ben", "rae"] as const)
        cast[name] = await makePerson(forge.url, forge.adminToken, name);
      const made = await api(forge.url, "POST", "/user/repos", {
        token: cast.ann.token,
        body: { name: "tree", auto_init: true },
      });
      assert.equal(made.status, 201);
      for (const [who, permission] of [
        ["ben", "write"],
        ["rae", "read"],
      ])
        assert.equal(
          (
            await api(forge.url, "PUT", `${repoPath}/collaborators/${who}`, {
              token: cast.ann.token,
              body: { permission },
            })
          ).status,
          204,
        );
      const hook = await api(forge.url, "POST", `${repoPath}/hooks`, {
        token: cast.ann.token,
        body: {
          type: "gitea",
          config: { url: receiver.url, content_type: "json" },
          events: ["create", "delete"],
          active: true,
        },
      });
      assert.equal(hook.status, 201);
      // A second commit on main, so a branch from the first one differs from the default.
      const clone = await git(
        ["clone", withCredentials(`${forge.url}/ann/tree.git`, "ann", cast.ann.token), "c"],
        work.path,
      );
      assert.equal(clone.code, 0, clone.stderr);
      const dir = join(work.path, "c");
      await git(
        [
          "-c",
          "user.name=ann",
          "-c",
          "user.email=ann@example.com",
          "commit",
          "--allow-empty",
          "-qm",
          "second",
        ],
        dir,
      );
      assert.equal((await git(["push", "-q", "origin", "main"], dir)).code, 0);
      head = (await git(["rev-parse", "HEAD"], dir)).stdout.trim();
    });
    after(async () => {
      await receiver.close();
      await work.remove();
    });

    test("create: from the default branch, a branch, a tag or a commit (201 Branch), announced by a create event", async () => {
      const from = receiver.received.length;
      const made = await api<Branch>(forge.url, "POST", `${repoPath}/branches`, {
        token: cast.ben.token,
        body: { new_branch_name: "feature" },
        shape: "Branch",
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.name, "feature");
      assert.equal(made.body.commit.id, head);
      assert.equal(made.body.protected, false);
      assert.equal(made.body.user_can_push, true);
      const created = await receiver.next((r) => r.headers["x-gitea-event"] === "create", from);
      assert.deepEqual(
        (({ ref, ref_type, sha }) => ({ ref, ref_type, sha }))(
          payloadOf<{ ref: string; ref_type: string; sha: string }>(created),
        ),
        { ref: "feature", ref_type: "branch", sha: head },
      );

      const first = (await git(["rev-parse", "HEAD~1"], join(work.path, "c"))).stdout.trim();
      const tag = await call(cast.ann, "POST", "/tags", { tag_name: "v0", target: first });
      assert.equal(tag.status, 201, JSON.stringify(tag.body));
      const cases: Array<[Record<string, string>, string]> = [
        [{ new_branch_name: "from-commit", old_ref_name: first }, first],
        [{ new_branch_name: "from-tag", old_ref_name: "v0" }, first],
        [{ new_branch_name: "from-branch", old_ref_name: "feature" }, head],
        [{ new_branch_name: "from-full-ref", old_ref_name: "refs/tags/v0" }, first],
        [{ new_branch_name: "deprecated-field", old_branch_name: "feature" }, head],
        [{ new_branch_name: "nested/name" }, head],
      ];
      for (const [body, id] of cases) {
        const res = await call(cast.ben, "POST", "/branches", body);
        assert.equal(res.status, 201, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.commit.id, id, JSON.stringify(body));
      }
      const refs = await remoteRefs();
      assert.equal(refs.get("refs/heads/from-commit"), first);
      assert.equal(refs.get("refs/heads/nested/name"), head);
      const nested = await api<Branch>(forge.url, "GET", `${repoPath}/branches/nested/name`, {
        shape: "Branch",
      });
      assert.equal(nested.status, 200);
      assert.equal(nested.body.name, "nested/name");
    });

    test("create: 409 for a taken name, 404 for a missing start, 422 for names git or Gitea refuse, 403/401 without write", async () => {
      const taken = await call(cast.ben, "POST", "/branches", { new_branch_name: "feature" });
      assert.equal(taken.status, 409);
      assert.equal(taken.body.message, "The branch already exists.");
      assert.equal((await call(cast.ben, "POST", "/branches", { new_branch_name: "v0" })).status, 409);
      // A branch below an existing one (or above) cannot exist beside it in git.
      assert.equal((await call(cast.ben, "POST", "/branches", { new_branch_name: "feature/x" })).status, 409);
      for (const body of [
        { new_branch_name: "x", old_ref_name: "no-such-ref" },
        { new_branch_name: "x", old_branch_name: "no-such-branch" },
        { new_branch_name: "x", old_ref_name: "--output=/tmp/x" },
      ]) {
        const res = await call(cast.ben, "POST", "/branches", body);
        assert.equal(res.status, 404, JSON.stringify(body));
      }
      for (const name of [
        "a..b",
        "-x",
        "refs/heads/x",
        "a\u0000b",
        "x@{1}",
        "",
        "a b",
        "x.lock",
        "a/",
        "x".repeat(101),
      ]) {
        const res = await call(cast.ben, "POST", "/branches", { new_branch_name: name });
        assert.equal(res.status, 422, `${JSON.stringify(name)}: ${JSON.stringify(res.body)}`);
      }
      assert.equal((await call(cast.rae, "POST", "/branches", { new_branch_name: "by-reader" })).status, 403);
      assert.equal(
        (await call(undefined, "POST", "/branches", { new_branch_name: "by-nobody" })).status,
        401,
      );
      const refs = await remoteRefs();
      for (const name of ["x", "by-reader", "by-nobody", "feature/x"])
        assert.equal(refs.has(`refs/heads/${name}`), false, name);
    });

    test("create: two requests for the same new branch at once: one 201, the others 409, one ref", async () => {
      for (let round = 0; round < 3; round++) {
        const name = `race-${round}`;
        const answers = await Promise.all(
          Array.from({ length: 4 }, () => call(cast.ben, "POST", "/branches", { new_branch_name: name })),
        );
        const statuses = answers.map((answer) => answer.status).sort();
        assert.deepEqual(statuses, [201, 409, 409, 409], JSON.stringify(answers.map((a) => a.body)));
      }
      const deletes = await Promise.all(
        Array.from({ length: 3 }, () => call(cast.ben, "DELETE", "/branches/race-0")),
      );
      const statuses = deletes.map((answer) => answer.status);
      assert.equal(statuses.filter((status) => status === 204).length, 1, JSON.stringify(statuses));
      assert.ok(
        statuses.every((status) => status === 204 || status === 404 || status === 409),
        JSON.stringify(statuses),
      );
    });

    test("delete: 204 and gone (a delete event), the default branch and protected branches refused with 403", async () => {
      const from = receiver.received.length;
      assert.equal((await call(cast.ben, "DELETE", "/branches/from-tag")).status, 204);
      assert.equal((await call(cast.ben, "GET", "/branches/from-tag")).status, 404);
      assert.equal((await remoteRefs()).has("refs/heads/from-tag"), false);
      // The race above deletes a branch too: its event may arrive later than this one.
      const deleted = await receiver.next(
        (r) => r.headers["x-gitea-event"] === "delete" && payloadOf<{ ref: string }>(r).ref === "from-tag",
        from,
      );
      assert.equal(payloadOf<{ ref_type: string }>(deleted).ref_type, "branch");
      assert.equal((await call(cast.ben, "DELETE", "/branches/from-tag")).status, 404);

      const main = await call(cast.ann, "DELETE", "/branches/main");
      assert.equal(main.status, 403);
      assert.equal(main.body.message, "can not delete default branch");
      // NUL never reaches git: the API refuses it in any string field.
      assert.equal(
        (await call(cast.ben, "POST", "/branches", { new_branch_name: "x", old_ref_name: "a\u0000b" }))
          .status,
        422,
      );
      const rule = await call(cast.ann, "POST", "/branch_protections", {
        rule_name: "keep/*",
        enable_push: true,
      });
      assert.equal(rule.status, 201, JSON.stringify(rule.body));
      assert.equal((await call(cast.ann, "POST", "/branches", { new_branch_name: "keep/this" })).status, 201);
      const kept = await call(cast.ann, "DELETE", "/branches/keep/this");
      assert.equal(kept.status, 403);
      assert.equal(kept.body.message, "branch protected");
      assert.equal((await remoteRefs()).has("refs/heads/keep/this"), true);
      assert.equal((await call(cast.rae, "DELETE", "/branches/feature")).status, 403);
    });

    test("rename: 204, the old name gone; the default branch by admins only, and the repository follows it", async () => {
      assert.equal((await call(cast.ben, "PATCH", "/branches/from-commit", { name: "renamed" })).status, 204);
      assert.equal((await call(cast.ben, "GET", "/branches/from-commit")).status, 404);
      assert.equal((await call(cast.ben, "GET", "/branches/renamed")).status, 200);
      const taken = await call(cast.ben, "PATCH", "/branches/renamed", { name: "feature" });
      assert.equal(taken.status, 422);
      assert.equal((await call(cast.ben, "PATCH", "/branches/renamed", { name: "renamed" })).status, 422);
      assert.equal((await call(cast.ben, "PATCH", "/branches/missing", { name: "other" })).status, 404);
      assert.equal((await call(cast.ben, "PATCH", "/branches/renamed", { name: "bad..name" })).status, 422);
      assert.equal((await call(cast.rae, "PATCH", "/branches/renamed", { name: "other" })).status, 403);
      const byWriter = await call(cast.ben, "PATCH", "/branches/main", { name: "trunk" });
      assert.equal(byWriter.status, 403);
      assert.equal(
        byWriter.body.message,
        "User must be a repo or site admin to rename default or protected branches.",
      );
      const glob = await call(cast.ann, "PATCH", "/branches/keep/this", { name: "kept" });
      assert.equal(glob.status, 403);
      assert.equal(glob.body.message, "Branch is protected by glob-based protection rules.");

      assert.equal((await call(cast.ann, "PATCH", "/branches/main", { name: "trunk" })).status, 204);
      const repo = await api<{ default_branch: string }>(forge.url, "GET", repoPath, {
        token: cast.ann.token,
      });
      assert.equal(repo.body.default_branch, "trunk");
      const clone = await git(["clone", "-q", `${forge.url}/ann/tree.git`, "after-rename"], work.path);
      assert.equal(clone.code, 0, clone.stderr);
      const branch = await git(["symbolic-ref", "--short", "HEAD"], join(work.path, "after-rename"));
      assert.equal(branch.stdout.trim(), "trunk");
      const refs = await remoteRefs();
      assert.equal(refs.get("refs/heads/trunk"), head);
      assert.equal(refs.has("refs/heads/main"), false);
    });

    test("an archived repository takes no branch change (423)", async () => {
      const made = await api(forge.url, "POST", "/user/repos", {
        token: cast.ann.token,
        body: { name: "frozen", auto_init: true },
      });
      assert.equal(made.status, 201);
      assert.equal(
        (
          await api(forge.url, "PATCH", "/repos/ann/frozen", {
            token: cast.ann.token,
            body: { archived: true },
          })
        ).status,
        200,
      );
      const res = await api(forge.url, "POST", "/repos/ann/frozen/branches", {
        token: cast.ann.token,
        body: { new_branch_name: "new" },
      });
      assert.equal(res.status, 423);
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);
