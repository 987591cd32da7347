import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { generateKey, gitSshCommand, type KeyPair } from "../ssh/tools.ts";
import { forgeDb, openIssue } from "../support/discussion.ts";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";

// What an archived repository holds, row for row: a refused write must leave all of it as it was.
const HELD = ["issue", "comment", "label", "milestone", "reaction", "issue_label", "repo_topic"] as const;

const LOCKED = "repo is archived";
const ARCHIVED_PUSH =
  /This repo is archived\. You can view files and clone it, but cannot push or open issues\/pull-requests\./;

forEachForge(
  "forge: an archived repository is read-only (423) until it is un-archived",
  (forge) => {
    let alice: Person;
    let work: TempDir;
    let key: KeyPair;
    let commentId = 0;
    let labelId = 0;
    let milestoneId = 0;
    let pushes = 0;
    const repo = "/repos/alice/frozen";

    const call = <T = { message: string; url: string }>(
      method: string,
      path: string,
      body?: unknown,
      shape?: string,
    ) => api<T>(forge.url, method, path, { token: alice.token, body, shape });

    const held = async () => {
      const db = forgeDb(forge.server);
      const rows: Record<string, unknown[]> = {};
      for (const table of HELD) rows[table] = await db.selectFrom(table).selectAll().execute();
      return rows;
    };

    const archive = async (archived: boolean) => {
      const edited = await call<{ archived: boolean }>("PATCH", repo, { archived }, "Repository");
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      assert.equal(edited.body.archived, archived);
    };

    /** Every write of each family, in an order that succeeds once the repository is writable again. */
    const writes = (): Array<[string, string, unknown?, string?]> => [
      ["POST", `${repo}/issues`, { title: "another" }, "Issue"],
      ["PATCH", `${repo}/issues/1`, { title: "renamed" }, "Issue"],
      ["POST", `${repo}/issues/1/comments`, { body: "more" }, "Comment"],
      ["PATCH", `${repo}/issues/comments/${commentId}`, { body: "edited" }, "Comment"],
      ["PATCH", `${repo}/issues/1/comments/${commentId}`, { body: "edited again" }, "Comment"],
      ["POST", `${repo}/issues/1/reactions`, { content: "+1" }, "Reaction"],
      ["DELETE", `${repo}/issues/1/reactions`, { content: "heart" }],
      ["POST", `${repo}/issues/comments/${commentId}/reactions`, { content: "laugh" }, "Reaction"],
      ["POST", `${repo}/labels`, { name: "new", color: "#00aa00" }, "Label"],
      ["PATCH", `${repo}/labels/${labelId}`, { description: "changed" }, "Label"],
      ["POST", `${repo}/milestones`, { title: "v2" }, "Milestone"],
      ["PATCH", `${repo}/milestones/${milestoneId}`, { description: "changed" }, "Milestone"],
      ["POST", `${repo}/issues/1/labels`, { labels: [labelId] }, "Label[]"],
      ["PUT", `${repo}/issues/1/labels`, { labels: [labelId] }, "Label[]"],
      ["DELETE", `${repo}/issues/1/labels/${labelId}`],
      ["DELETE", `${repo}/issues/1/labels`],
      ["PUT", `${repo}/issues/1/lock`, { lock_reason: "resolved" }],
      ["DELETE", `${repo}/issues/1/lock`],
      ["POST", `${repo}/issues/1/pin`],
      ["PATCH", `${repo}/issues/1/pin/1`],
      ["DELETE", `${repo}/issues/1/pin`],
      ["POST", `${repo}/issues/1/deadline`, { due_date: "2030-01-02T00:00:00Z" }, "IssueDeadline"],
      ["PUT", `${repo}/topics`, { topics: ["one", "two"] }],
      ["PUT", `${repo}/topics/three`],
      ["DELETE", `${repo}/topics/one`],
      ["DELETE", `${repo}/issues/comments/${commentId}`],
      ["DELETE", `${repo}/labels/${labelId}`],
      ["DELETE", `${repo}/milestones/${milestoneId}`],
      ["DELETE", `${repo}/issues/1`],
    ];

    const httpUrl = () => `${withCredentials(forge.url, "alice", "password123")}/alice/frozen.git`;
    const sshUrl = () => `ssh://git@127.0.0.1:${forge.sshPort}/alice/frozen.git`;
    const viaSsh = () => ({ GIT_SSH_COMMAND: gitSshCommand(key.privatePath) });

    /** A push of a new commit on a new branch from a fresh local repository. */
    async function push(url: string, env: NodeJS.ProcessEnv = {}) {
      const dir = join(work.path, `push-${++pushes}`);
      await git(["init", "-q", "-b", "main", dir], work.path);
      await git(["commit", "-q", "--allow-empty", "-m", "from a test"], dir);
      return git(["push", "-q", url, `main:refs/heads/side-${pushes}`], dir, env);
    }

    const branches = async () =>
      (await call<Array<{ name: string }>>("GET", `${repo}/branches`, undefined, "Branch[]")).body
        .map((branch) => branch.name)
        .sort();

    before(async () => {
      work = await tempDir("anvil-archived-");
      key = await generateKey(work.path, "alice", ["-t", "ed25519"]);
      alice = await makePerson(forge.url, forge.adminToken, "alice");
      const added = await call("POST", "/user/keys", { title: "laptop", key: key.publicText }, "PublicKey");
      assert.equal(added.status, 201, JSON.stringify(added.body));
      const made = await call("POST", "/user/repos", { name: "frozen", auto_init: true }, "Repository");
      assert.equal(made.status, 201, JSON.stringify(made.body));
      await openIssue(forge.url, alice.token, "alice/frozen");
      const comment = await call<{ id: number }>("POST", `${repo}/issues/1/comments`, { body: "first" });
      commentId = comment.body.id;
      labelId = (await call<{ id: number }>("POST", `${repo}/labels`, { name: "bug", color: "#ff0000" })).body
        .id;
      milestoneId = (await call<{ id: number }>("POST", `${repo}/milestones`, { title: "v1" })).body.id;
      assert.equal((await call("POST", `${repo}/issues/1/reactions`, { content: "heart" })).status, 201);
      assert.equal((await call("PUT", `${repo}/topics/kept`)).status, 204);
    });
    after(() => work.remove());

    test("API: every write to what an archived repository holds is 423 in Gitea's shape and writes nothing; reads and settings stay open; un-archived, every write works again", async () => {
      await archive(true);
      const before = await held();
      for (const [method, path, body] of writes()) {
        const refused = await call(method, path, body);
        assert.equal(refused.status, 423, `${method} ${path}: ${JSON.stringify(refused.body)}`);
        assert.deepEqual(refused.body, { message: LOCKED, url: "http://forge.test/api/swagger" });
      }
      assert.deepEqual(await held(), before);

      // Reads, the repository's settings and the caller's own subscription stay open.
      for (const [path, shape] of [
        [repo, "Repository"],
        [`${repo}/issues`, "Issue[]"],
        [`${repo}/issues/1`, "Issue"],
        [`${repo}/issues/1/comments`, "Comment[]"],
        [`${repo}/issues/comments/${commentId}`, "Comment"],
        [`${repo}/issues/1/timeline`, "TimelineComment[]"],
        [`${repo}/issues/1/reactions`, "Reaction[]"],
        [`${repo}/labels`, "Label[]"],
        [`${repo}/milestones`, "Milestone[]"],
        [`${repo}/topics`, "TopicName"],
      ]) {
        const read = await call("GET", path, undefined, shape);
        assert.equal(read.status, 200, `${path}: ${JSON.stringify(read.body)}`);
      }
      const edited = await call<{ description: string; archived: boolean }>(
        "PATCH",
        repo,
        { description: "kept for the record" },
        "Repository",
      );
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      assert.deepEqual([edited.body.description, edited.body.archived], ["kept for the record", true]);
      const left = await call("DELETE", `${repo}/issues/1/subscriptions/alice`);
      assert.ok([200, 201].includes(left.status), JSON.stringify(left.body));
      assert.deepEqual(await held(), before);

      await archive(false);
      for (const [method, path, body, shape] of writes()) {
        const done = await call(method, path, body, shape);
        assert.ok(done.status >= 200 && done.status < 300, `${method} ${path}: ${JSON.stringify(done.body)}`);
      }
    });

    test("git cannot push to an archived repository over HTTP or SSH, and says why; it still clones; un-archived, it pushes", async () => {
      await archive(true);
      const refs = await branches();
      for (const [url, env] of [
        [httpUrl(), {}],
        [sshUrl(), viaSsh()],
      ] as const) {
        const refused = await push(url, env);
        assert.notEqual(refused.code, 0, url);
        assert.match(refused.stderr, ARCHIVED_PUSH, url);
      }
      assert.deepEqual(await branches(), refs);
      const clone = await git(["clone", "-q", httpUrl(), join(work.path, "clone")], work.path);
      assert.equal(clone.code, 0, clone.stderr);

      await archive(false);
      for (const [url, env] of [
        [httpUrl(), {}],
        [sshUrl(), viaSsh()],
      ] as const) {
        const pushed = await push(url, env);
        assert.equal(pushed.code, 0, pushed.stderr);
      }
    });
  },
  { ssh: true },
);
