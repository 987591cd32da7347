// Commit statuses: reported on real pushed commits, listed, combined per commit, announced by the
// `status` webhook, numbered once each when reported together.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { combinedStatus } from "../../src/services/commit-statuses.ts";
import { api, forEachForge } from "../support/forge.ts";
import { type Clone, cloneNewRepository } from "../support/history.ts";
import { makePerson, type Person } from "../support/people.ts";
import { payloadOf, type Receiver, startReceiver } from "../support/receiver.ts";

interface Status {
  id: number;
  status: string;
  context: string;
  description: string;
  target_url: string;
  url: string;
  creator: { login: string } | null;
}
interface Combined {
  state: string;
  sha: string;
  total_count: number;
  statuses: Status[];
  repository: { full_name: string };
  commit_url: string;
}

forEachForge(
  "commit statuses",
  (forge) => {
    const people = {} as Record<"cleo" | "rudi" | "wynn" | "zed", Person>;
    let clone: Clone;
    let receiver: Receiver;
    let first: string;
    let second: string;
    const base = "/repos/cleo/ci";

    const post = (sha: string, body: Record<string, unknown>, token = people.cleo.token) =>
      api<Status>(forge.url, "POST", `${base}/statuses/${sha}`, { token, body });
    const combined = (ref: string) =>
      api<Combined>(forge.url, "GET", `${base}/commits/${ref}/status`, { shape: "CombinedStatus" });

    before(async () => {
      for (const name of ["cleo", "rudi", "wynn", "zed"] as const)
        people[name] = await makePerson(forge.url, forge.adminToken, name);
      clone = await cloneNewRepository(forge.url, people.cleo, "ci");
      first = await clone.git("rev-parse", "HEAD");
      second = await clone.commit("second");
      await clone.git("tag", "v1", first);
      await clone.git("push", "-q", "origin", "main", "v1");
      for (const [name, permission] of [
        ["rudi", "read"],
        ["wynn", "write"],
      ] as const) {
        const added = await api(forge.url, "PUT", `${base}/collaborators/${name}`, {
          token: people.cleo.token,
          body: { permission },
        });
        assert.equal(added.status, 204);
      }
      receiver = await startReceiver();
      const hook = await api(forge.url, "POST", `${base}/hooks`, {
        token: people.cleo.token,
        body: {
          type: "gitea",
          config: { url: receiver.url, content_type: "json" },
          events: ["status"],
          active: true,
        },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const chat = await api(forge.url, "POST", `${base}/hooks`, {
        token: people.cleo.token,
        body: {
          type: "slack",
          config: { url: `${receiver.url}/slack`, content_type: "json", channel: "#ci" },
          events: ["status"],
          active: true,
        },
      });
      assert.equal(chat.status, 201, JSON.stringify(chat.body));
    });
    after(async () => {
      await clone.remove();
      await receiver.close();
    });

    test("a status is reported on a commit named by its id, a short id or a branch", async () => {
      const made = await api<Status>(forge.url, "POST", `${base}/statuses/${second}`, {
        token: people.cleo.token,
        body: {
          state: "pending",
          context: " ci/build ",
          description: "building",
          target_url: "https://ci.example.com/1",
        },
        shape: "CommitStatus",
      });
      assert.equal(made.status, 201);
      assert.equal(made.body.id, 1);
      assert.equal(made.body.status, "pending");
      assert.equal(made.body.context, "ci/build");
      assert.equal(made.body.description, "building");
      assert.equal(made.body.target_url, "https://ci.example.com/1");
      assert.equal(made.body.url, `http://forge.test/api/v1/repos/cleo/ci/statuses/${second}`);
      assert.equal(made.body.creator?.login, "cleo");
      const short = await post(second.slice(0, 10), { state: "success", context: "ci/build" });
      assert.equal(short.body.id, 2);
      assert.equal(short.body.url, `http://forge.test/api/v1/repos/cleo/ci/statuses/${second}`);
      const byBranch = await post("main", { state: "failure", context: "ci/test" }, people.wynn.token);
      assert.equal(byBranch.status, 201);
      assert.equal(byBranch.body.id, 3);
      assert.equal(byBranch.body.creator?.login, "wynn");

      const delivery = await receiver.next(
        (request) => request.headers["x-gitea-event"] === "status" && !request.url.endsWith("/slack"),
      );
      const payload = payloadOf<{
        state: string;
        sha: string;
        context: string;
        commit: { id: string };
        repository: { full_name: string };
        sender: { login: string };
      }>(delivery);
      assert.equal(payload.state, "pending");
      assert.equal(payload.sha, second);
      assert.equal(payload.context, "ci/build");
      assert.equal(payload.commit.id, second);
      assert.equal(payload.repository.full_name, "cleo/ci");
      assert.equal(payload.sender.login, "cleo");
      const chat = await receiver.next(
        (request) => request.url.endsWith("/slack") && request.headers["x-gitea-event"] === "status",
      );
      assert.equal(
        JSON.parse(chat.body).text,
        "<https://ci.example.com/1|[cleo/ci] Commit Status changed: ci/build - building>",
      );
    });

    test("bad states and refs are refused with Gitea's 4xx; only writers of the code may report", async () => {
      assert.equal((await post(first, { state: "done" })).status, 422);
      assert.equal((await post(first, { context: "x" })).status, 422);
      assert.equal((await post("0".repeat(40), { state: "success" })).status, 404);
      for (const ref of ["a..b", "-p", "main~1"])
        assert.equal((await post(ref, { state: "success" })).status, 422, ref);
      assert.equal((await post(first, { state: "success" }, people.rudi.token)).status, 403);
      assert.equal((await post(first, { state: "success" }, people.zed.token)).status, 403);
      const anonymous = await api(forge.url, "POST", `${base}/statuses/${first}`, {
        body: { state: "success" },
      });
      assert.equal(anonymous.status, 401);
      const listed = await api<Status[]>(forge.url, "GET", `${base}/statuses/${first}`);
      assert.deepEqual(listed.body, [], "nothing refused was recorded");
    });

    test("statuses are listed newest first, sorted, filtered by state and paged", async () => {
      const listed = await api<Status[]>(forge.url, "GET", `${base}/statuses/${second}`, {
        shape: "CommitStatus[]",
      });
      assert.deepEqual(
        listed.body.map((s) => s.id),
        [3, 2, 1],
      );
      assert.equal(listed.headers.get("x-total-count"), "3");
      const oldest = await api<Status[]>(forge.url, "GET", `${base}/commits/main/statuses?sort=oldest`);
      assert.deepEqual(
        oldest.body.map((s) => s.id),
        [1, 2, 3],
      );
      const failures = await api<Status[]>(
        forge.url,
        "GET",
        `${base}/commits/${second}/statuses?state=failure`,
      );
      assert.deepEqual(
        failures.body.map((s) => s.context),
        ["ci/test"],
      );
      const paged = await api<Status[]>(
        forge.url,
        "GET",
        `${base}/statuses/${second}?sort=highestindex&limit=2&page=2`,
      );
      assert.deepEqual(
        paged.body.map((s) => s.id),
        [3],
      );
      assert.equal(paged.headers.get("x-total-count"), "3");
      const unknown = await api<Status[]>(forge.url, "GET", `${base}/commits/nosuchbranch/statuses`);
      assert.equal(unknown.status, 200);
      assert.deepEqual(unknown.body, []);
    });

    test("the combined status is the worst of each context's latest, by branch, tag or id", async () => {
      const both = await combined("main");
      assert.equal(both.status, 200);
      assert.equal(both.body.state, "failure");
      assert.equal(both.body.sha, second);
      assert.equal(both.body.total_count, 2);
      assert.deepEqual(
        both.body.statuses.map((s) => [s.context, s.status]),
        [
          ["ci/test", "failure"],
          ["ci/build", "success"],
        ],
      );
      assert.equal(both.body.repository.full_name, "cleo/ci");
      await post(second, { state: "success", context: "ci/test" });
      assert.equal((await combined(second)).body.state, "success");
      await post(second, { state: "warning", context: "lint" });
      assert.equal((await combined(second)).body.state, "warning");
      await post(second, { state: "error", context: "deploy" });
      assert.equal((await combined(second)).body.state, "failure", "an error shows as a failure");
      // The tag names the first commit, which has no status yet.
      const none = await combined("v1");
      assert.equal(none.body.state, "pending");
      assert.equal(none.body.sha, first);
      assert.equal(none.body.total_count, 0);
      assert.deepEqual(none.body.statuses, []);
      // What pull requests and branch protection read.
      const db = forge.server.app.database?.db;
      assert.ok(db);
      const repo = await api<{ id: number }>(forge.url, "GET", base);
      const service = await combinedStatus(db, repo.body.id, second);
      assert.equal(service.state, "failure");
      assert.equal(service.statuses.length, 4);
      assert.equal((await combinedStatus(db, repo.body.id, first)).state, undefined);
    });

    test("statuses reported together are numbered once each", async () => {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => post(first, { state: "success", context: `job/${i}` })),
      );
      assert.ok(answers.every((answer) => answer.status === 201));
      assert.deepEqual(
        answers.map((answer) => answer.body.id).sort((a, b) => a - b),
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
      const listed = await api<Status[]>(forge.url, "GET", `${base}/statuses/${first}?limit=50`);
      assert.equal(listed.body.length, 12);
    });

    test("a private repository's statuses are hidden from strangers", async () => {
      const secret = await cloneNewRepository(forge.url, people.cleo, "quiet", { private: true });
      try {
        const sha = await secret.git("rev-parse", "HEAD");
        const made = await api(forge.url, "POST", `/repos/cleo/quiet/statuses/${sha}`, {
          token: people.cleo.token,
          body: { state: "success" },
        });
        assert.equal(made.status, 201);
        for (const path of [`/statuses/${sha}`, "/commits/main/statuses", "/commits/main/status"]) {
          assert.equal((await api(forge.url, "GET", `/repos/cleo/quiet${path}`)).status, 404, path);
          const seen = await api(forge.url, "GET", `/repos/cleo/quiet${path}`, { token: people.zed.token });
          assert.equal(seen.status, 404, path);
        }
        const refused = await api(forge.url, "POST", `/repos/cleo/quiet/statuses/${sha}`, {
          token: people.zed.token,
          body: { state: "success" },
        });
        assert.equal(refused.status, 404);
      } finally {
        await secret.remove();
      }
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);
