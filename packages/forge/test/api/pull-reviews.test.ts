import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type TempDir, tempDir, waitFor } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";
import { type Clone, cloneOf, makeRepository, waitForMergeable } from "../support/pulls.ts";
import { payloadOf, type Receiver, startReceiver } from "../support/receiver.ts";

// Reviews of pull requests: approving, asking for changes, commenting, pending reviews, review
// requests, dismissals, and the approvals branch protection asks for before a merge.

interface Review {
  id: number;
  state: string;
  official: boolean;
  dismissed: boolean;
  comments_count: number;
  user: { login: string };
}

forEachForge(
  "forge pull request reviews",
  (forge) => {
    let ada: Person;
    let bob: Person;
    let cara: Person;
    let work: TempDir;
    let clone: Clone;
    let receiver: Receiver;
    let number = 0;

    before(async () => {
      work = await tempDir("forge-pull-reviews-");
      receiver = await startReceiver();
      ada = await makePerson(forge.url, forge.adminToken, "ada");
      bob = await makePerson(forge.url, forge.adminToken, "bob");
      cara = await makePerson(forge.url, forge.adminToken, "cara");
      await makeRepository(forge.url, ada.token, "lib");
      const added = await api(forge.url, "PUT", "/repos/ada/lib/collaborators/cara", {
        token: ada.token,
        body: { permission: "write" },
      });
      assert.equal(added.status, 204);
      const hook = await api(forge.url, "POST", "/repos/ada/lib/hooks", {
        token: ada.token,
        body: {
          type: "gitea",
          config: { url: receiver.url, content_type: "json" },
          // `issues` too: a pull's issue side must raise none of them.
          events: ["pull_request", "pull_request_review", "issues"],
          active: true,
        },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      clone = await cloneOf(forge.url, "ada", "password123", "ada", "lib", work.path);
      number = await pullOf("reviewed");
    });
    after(async () => {
      await receiver.close();
      await work.remove();
    });

    const pulls = "/repos/ada/lib/pulls";

    async function pullOf(branch: string): Promise<number> {
      await clone.run("fetch", "-q", "origin");
      await clone.run("checkout", "-q", "-B", branch, "origin/main");
      await clone.commit(`${branch}.txt`, `${branch}\n`, `add ${branch}`);
      await clone.push(branch);
      const made = await api<{ number: number }>(forge.url, "POST", pulls, {
        token: ada.token,
        body: { head: branch, base: "main", title: `Pull ${branch}` },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      await waitForMergeable(forge.url, ada.token, `${pulls}/${made.body.number}`, true);
      return made.body.number;
    }

    const review = (n: number, token: string, body: Record<string, unknown>) =>
      api<Review & { message: string }>(forge.url, "POST", `${pulls}/${n}/reviews`, { token, body });

    const mergeWhenChecked = (n: number, body: Record<string, unknown>) =>
      waitFor(`pull ${n} merged or refused`, async () => {
        const answer = await api<{ message: string }>(forge.url, "POST", `${pulls}/${n}/merge`, {
          token: ada.token,
          body,
        });
        return answer.status === 405 && answer.body.message === "Please try again later" ? undefined : answer;
      });

    test("an approval by a reader is not official; one by a writer is, and raises pull_request_approved", async () => {
      const byBob = await review(number, bob.token, { event: "APPROVED", body: "looks fine" });
      assert.equal(byBob.status, 200, JSON.stringify(byBob.body));
      assert.equal(byBob.body.state, "APPROVED");
      assert.equal(byBob.body.official, false);
      const from = receiver.received.length;
      const byCara = await api<Review>(forge.url, "POST", `${pulls}/${number}/reviews`, {
        token: cara.token,
        body: { event: "APPROVED" },
        shape: "PullReview",
      });
      assert.equal(byCara.body.official, true);
      const hook = await receiver.next(
        (r) => r.headers["x-gitea-event-type"] === "pull_request_review_approved",
        from,
      );
      assert.equal(hook.headers["x-gitea-event"], "pull_request_approved");
      const payload = payloadOf<{
        action: string;
        review: { type: string };
        pull_request: { number: number };
      }>(hook);
      assert.equal(payload.action, "reviewed");
      assert.equal(payload.review.type, "pull_request_review_approved");
      assert.equal(payload.pull_request.number, number);
      const listed = await api<Review[]>(forge.url, "GET", `${pulls}/${number}/reviews`, {
        shape: "PullReview[]",
      });
      assert.deepEqual(
        listed.body.map((row) => [row.user.login, row.state]),
        [
          ["bob", "APPROVED"],
          ["cara", "APPROVED"],
        ],
      );
    });

    test("changes to a pull's issue side arrive as pull_request events: edited, label_updated, assigned, closed, reopened", async () => {
      const label = await api<{ id: number }>(forge.url, "POST", "/repos/ada/lib/labels", {
        token: ada.token,
        body: { name: "hooked", color: "ff0000" },
      });
      const from = receiver.received.length;
      const edited = await api(forge.url, "PATCH", `${pulls}/${number}`, {
        token: ada.token,
        body: { title: "Pull reviewed, renamed", labels: [label.body.id], assignees: ["cara"] },
      });
      assert.equal(edited.status, 201);
      await api(forge.url, "PATCH", `${pulls}/${number}`, { token: ada.token, body: { state: "closed" } });
      await api(forge.url, "PATCH", `${pulls}/${number}`, { token: ada.token, body: { state: "open" } });
      const seen = (type: string, action: string) =>
        receiver.next(
          (r) =>
            r.headers["x-gitea-event-type"] === type && payloadOf<{ action: string }>(r).action === action,
          from,
        );
      const title = await seen("pull_request", "edited");
      assert.equal(
        payloadOf<{ changes: { title: { from: string } } }>(title).changes.title.from,
        "Pull reviewed",
      );
      assert.equal(
        payloadOf<{ pull_request: { title: string } }>(title).pull_request.title,
        "Pull reviewed, renamed",
      );
      const labelled = await seen("pull_request_label", "label_updated");
      assert.equal(labelled.headers["x-gitea-event"], "pull_request");
      await seen("pull_request_assign", "assigned");
      await seen("pull_request", "closed");
      await seen("pull_request", "reopened");
      // The issue side raises no `issues` event, which the hook hears too.
      assert.ok(!receiver.received.slice(from).some((r) => r.headers["x-gitea-event"] === "issues"));
    });

    test("Gitea's refusals: approving or rejecting one's own pull, a comment with nothing in it, an unknown event", async () => {
      assert.equal((await review(number, ada.token, { event: "APPROVED" })).status, 422);
      assert.equal((await review(number, ada.token, { event: "REQUEST_CHANGES", body: "no" })).status, 422);
      const empty = await review(number, bob.token, { event: "COMMENT" });
      assert.equal(empty.status, 422);
      assert.equal(empty.body.message, "review event COMMENT requires a body or comment");
      assert.equal((await review(number, bob.token, { event: "SHRUG", body: "x" })).status, 422);
      assert.equal((await review(number, "", { event: "COMMENT", body: "x" })).status, 401);
    });

    test("a pending review is its reviewer's until submitted, with its code comments", async () => {
      const pending = await review(number, cara.token, {
        event: "PENDING",
        body: "thoughts",
        comments: [{ path: "reviewed.txt", body: "why this line?", new_position: 1 }],
      });
      assert.equal(pending.status, 200, JSON.stringify(pending.body));
      assert.equal(pending.body.state, "PENDING");
      assert.equal(pending.body.comments_count, 1);
      const path = `${pulls}/${number}/reviews/${pending.body.id}`;
      assert.equal((await api(forge.url, "GET", path, { token: bob.token })).status, 404);
      const listedForBob = await api<Review[]>(forge.url, "GET", `${pulls}/${number}/reviews`, {
        token: bob.token,
      });
      assert.ok(!listedForBob.body.some((row) => row.id === pending.body.id));
      const comments = await api<Array<{ path: string; body: string; position: number }>>(
        forge.url,
        "GET",
        `${path}/comments`,
        { token: cara.token, shape: "PullReviewComment[]" },
      );
      assert.deepEqual(
        comments.body.map((c) => [c.path, c.body, c.position]),
        [["reviewed.txt", "why this line?", 1]],
      );
      assert.equal(
        (await api(forge.url, "POST", path, { token: bob.token, body: { event: "COMMENT" } })).status,
        404,
      );
      const submitted = await api<Review>(forge.url, "POST", path, {
        token: cara.token,
        body: { event: "REQUEST_CHANGES", body: "please change" },
        shape: "PullReview",
      });
      assert.equal(submitted.status, 200);
      assert.equal(submitted.body.state, "REQUEST_CHANGES");
      assert.equal(submitted.body.official, true);
      const again = await api(forge.url, "POST", path, {
        token: cara.token,
        body: { event: "COMMENT", body: "x" },
      });
      assert.equal(again.status, 422);
    });

    test("review requests: asked, shown on the pull, answered by the review; withdrawn with DELETE", async () => {
      const other = await pullOf("requested");
      const asked = await api<Review[]>(forge.url, "POST", `${pulls}/${other}/requested_reviewers`, {
        token: ada.token,
        body: { reviewers: ["cara", "bob"] },
        shape: "PullReview[]",
      });
      assert.equal(asked.status, 201, JSON.stringify(asked.body));
      assert.deepEqual(
        asked.body.map((row) => row.state),
        ["REQUEST_REVIEW", "REQUEST_REVIEW"],
      );
      const shown = await api<{ requested_reviewers: Array<{ login: string }> }>(
        forge.url,
        "GET",
        `${pulls}/${other}`,
      );
      assert.deepEqual(shown.body.requested_reviewers.map((user) => user.login).sort(), ["bob", "cara"]);
      assert.equal((await review(other, cara.token, { event: "COMMENT", body: "ok" })).status, 200);
      const after = await api<{ requested_reviewers: Array<{ login: string }> }>(
        forge.url,
        "GET",
        `${pulls}/${other}`,
      );
      assert.deepEqual(
        after.body.requested_reviewers.map((user) => user.login),
        ["bob"],
      );
      const removed = await api(forge.url, "DELETE", `${pulls}/${other}/requested_reviewers`, {
        token: ada.token,
        body: { reviewers: ["bob"] },
      });
      assert.equal(removed.status, 204);
      const none = await api<{ requested_reviewers: unknown[] }>(forge.url, "GET", `${pulls}/${other}`);
      assert.deepEqual(none.body.requested_reviewers, []);
      assert.equal(
        (
          await api(forge.url, "POST", `${pulls}/${other}/requested_reviewers`, {
            token: ada.token,
            body: { reviewers: ["ada"] },
          })
        ).status,
        422,
      );
      assert.equal(
        (
          await api(forge.url, "POST", `${pulls}/${other}/requested_reviewers`, {
            token: ada.token,
            body: { reviewers: ["nobody"] },
          })
        ).status,
        404,
      );
      assert.equal(
        (
          await api(forge.url, "POST", `${pulls}/${other}/requested_reviewers`, {
            token: bob.token,
            body: { reviewers: ["cara"] },
          })
        ).status,
        403,
      );
    });

    test("required approvals block the merge (405) until an official approval; a dismissal takes it back", async () => {
      const rule = await api(forge.url, "POST", "/repos/ada/lib/branch_protections", {
        token: ada.token,
        body: { rule_name: "main", required_approvals: 1, enable_push: true },
      });
      assert.equal(rule.status, 201, JSON.stringify(rule.body));
      const gated = await pullOf("gated");
      const refused = await mergeWhenChecked(gated, { Do: "merge" });
      assert.equal(refused.status, 405);
      assert.equal(refused.body.message, "not allowed to merge [reason: Does not have enough approvals]");
      // A reader's approval does not count.
      assert.equal((await review(gated, bob.token, { event: "APPROVED" })).status, 200);
      assert.equal((await mergeWhenChecked(gated, { Do: "merge" })).status, 405);
      const approval = await review(gated, cara.token, { event: "APPROVED" });
      assert.equal(approval.body.official, true);
      // Dismissed by a repository admin: the approval no longer counts.
      const dismissed = await api<Review>(
        forge.url,
        "POST",
        `${pulls}/${gated}/reviews/${approval.body.id}/dismissals`,
        {
          token: ada.token,
          body: { message: "stale" },
          shape: "PullReview",
        },
      );
      assert.equal(dismissed.status, 200);
      assert.equal(dismissed.body.dismissed, true);
      assert.equal(
        (
          await api(forge.url, "POST", `${pulls}/${gated}/reviews/${approval.body.id}/dismissals`, {
            token: cara.token,
            body: {},
          })
        ).status,
        403,
      );
      assert.equal((await mergeWhenChecked(gated, { Do: "merge" })).status, 405);
      const undismissed = await api<Review>(
        forge.url,
        "POST",
        `${pulls}/${gated}/reviews/${approval.body.id}/undismissals`,
        { token: ada.token },
      );
      assert.equal(undismissed.body.dismissed, false);
      assert.equal((await mergeWhenChecked(gated, { Do: "merge" })).status, 200);
    });

    test("an admin's force_merge passes missing approvals", async () => {
      const forced = await pullOf("forced");
      assert.equal((await mergeWhenChecked(forced, { Do: "merge" })).status, 405);
      assert.equal((await mergeWhenChecked(forced, { Do: "merge", force_merge: true })).status, 200);
    });

    test("a pushed head makes approvals stale (dismissed under dismiss_stale_approvals); an outdated head is refused under block_on_outdated_branch", async () => {
      const edited = await api(forge.url, "PATCH", "/repos/ada/lib/branch_protections/main", {
        token: ada.token,
        body: { dismiss_stale_approvals: true, block_on_outdated_branch: true },
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const stale = await pullOf("stale");
      const approval = await review(stale, cara.token, { event: "APPROVED" });
      assert.equal(approval.status, 200);
      const next = await clone.commit("stale2.txt", "more\n", "more work");
      await clone.push("stale");
      await waitFor("the stale approval", async () => {
        const seen = await api<Review & { stale: boolean }>(
          forge.url,
          "GET",
          `${pulls}/${stale}/reviews/${approval.body.id}`,
        );
        return seen.body.stale && seen.body.dismissed ? true : undefined;
      });
      const pull = await api<{ head: { sha: string } }>(forge.url, "GET", `${pulls}/${stale}`);
      assert.equal(pull.body.head.sha, next);
      const refused = await mergeWhenChecked(stale, { Do: "merge" });
      assert.equal(refused.status, 405);
      assert.equal(refused.body.message, "not allowed to merge [reason: Does not have enough approvals]");

      const behind = await pullOf("behind");
      assert.equal((await review(behind, cara.token, { event: "APPROVED" })).status, 200);
      await clone.run("checkout", "-q", "-B", "main", "origin/main");
      await clone.commit("elsewhere.txt", "elsewhere\n", "main moves on");
      // Pushing to the protected branch is allowed by the rule (enable_push).
      await clone.push("main");
      const outdated = await mergeWhenChecked(behind, { Do: "merge" });
      assert.equal(outdated.status, 405);
      assert.equal(
        outdated.body.message,
        "not allowed to merge [reason: The head branch is behind the base branch]",
      );
    });

    test("required status checks hold the merge until the head's required contexts succeed", async () => {
      const edited = await api(forge.url, "PATCH", "/repos/ada/lib/branch_protections/main", {
        token: ada.token,
        body: { enable_status_check: true, status_check_contexts: ["ci/*"], block_on_outdated_branch: false },
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const checked = await pullOf("checked");
      assert.equal((await review(checked, cara.token, { event: "APPROVED" })).status, 200);
      const refused = await mergeWhenChecked(checked, { Do: "merge" });
      assert.equal(refused.status, 405);
      assert.equal(
        refused.body.message,
        "not allowed to merge [reason: Not all required status checks successful]",
      );
      const head = await clone.run("rev-parse", "checked");
      const status = (state: string, context: string) =>
        api(forge.url, "POST", `/repos/ada/lib/statuses/${head}`, {
          token: ada.token,
          body: { state, context },
        });
      assert.equal((await status("success", "lint")).status, 201);
      assert.equal((await status("pending", "ci/build")).status, 201);
      assert.equal((await mergeWhenChecked(checked, { Do: "merge" })).status, 405);
      assert.equal((await status("success", "ci/build")).status, 201);
      assert.equal((await mergeWhenChecked(checked, { Do: "merge" })).status, 200);
    });

    test("a review is deleted by its reviewer, not by another user", async () => {
      const made = await review(number, bob.token, { event: "COMMENT", body: "one more" });
      const path = `${pulls}/${number}/reviews/${made.body.id}`;
      assert.equal((await api(forge.url, "DELETE", path, { token: cara.token })).status, 403);
      assert.equal((await api(forge.url, "DELETE", path, { token: bob.token })).status, 204);
      assert.equal((await api(forge.url, "GET", path)).status, 404);
      assert.equal((await api(forge.url, "GET", `${pulls}/${number}/reviews/abc`)).status, 404);
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);
