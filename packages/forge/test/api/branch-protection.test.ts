import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { generateKey, gitSshCommand } from "../ssh/tools.ts";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";

interface Rule {
  rule_name: string;
  branch_name: string;
  enable_push: boolean;
  enable_push_whitelist: boolean;
  push_whitelist_usernames: string[];
  push_whitelist_teams: string[];
  enable_force_push: boolean;
  required_approvals: number;
  enable_status_check: boolean;
  status_check_contexts: string[];
  priority: number;
}
interface Branch {
  protected: boolean;
  required_approvals: number;
  enable_status_check: boolean;
  status_check_contexts: string[];
  user_can_push: boolean;
  user_can_merge: boolean;
  effective_branch_protection_name: string;
}
interface ErrorBody {
  message: string;
}

const IDENTITY = ["-c", "user.name=tester", "-c", "user.email=tester@example.com"];

forEachForge(
  "forge branch protection: rules, branch objects, pushes refused per ref over HTTP and SSH",
  (forge) => {
    const cast = {} as Record<"pat" | "wes" | "ada" | "rob", Person>;
    let work: TempDir;
    const repoPath = "/repos/pat/guard";
    const rules = `${repoPath}/branch_protections`;
    const call = <T = Rule & ErrorBody>(
      who: Person | undefined,
      method: string,
      path: string,
      body?: unknown,
    ) => api<T>(forge.url, method, path, { token: who?.token, body });
    const httpUrl = (who: Person) => withCredentials(`${forge.url}/pat/guard.git`, who.login, who.token);

    /** A clone of pat/guard as `who`, over HTTP unless an SSH environment is given. */
    const cloneAs = async (who: Person, name: string, env: NodeJS.ProcessEnv = {}, url = httpUrl(who)) => {
      const cloned = await git(["clone", "-q", url, name], work.path, env);
      assert.equal(cloned.code, 0, cloned.stderr);
      return join(work.path, name);
    };
    const commit = async (dir: string, message: string) => {
      const made = await git([...IDENTITY, "commit", "--allow-empty", "-qm", message], dir);
      assert.equal(made.code, 0, made.stderr);
      return (await git(["rev-parse", "HEAD"], dir)).stdout.trim();
    };
    const remoteRefs = async () => {
      const listed = await git(["ls-remote", `${forge.url}/pat/guard.git`], work.path);
      return new Map(
        listed.stdout
          .trim()
          .split("\n")
          .map((line) => line.split("\t").reverse() as [string, string]),
      );
    };

    before(async () => {
      work = await tempDir("anvil-forge-protection-");
      for (const name of ["pat", "wes", "ada", "rob"] as const)
        cast[name] = await makePerson(forge.url, forge.adminToken, name);
      const made = await call(cast.pat, "POST", "/user/repos", { name: "guard", auto_init: true });
      assert.equal(made.status, 201);
      for (const [who, permission] of [
        ["wes", "write"],
        ["ada", "write"],
        ["rob", "read"],
      ])
        assert.equal(
          (await call(cast.pat, "PUT", `${repoPath}/collaborators/${who}`, { permission })).status,
          204,
        );
    });
    after(() => work.remove());

    test("rules: repository admins create, list, get, edit and delete them with Gitea's answers", async () => {
      assert.equal((await call(cast.wes, "POST", rules, { rule_name: "main" })).status, 403);
      assert.equal((await call(cast.wes, "GET", rules)).status, 403);
      assert.equal((await call(undefined, "GET", rules)).status, 401);
      const made = await api<Rule>(forge.url, "POST", rules, {
        token: cast.pat.token,
        shape: "BranchProtection",
        body: {
          rule_name: "main",
          enable_push: true,
          enable_push_whitelist: true,
          // rob only reads the code: Gitea drops him from the list.
          push_whitelist_usernames: ["ada", "rob"],
          required_approvals: 2,
          enable_status_check: true,
          status_check_contexts: ["ci/build"],
        },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.rule_name, "main");
      assert.equal(made.body.branch_name, "main");
      assert.deepEqual(made.body.push_whitelist_usernames, ["ada"]);
      assert.equal(made.body.enable_push_whitelist, true);
      assert.equal(made.body.required_approvals, 2);
      assert.deepEqual(made.body.status_check_contexts, ["ci/build"]);

      const again = await call(cast.pat, "POST", rules, { rule_name: "main" });
      assert.equal(again.status, 403);
      assert.equal(again.body.message, "Branch protection already exist");
      assert.equal((await call(cast.pat, "POST", rules, {})).status, 400);
      const ghost = await call(cast.pat, "POST", rules, {
        rule_name: "dev",
        push_whitelist_usernames: ["ghost"],
      });
      assert.equal(ghost.status, 422);
      assert.equal(ghost.body.message, "user does not exist [uid: 0, name: ghost]");
      assert.equal(
        (await call(cast.pat, "GET", `${rules}/dev`)).status,
        404,
        "a refused rule is not half-made",
      );

      const glob = await api<Rule>(forge.url, "POST", rules, {
        token: cast.pat.token,
        shape: "BranchProtection",
        body: { branch_name: "release/*", enable_push: true },
      });
      assert.equal(glob.status, 201);
      assert.equal(glob.body.rule_name, "release/*");
      assert.equal(glob.body.branch_name, "");

      const listed = await api<Rule[]>(forge.url, "GET", rules, {
        token: cast.pat.token,
        shape: "BranchProtection[]",
      });
      assert.deepEqual(
        listed.body.map((rule) => rule.rule_name),
        ["main", "release/*"],
      );
      const edited = await api<Rule>(forge.url, "PATCH", `${rules}/main`, {
        token: cast.pat.token,
        shape: "BranchProtection",
        body: { required_approvals: 1 },
      });
      assert.equal(edited.status, 200);
      assert.equal(edited.body.required_approvals, 1);
      assert.deepEqual(edited.body.push_whitelist_usernames, ["ada"], "fields left out keep their values");
      const one = await api<Rule>(forge.url, "GET", `${rules}/${encodeURIComponent("release/*")}`, {
        token: cast.pat.token,
        shape: "BranchProtection",
      });
      assert.equal(one.status, 200);
      assert.equal((await call(cast.pat, "PATCH", `${rules}/nothing`, { enable_push: true })).status, 404);
      assert.equal((await call(cast.pat, "DELETE", `${rules}/nothing`)).status, 404);
    });

    test("branch objects show the rule that protects them and what the caller may do", async () => {
      const seen = async (who: Person | undefined, name: string) => {
        const res = await api<Branch>(forge.url, "GET", `${repoPath}/branches/${name}`, {
          token: who?.token,
          shape: "Branch",
        });
        assert.equal(res.status, 200);
        return res.body;
      };
      const byOwner = await seen(cast.pat, "main");
      assert.equal(byOwner.protected, true);
      assert.equal(byOwner.required_approvals, 1);
      assert.equal(byOwner.enable_status_check, true);
      assert.deepEqual(byOwner.status_check_contexts, ["ci/build"]);
      assert.equal(byOwner.effective_branch_protection_name, "main");
      assert.equal(byOwner.user_can_push, false, "the push allow-list names ada only");
      assert.equal(byOwner.user_can_merge, true);
      const byAda = await seen(cast.ada, "main");
      assert.equal(byAda.user_can_push, true);
      assert.equal(byAda.effective_branch_protection_name, "", "only admins see the rule's name");
      assert.equal((await seen(cast.wes, "main")).user_can_push, false);
      assert.equal((await seen(cast.rob, "main")).user_can_merge, false);
      const anonymous = await seen(undefined, "main");
      assert.equal(anonymous.user_can_push, false);
      const listed = await api<Array<Branch & { name: string }>>(forge.url, "GET", `${repoPath}/branches`, {
        token: cast.ada.token,
        shape: "Branch[]",
      });
      assert.equal(listed.body.find((branch) => branch.name === "main")?.user_can_push, true);
    });

    test("HTTP push: a protected branch refused for that ref only; the allow-listed pusher gets through", async () => {
      const dir = await cloneAs(cast.wes, "wes");
      const before = (await remoteRefs()).get("refs/heads/main");
      await commit(dir, "by wes");
      assert.equal((await git(["branch", "side"], dir)).code, 0);
      const push = await git(["push", "origin", "main", "side"], dir);
      assert.notEqual(push.code, 0);
      assert.match(push.stderr, /! \[remote rejected\] main -> main \(hook declined\)/);
      assert.match(push.stderr, /remote: anvil: Not allowed to push to protected branch main/);
      assert.match(push.stderr, /\* \[new branch\]\s+side -> side/);
      const refs = await remoteRefs();
      assert.equal(refs.get("refs/heads/main"), before, "main did not move");
      assert.equal(refs.get("refs/heads/side"), (await git(["rev-parse", "HEAD"], dir)).stdout.trim());

      const adaDir = await cloneAs(cast.ada, "ada");
      const pushed = await commit(adaDir, "by ada");
      const allowed = await git(["push", "-q", "origin", "main"], adaDir);
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.equal((await remoteRefs()).get("refs/heads/main"), pushed);
    });

    test("HTTP push: history rewrites of a protected branch refused until force pushes are enabled", async () => {
      const dir = await cloneAs(cast.ada, "ada-force");
      const old = (await git(["rev-parse", "HEAD"], dir)).stdout.trim();
      assert.equal((await git(["reset", "-q", "--hard", "HEAD~1"], dir)).code, 0);
      const rewritten = await commit(dir, "rewritten");
      const refused = await git(["push", "--force", "origin", "main"], dir);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /! \[remote rejected\] main -> main/);
      assert.match(refused.stderr, /anvil: branch main is protected from force push/);
      assert.equal((await remoteRefs()).get("refs/heads/main"), old);

      const enabled = await call(cast.pat, "PATCH", `${rules}/main`, { enable_force_push: true });
      assert.equal(enabled.status, 200);
      assert.equal(enabled.body.enable_force_push, true);
      const forced = await git(["push", "--force", "origin", "main"], dir);
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal((await remoteRefs()).get("refs/heads/main"), rewritten);

      // A force-push allow-list (as in Gitea) may name someone the push allow-list does not: wes
      // may then rewrite main but not add to it, and ada may add to it but no longer rewrite it.
      const listed = await call(cast.pat, "PATCH", `${rules}/main`, {
        enable_force_push: true,
        enable_force_push_allowlist: true,
        force_push_allowlist_usernames: ["wes"],
      });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.equal((await git(["reset", "-q", "--hard", "HEAD~1"], dir)).code, 0);
      await commit(dir, "rewritten again");
      const adaForce = await git(["push", "--force", "origin", "main"], dir);
      assert.match(adaForce.stderr, /anvil: branch main is protected from force push/);
      const wesDir = await cloneAs(cast.wes, "wes-force");
      assert.equal((await git(["reset", "-q", "--hard", "HEAD~1"], wesDir)).code, 0);
      const byWes = await commit(wesDir, "rewritten by wes");
      const wesForce = await git(["push", "--force", "origin", "main"], wesDir);
      assert.equal(wesForce.code, 0, wesForce.stderr);
      assert.equal((await remoteRefs()).get("refs/heads/main"), byWes);
      await commit(wesDir, "added by wes");
      const wesAdds = await git(["push", "origin", "main"], wesDir);
      assert.match(wesAdds.stderr, /anvil: Not allowed to push to protected branch main/);
      assert.equal((await remoteRefs()).get("refs/heads/main"), byWes);
    });

    test("HTTP push: a glob rule protects its branches from deletion; `*` stops at a slash", async () => {
      const dir = await cloneAs(cast.wes, "wes-release");
      await commit(dir, "release work");
      const created = await git(
        ["push", "-q", "origin", "HEAD:refs/heads/release/1", "HEAD:refs/heads/release/1x/deep"],
        dir,
      );
      assert.equal(created.code, 0, created.stderr);
      const deleted = await git(["push", "origin", ":release/1", ":release/1x/deep"], dir);
      assert.notEqual(deleted.code, 0);
      assert.match(deleted.stderr, /! \[remote rejected\] release\/1 \(hook declined\)/);
      assert.match(deleted.stderr, /anvil: branch release\/1 is protected from deletion/);
      assert.match(deleted.stderr, /- \[deleted\]\s+release\/1x\/deep/);
      const refs = await remoteRefs();
      assert.equal(refs.has("refs/heads/release/1"), true);
      assert.equal(refs.has("refs/heads/release/1x/deep"), false);

      // With pushing disabled, nobody pushes, not even the owner; the API refuses its branch too.
      const frozen = await call(cast.pat, "POST", rules, { rule_name: "frozen" });
      assert.equal(frozen.status, 201);
      assert.equal(frozen.body.enable_push, false);
      const owner = await cloneAs(cast.pat, "pat");
      await commit(owner, "frozen work");
      const refused = await git(["push", "origin", "HEAD:refs/heads/frozen"], owner);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /Not allowed to push to protected branch frozen/);
      const viaApi = await call(cast.pat, "POST", `${repoPath}/branches`, { new_branch_name: "frozen" });
      assert.equal(viaApi.status, 403);
      assert.equal((await remoteRefs()).has("refs/heads/frozen"), false);
      // Once the rule is gone, the same push goes through.
      assert.equal((await call(cast.pat, "DELETE", `${rules}/frozen`)).status, 204);
      assert.equal((await call(cast.pat, "GET", `${rules}/frozen`)).status, 404);
      const now = await git(["push", "-q", "origin", "HEAD:refs/heads/frozen"], owner);
      assert.equal(now.code, 0, now.stderr);
    });

    test("matching: a plain rule in any case, `**` across slashes, the first rule by priority wins", async () => {
      for (const rule of [
        { rule_name: "deep/**", enable_push: true, priority: 20 },
        { rule_name: "DEEP/a/B", enable_push: true, required_approvals: 3, priority: 10 },
      ])
        assert.equal((await call(cast.pat, "POST", rules, rule)).status, 201);
      for (const name of ["deep/a/b", "deep/a/c/d", "deepest"]) {
        const made = await call(cast.pat, "POST", `${repoPath}/branches`, { new_branch_name: name });
        assert.equal(made.status, 201, JSON.stringify(made.body));
      }
      const protection = async (name: string) =>
        (await api<Branch>(forge.url, "GET", `${repoPath}/branches/${name}`, { token: cast.pat.token })).body;
      assert.equal((await protection("deep/a/b")).effective_branch_protection_name, "DEEP/a/B");
      assert.equal((await protection("deep/a/b")).required_approvals, 3);
      assert.equal((await protection("deep/a/c/d")).effective_branch_protection_name, "deep/**");
      assert.equal((await protection("deepest")).protected, false);
    });

    test("SSH push: the same rules, the same refusal for the protected ref only", async () => {
      const keys = await tempDir("anvil-protection-keys-");
      try {
        const pair = await generateKey(keys.path, "wes", ["-t", "ed25519"]);
        const added = await call(cast.wes, "POST", "/user/keys", { title: "wes", key: pair.publicText });
        assert.equal(added.status, 201);
        const env = { GIT_SSH_COMMAND: gitSshCommand(pair.privatePath) };
        const url = `ssh://git@127.0.0.1:${forge.sshPort}/pat/guard.git`;
        const dir = await cloneAs(cast.wes, "wes-ssh", env, url);
        const before = (await remoteRefs()).get("refs/heads/main");
        await commit(dir, "by wes over ssh");
        const push = await git(["push", "origin", "main", "HEAD:refs/heads/ssh-side"], dir, env);
        assert.notEqual(push.code, 0);
        assert.match(push.stderr, /! \[remote rejected\] main -> main \(hook declined\)/);
        assert.match(push.stderr, /anvil: Not allowed to push to protected branch main/);
        const refs = await remoteRefs();
        assert.equal(refs.get("refs/heads/main"), before);
        assert.equal(refs.get("refs/heads/ssh-side"), (await git(["rev-parse", "HEAD"], dir)).stdout.trim());
      } finally {
        await keys.remove();
      }
    });

    test("organization repositories: allow-listed teams by name, unknown teams 422", async () => {
      assert.equal((await call(cast.pat, "POST", "/orgs", { username: "guild" })).status, 201);
      const team = await call<{ id: number }>(cast.pat, "POST", "/orgs/guild/teams", {
        name: "pushers",
        permission: "write",
        units: ["repo.code"],
        includes_all_repositories: true,
      });
      assert.equal(team.status, 201, JSON.stringify(team.body));
      assert.equal((await call(cast.pat, "PUT", `/teams/${team.body.id}/members/ada`)).status, 204);
      assert.equal(
        (await call(cast.pat, "POST", "/orgs/guild/repos", { name: "hall", auto_init: true })).status,
        201,
      );
      const orgRules = "/repos/guild/hall/branch_protections";
      const unknown = await call(cast.pat, "POST", orgRules, {
        rule_name: "main",
        push_whitelist_teams: ["nobody"],
      });
      assert.equal(unknown.status, 422);
      assert.match(unknown.body.message, /^team does not exist/);
      const made = await api<Rule>(forge.url, "POST", orgRules, {
        token: cast.pat.token,
        shape: "BranchProtection",
        body: {
          rule_name: "main",
          enable_push: true,
          enable_push_whitelist: true,
          push_whitelist_teams: ["pushers"],
        },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.deepEqual(made.body.push_whitelist_teams, ["pushers"]);
      const branch = await api<Branch>(forge.url, "GET", "/repos/guild/hall/branches/main", {
        token: cast.ada.token,
        shape: "Branch",
      });
      assert.equal(branch.body.user_can_push, true, "ada pushes as a member of the allow-listed team");
      const byOwner = await api<Branch>(forge.url, "GET", "/repos/guild/hall/branches/main", {
        token: cast.pat.token,
      });
      assert.equal(byOwner.body.user_can_push, false);
    });
  },
  { ssh: true },
);
