import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type TempDir, tempDir, waitFor } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";
import { type Clone, cloneOf, makeRepository, waitForMergeable } from "../support/pulls.ts";
import { payloadOf, type Receiver, startReceiver } from "../support/receiver.ts";

// Merging pull requests in each of Gitea's styles, checked in a real clone; conflicts, races,
// stale heads and what a merge changes besides the branch (the pull, its issue, the issues it
// closes, webhooks).

interface Pull {
  number: number;
  state: string;
  merged: boolean;
  mergeable: boolean;
  merge_commit_sha?: string;
  merged_by: { login: string } | null;
  head: { sha: string };
}

forEachForge(
  "forge pull request merges",
  (forge) => {
    let ada: Person;
    let bob: Person;
    let work: TempDir;
    let clone: Clone;
    let receiver: Receiver;

    before(async () => {
      work = await tempDir("forge-pull-merges-");
      receiver = await startReceiver();
      ada = await makePerson(forge.url, forge.adminToken, "ada");
      bob = await makePerson(forge.url, forge.adminToken, "bob");
      await makeRepository(forge.url, ada.token, "app");
      const hook = await api(forge.url, "POST", "/repos/ada/app/hooks", {
        token: ada.token,
        body: {
          type: "gitea",
          config: { url: receiver.url, content_type: "json" },
          events: ["pull_request", "issues", "push", "delete"],
          active: true,
        },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      clone = await cloneOf(forge.url, "ada", "password123", "ada", "app", work.path);
    });
    after(async () => {
      await receiver.close();
      await work.remove();
    });

    const pulls = "/repos/ada/app/pulls";

    /** A branch from main with these files committed one by one, pushed, and a pull of it into main. */
    async function pullOf(branch: string, files: Array<[string, string]>, body = ""): Promise<number> {
      await clone.run("fetch", "-q", "origin");
      await clone.run("checkout", "-q", "-B", branch, "origin/main");
      for (const [path, content] of files) await clone.commit(path, content, `${branch}: ${path}`);
      await clone.push("-f", branch);
      const made = await api<Pull>(forge.url, "POST", pulls, {
        token: ada.token,
        body: { head: branch, base: "main", title: `Pull ${branch}`, body },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      await waitForMergeable(forge.url, ada.token, `${pulls}/${made.body.number}`, true);
      return made.body.number;
    }

    /** Moves main on by one commit (so that merges are not fast-forwards). */
    async function advanceMain(path: string): Promise<string> {
      await clone.run("fetch", "-q", "origin");
      await clone.run("checkout", "-q", "-B", "main", "origin/main");
      const id = await clone.commit(path, `${path}\n`, `main: ${path}`);
      await clone.push("main");
      return id;
    }

    async function remoteMain(): Promise<string> {
      await clone.run("fetch", "-q", "origin");
      return clone.run("rev-parse", "origin/main");
    }

    const merge = (number: number, body: Record<string, unknown>, token = ada.token) =>
      api<{ message: string }>(forge.url, "POST", `${pulls}/${number}/merge`, { token, body });

    /**
     * Merges once the pull's check after the last push has run: a push marks its pulls just after
     * git's answer, and until the check ends a merge answers 405 "Please try again later".
     */
    const mergeWhenChecked = (number: number, body: Record<string, unknown>) =>
      waitFor(`pull ${number} merged or refused`, async () => {
        const answer = await merge(number, body);
        return answer.status === 405 && answer.body.message === "Please try again later" ? undefined : answer;
      });

    test("merge: a merge commit with the base and the head as parents, Gitea's message; the pull and its issue closed", async () => {
      const before = await advanceMain("m0.txt");
      const number = await pullOf("merge-style", [["a.txt", "a\n"]]);
      const head = await clone.run("rev-parse", "merge-style");
      const from = receiver.received.length;
      const merged = await mergeWhenChecked(number, { Do: "merge" });
      assert.equal(merged.status, 200, JSON.stringify(merged.body));
      const tip = await remoteMain();
      assert.equal(await clone.run("log", "-1", "--format=%P", tip), `${before} ${head}`);
      assert.equal(
        await clone.run("log", "-1", "--format=%s", tip),
        `Merge pull request 'Pull merge-style' (#${number}) from merge-style into main`,
      );
      assert.equal(await clone.run("log", "-1", "--format=%an <%ae>", tip), "ada <ada@example.com>");
      const pull = await api<Pull>(forge.url, "GET", `${pulls}/${number}`, { shape: "PullRequest" });
      assert.equal(pull.body.merged, true);
      assert.equal(pull.body.state, "closed");
      assert.equal(pull.body.merge_commit_sha, tip);
      assert.equal(pull.body.merged_by?.login, "ada");
      assert.equal((await api(forge.url, "GET", `${pulls}/${number}/merge`)).status, 204);
      const issue = await api<{ state: string; pull_request: { merged: boolean } }>(
        forge.url,
        "GET",
        `/repos/ada/app/issues/${number}`,
      );
      assert.equal(issue.body.state, "closed");
      assert.equal(issue.body.pull_request.merged, true);
      // The webhooks: the pull closed with merged set, and the push of the base.
      const closed = await receiver.next(
        (r) =>
          r.headers["x-gitea-event"] === "pull_request" &&
          payloadOf<{ action: string; number: number }>(r).action === "closed" &&
          payloadOf<{ number: number }>(r).number === number,
        from,
      );
      assert.equal(payloadOf<{ pull_request: { merged: boolean } }>(closed).pull_request.merged, true);
      const push = await receiver.next((r) => r.headers["x-gitea-event"] === "push", from);
      assert.equal(payloadOf<{ after: string; ref: string }>(push).after, tip);
      // Merged once: a second merge is a 405, the state cannot change (412).
      assert.equal((await merge(number, { Do: "merge" })).status, 405);
      const reopen = await api(forge.url, "PATCH", `${pulls}/${number}`, {
        token: ada.token,
        body: { state: "open" },
      });
      assert.equal(reopen.status, 412);
      const repo = await api<{ open_pr_counter: number }>(forge.url, "GET", "/repos/ada/app");
      assert.equal(repo.body.open_pr_counter, 0);
    });

    test("a pull merged the moment it is opened: its check runs within the merge (200), many commits ahead", async () => {
      await clone.run("fetch", "-q", "origin");
      await clone.run("checkout", "-q", "-B", "at-once", "origin/main");
      for (let n = 0; n < 30; n++) await clone.commit(`once-${n % 5}.txt`, `${n}\n`, `at once ${n}`);
      await clone.push("at-once");
      const before = await remoteMain();
      const made = await api<Pull>(forge.url, "POST", pulls, {
        token: ada.token,
        body: { head: "at-once", base: "main", title: "At once" },
      });
      assert.equal(made.status, 201);
      const merged = await merge(made.body.number, { Do: "merge" });
      assert.equal(merged.status, 200, JSON.stringify(merged.body));
      const tip = await remoteMain();
      assert.equal(
        await clone.run("log", "-1", "--format=%P", tip),
        `${before} ${await clone.run("rev-parse", "at-once")}`,
      );
      assert.equal(await clone.run("rev-list", "--count", `${before}..${tip}`), "31");
    });

    test("rebase: each commit replayed on the base with a new id, its author and message kept, no merge commit", async () => {
      const number = await pullOf("rebase-style", [
        ["r1.txt", "1\n"],
        ["r2.txt", "2\n"],
      ]);
      const original = (await clone.run("log", "--format=%H %s", "origin/main..rebase-style")).split("\n");
      const before = await advanceMain("r0.txt");
      await waitForMergeable(forge.url, ada.token, `${pulls}/${number}`, true);
      assert.equal((await mergeWhenChecked(number, { Do: "rebase" })).status, 200);
      const tip = await remoteMain();
      const replayed = (await clone.run("log", "--format=%H %P %s", `${before}..${tip}`)).split("\n");
      assert.equal(replayed.length, 2);
      const [second, first] = replayed.map((line) => line.split(" "));
      assert.equal(first[1], before);
      assert.equal(second[1], first[0]);
      assert.deepEqual(
        replayed.map((line) => line.split(" ").slice(2).join(" ")),
        original.map((line) => line.split(" ").slice(1).join(" ")),
      );
      for (const line of original) assert.ok(!replayed.some((row) => row.startsWith(line.split(" ")[0])));
      assert.equal(await clone.run("show", `${tip}:r2.txt`), "2");
      assert.equal(await clone.run("show", `${tip}:r0.txt`), "r0.txt");
    });

    test("rebase-merge: the rebased commits joined by a merge commit", async () => {
      const number = await pullOf("rebase-merge-style", [["rm1.txt", "1\n"]]);
      const head = await clone.run("rev-parse", "rebase-merge-style");
      const before = await advanceMain("rm0.txt");
      await waitForMergeable(forge.url, ada.token, `${pulls}/${number}`, true);
      assert.equal((await mergeWhenChecked(number, { Do: "rebase-merge" })).status, 200);
      const tip = await remoteMain();
      const [first, second] = (await clone.run("log", "-1", "--format=%P", tip)).split(" ");
      assert.equal(first, before);
      assert.notEqual(second, head);
      assert.equal(await clone.run("log", "-1", "--format=%P", second), before);
      assert.equal(await clone.run("log", "-1", "--format=%s", second), "rebase-merge-style: rm1.txt");
    });

    test("squash: one commit on the base, by the pull's poster, titled '<title> (#N)'", async () => {
      const before = await advanceMain("s0.txt");
      await clone.run("fetch", "-q", "origin");
      await clone.run("checkout", "-q", "-B", "squash-style", "origin/main");
      await clone.commit("s1.txt", "1\n", "one");
      await clone.commit("s2.txt", "2\n", "two");
      await clone.push("squash-style");
      const made = await api<Pull>(forge.url, "POST", pulls, {
        token: bob.token,
        body: { head: "squash-style", base: "main", title: "Squash me" },
      });
      assert.equal(made.status, 201);
      const number = made.body.number;
      await waitForMergeable(forge.url, ada.token, `${pulls}/${number}`, true);
      assert.equal((await mergeWhenChecked(number, { Do: "squash" })).status, 200);
      const tip = await remoteMain();
      assert.equal(await clone.run("log", "-1", "--format=%P", tip), before);
      assert.equal(await clone.run("log", "-1", "--format=%s", tip), `Squash me (#${number})`);
      assert.equal(await clone.run("log", "-1", "--format=%an|%cn", tip), "bob|ada");
      assert.equal(await clone.run("show", `${tip}:s2.txt`), "2");
      assert.equal(await clone.run("rev-list", "--count", `${before}..${tip}`), "1");
    });

    test("fast-forward-only: the base becomes the head; a base that moved on is a 409 and stays", async () => {
      const number = await pullOf("ff-style", [["f1.txt", "1\n"]]);
      const head = await clone.run("rev-parse", "ff-style");
      assert.equal((await mergeWhenChecked(number, { Do: "fast-forward-only" })).status, 200);
      assert.equal(await remoteMain(), head);

      const diverged = await pullOf("ff-diverged", [["f2.txt", "2\n"]]);
      const moved = await advanceMain("f3.txt");
      await waitForMergeable(forge.url, ada.token, `${pulls}/${diverged}`, true);
      const refused = await mergeWhenChecked(diverged, { Do: "fast-forward-only" });
      assert.equal(refused.status, 409);
      assert.equal(await remoteMain(), moved);
      const pull = await api<Pull>(forge.url, "GET", `${pulls}/${diverged}`);
      assert.equal(pull.body.merged, false);
      // The claim was given back: the pull may be merged another way.
      assert.equal((await mergeWhenChecked(diverged, { Do: "merge" })).status, 200);
    });

    test("a conflicting push to the base makes the pull unmergeable later; its merge is a 409 and moves no ref", async () => {
      const number = await pullOf("conflicting", [["shared.txt", "from the pull\n"]]);
      const pull = await api<Pull>(forge.url, "GET", `${pulls}/${number}`);
      assert.equal(pull.body.mergeable, true);
      await clone.run("checkout", "-q", "-B", "main", "origin/main");
      await clone.commit("shared.txt", "from main\n", "main: shared.txt");
      await clone.push("main");
      const tip = await remoteMain();
      await waitForMergeable(forge.url, ada.token, `${pulls}/${number}`, false);
      // `mergeable` is false while the check runs too: the merge says 405 until it has ended.
      await waitFor("the check to find the conflict", async () =>
        (await merge(number, { Do: "merge" })).status === 409 ? true : undefined,
      );
      for (const Do of ["merge", "squash", "rebase"]) {
        const refused = await merge(number, { Do });
        assert.equal(refused.status, 409, Do);
        assert.match(refused.body.message, /shared\.txt/);
      }
      assert.equal(await remoteMain(), tip);
      assert.equal((await api<Pull>(forge.url, "GET", `${pulls}/${number}`)).body.merged, false);
    });

    test("two merges of one pull fired together: one succeeds, the other is refused, one merge commit", async () => {
      const before = await advanceMain("race0.txt");
      const number = await pullOf("racing", [["race.txt", "race\n"]]);
      // Fired again while every one is told to try later (the check after the push still runs).
      const answers = await waitFor("three merges, one of them through", async () => {
        const fired = await Promise.all([
          merge(number, { Do: "merge" }),
          merge(number, { Do: "merge" }),
          merge(number, { Do: "squash" }),
        ]);
        return fired.some((answer) => answer.status !== 405) ? fired : undefined;
      });
      const statuses = answers.map((answer) => answer.status).sort();
      assert.equal(statuses.filter((status) => status === 200).length, 1, JSON.stringify(statuses));
      assert.ok(
        statuses.every((status) => status === 200 || status === 405 || status === 409),
        JSON.stringify(statuses),
      );
      const tip = await remoteMain();
      // One merge landed: one merge commit (merge) or one squashed commit on the old base.
      assert.ok(Number(await clone.run("rev-list", "--count", "--merges", `${before}..${tip}`)) <= 1);
      assert.ok(Number(await clone.run("rev-list", "--count", "--first-parent", `${before}..${tip}`)) === 1);
      assert.equal((await clone.run("log", "-1", "--format=%P", tip)).split(" ")[0], before);
      assert.equal((await api<Pull>(forge.url, "GET", `${pulls}/${number}`)).body.merged, true);
    });

    test("closing keywords in the body close those issues on merge; other issues stay open", async () => {
      const fixed = await api<{ number: number }>(forge.url, "POST", "/repos/ada/app/issues", {
        token: ada.token,
        body: { title: "a bug" },
      });
      const resolved = await api<{ number: number }>(forge.url, "POST", "/repos/ada/app/issues", {
        token: ada.token,
        body: { title: "another bug" },
      });
      const mentioned = await api<{ number: number }>(forge.url, "POST", "/repos/ada/app/issues", {
        token: ada.token,
        body: { title: "only mentioned" },
      });
      const number = await pullOf(
        "fixes",
        [["fix.txt", "fixed\n"]],
        `Fixes #${fixed.body.number}, resolves #${resolved.body.number}; see #${mentioned.body.number}`,
      );
      assert.equal((await mergeWhenChecked(number, { Do: "merge" })).status, 200);
      const state = async (n: number) =>
        (await api<{ state: string }>(forge.url, "GET", `/repos/ada/app/issues/${n}`)).body.state;
      assert.equal(await state(fixed.body.number), "closed");
      assert.equal(await state(resolved.body.number), "closed");
      assert.equal(await state(mentioned.body.number), "open");
      const timeline = await api<Array<{ type: string }>>(
        forge.url,
        "GET",
        `/repos/ada/app/issues/${fixed.body.number}/timeline`,
      );
      assert.ok(timeline.body.some((event) => event.type === "close"));
    });

    test("delete_branch_after_merge removes the head branch; head_commit_id that is not the head is a 409", async () => {
      const number = await pullOf("short-lived", [["short.txt", "short\n"]]);
      const stale = await mergeWhenChecked(number, { Do: "merge", head_commit_id: "0".repeat(40) });
      assert.equal(stale.status, 409);
      assert.equal(stale.body.message, "head out of date");
      const head = await clone.run("rev-parse", "short-lived");
      const from = receiver.received.length;
      const merged = await mergeWhenChecked(number, {
        Do: "merge",
        delete_branch_after_merge: true,
        head_commit_id: head,
      });
      assert.equal(merged.status, 200);
      const branch = await api(forge.url, "GET", "/repos/ada/app/branches/short-lived");
      assert.equal(branch.status, 404);
      const deleted = await receiver.next((r) => r.headers["x-gitea-event"] === "delete", from);
      assert.equal(payloadOf<{ ref: string }>(deleted).ref, "short-lived");
    });

    test("a head force-pushed away: the merge is refused cleanly until checked again, nothing moves", async () => {
      const number = await pullOf("forced", [["forced.txt", "first\n"]]);
      const old = await remoteMain();
      const tip = await advanceMain("collide.txt");
      await waitForMergeable(forge.url, ada.token, `${pulls}/${number}`, true);
      // The head is replaced by a commit on the old base that collides with the new one.
      await clone.run("checkout", "-q", "-B", "forced", old);
      await clone.commit("collide.txt", "forced\n", "forced: colliding");
      await clone.push("-f", "forced");
      const refused = await merge(number, { Do: "merge" });
      assert.ok([405, 409].includes(refused.status), String(refused.status));
      assert.equal(await remoteMain(), tip);
      await waitFor("the check to find the conflict", async () =>
        (await merge(number, { Do: "merge" })).status === 409 ? true : undefined,
      );
      const pull = await api<Pull>(forge.url, "GET", `${pulls}/${number}`);
      assert.equal(pull.body.mergeable, false);
      assert.equal(pull.body.head.sha, await clone.run("rev-parse", "forced"));
      assert.equal(await remoteMain(), tip);
    });

    test("a pushed head is synchronized: refs/pull/N/head follows it and a pull_request_sync webhook is sent", async () => {
      const number = await pullOf("syncing", [["sync.txt", "1\n"]]);
      // Pushed by a collaborator: the webhook's sender is who pushed.
      const added = await api(forge.url, "PUT", "/repos/ada/app/collaborators/bob", {
        token: ada.token,
        body: { permission: "write" },
      });
      assert.equal(added.status, 204);
      const bobs = await cloneOf(forge.url, "bob", "password123", "ada", "app", work.path);
      await bobs.run("checkout", "-q", "syncing");
      const from = receiver.received.length;
      const next = await bobs.commit("sync2.txt", "2\n", "more");
      await bobs.push("syncing");
      const sync = await receiver.next((r) => r.headers["x-gitea-event-type"] === "pull_request_sync", from);
      assert.equal(payloadOf<{ action: string }>(sync).action, "synchronized");
      assert.equal(payloadOf<{ sender: { login: string } }>(sync).sender.login, "bob");
      await api(forge.url, "DELETE", "/repos/ada/app/collaborators/bob", { token: ada.token });
      await waitFor("the pull's head", async () => {
        const pull = await api<Pull>(forge.url, "GET", `${pulls}/${number}`);
        return pull.body.head.sha === next ? true : undefined;
      });
      await clone.run("fetch", "-q", "origin", `+refs/pull/${number}/head:refs/remotes/synced`);
      assert.equal(await clone.run("rev-parse", "refs/remotes/synced"), next);
    });

    test("manually-merged records a merge made outside with its commit; a commit not on the base is a 409", async () => {
      const number = await pullOf("by-hand", [["hand.txt", "hand\n"]]);
      const wrong = await merge(number, {
        Do: "manually-merged",
        MergeCommitID: await clone.run("rev-parse", "by-hand"),
      });
      assert.equal(wrong.status, 409);
      await clone.run("checkout", "-q", "-B", "main", "origin/main");
      await clone.run("merge", "-q", "--no-ff", "-m", "merged by hand", "by-hand");
      await clone.push("main");
      const commit = await clone.run("rev-parse", "HEAD");
      assert.equal((await merge(number, { Do: "manually-merged", MergeCommitID: commit })).status, 200);
      const pull = await api<Pull>(forge.url, "GET", `${pulls}/${number}`);
      assert.equal(pull.body.merged, true);
      assert.equal(pull.body.merge_commit_sha, commit);
    });

    test("closed pulls are not merged (404); readers get 405; an unknown style is a 422", async () => {
      const number = await pullOf("closing", [["closing.txt", "x\n"]]);
      assert.equal((await merge(number, { Do: "merge" }, bob.token)).status, 405);
      assert.equal((await merge(number, { Do: "octopus" })).status, 422);
      await api(forge.url, "PATCH", `${pulls}/${number}`, { token: ada.token, body: { state: "closed" } });
      assert.equal((await merge(number, { Do: "merge" })).status, 404);
      assert.equal((await api(forge.url, "GET", `${pulls}/${number}/merge`)).status, 404);
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);
