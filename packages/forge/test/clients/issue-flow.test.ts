// Issue 16's acceptance, as a user does it: with gitea-js only, a repository hook is pointed at a
// real `anvil hooks` process; labels, a milestone and a collaborator are made; an issue is opened
// with them, commented on, relabelled and closed. Each step runs the runner's command with the
// event type, the action and the issue number, and only because the signature checks out: a hook
// of the runner whose rule holds another secret runs nothing.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  type HookRunner,
  headerIsOneOf,
  signedWith,
  startHookRunner,
  type TempDir,
  tempDir,
  waitFor,
} from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { giteaJsPerson } from "./gitea-js-people.ts";
import { assertClientType } from "./typings.ts";

const SECRET = "issue-flow-secret";
const ISSUE_EVENTS = ["issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"];

interface Delivery {
  response: { status: number; body: string } | null;
}

forEachForge(
  "issue 16's flow: gitea-js opens, comments, relabels and closes; `anvil hooks` runs each step",
  (forge) => {
    let dir: TempDir;
    let runner: HookRunner;

    before(async () => {
      dir = await tempDir("anvil-issue-flow-");
      // Each hook records its own id first, the event type, the action and the issue number.
      const recorded = (id: string) => [
        { source: "string" as const, name: id },
        { source: "header" as const, name: "X-Gitea-Event-Type" },
        { source: "payload" as const, name: "action" },
        { source: "payload" as const, name: "issue.number" },
      ];
      const issueEvents = headerIsOneOf("X-Gitea-Event-Type", ISSUE_EVENTS);
      runner = await startHookRunner(dir.path, [
        { id: "flow", arguments: recorded("flow"), rule: { and: [signedWith(SECRET), issueEvents] } },
        {
          id: "forged",
          arguments: recorded("forged"),
          rule: { and: [signedWith("another-secret"), issueEvents] },
        },
      ]);
    });

    after(async () => {
      await runner?.stop();
      await dir?.remove();
    });

    test("each step arrives signed, in order, with its event type, action and issue number", async () => {
      const owner = await giteaJsPerson(forge.url, forge.adminToken, "olivia");
      await giteaJsPerson(forge.url, forge.adminToken, "carl");
      const { client } = owner;
      const repo = await client.user.createCurrentUserRepo({ name: "tracker", auto_init: true });
      assert.equal(repo.status, 201);
      assertClientType("Repository", repo.data);

      const hookIds: number[] = [];
      for (const id of ["flow", "forged"]) {
        const hook = await client.repos.repoCreateHook("olivia", "tracker", {
          type: "gitea",
          config: { url: runner.url(id), content_type: "json", secret: SECRET },
          events: ISSUE_EVENTS,
          active: true,
        });
        assert.equal(hook.status, 201);
        assertClientType("Hook", hook.data);
        assert.deepEqual(hook.data.events, ISSUE_EVENTS);
        assert.equal(hook.data.config?.url, runner.url(id));
        hookIds.push(hook.data.id as number);
      }

      const bug = await client.repos.issueCreateLabel("olivia", "tracker", { name: "bug", color: "#ee0701" });
      assert.equal(bug.status, 201);
      assertClientType("Label", bug.data);
      const ui = await client.repos.issueCreateLabel("olivia", "tracker", {
        name: "ui",
        color: "0052cc",
        description: "the screens",
      });
      assertClientType("Label", ui.data);
      const v1 = await client.repos.issueCreateMilestone("olivia", "tracker", {
        title: "v1",
        description: "first release",
      });
      assert.equal(v1.status, 201);
      assertClientType("Milestone", v1.data);
      const added = await client.repos.repoAddCollaborator("olivia", "tracker", "carl", {
        permission: "write",
      });
      assert.equal(added.status, 204);

      /** Waits until `count` commands ran for the flow hook; their [type, action, number]. */
      const flowCalls = async (count: number) => {
        const calls = await waitFor(`${count} commands run`, async () => {
          const ran = (await runner.calls()).filter((call) => call[0] === "flow");
          return ran.length >= count ? ran : undefined;
        });
        return calls.map((call) => call.slice(1));
      };

      const opened = await client.repos.issueCreateIssue("olivia", "tracker", {
        title: "the button is grey",
        body: "It should be blue.",
        labels: [bug.data.id as number],
        milestone: v1.data.id,
        assignees: ["carl"],
      });
      assert.equal(opened.status, 201);
      assertClientType("Issue", opened.data);
      assert.deepEqual(
        opened.data.labels?.map((label) => label.name),
        ["bug"],
      );
      assert.equal(opened.data.milestone?.title, "v1");
      assert.deepEqual(
        opened.data.assignees?.map((user) => user.login),
        ["carl"],
      );
      const number = String(opened.data.number);
      // Gitea sends these four for one creation; their deliveries are independent, so any order.
      const onCreate = await flowCalls(4);
      assert.deepEqual(
        onCreate.slice().sort(),
        [
          ["issue_assign", "assigned", number],
          ["issue_label", "label_updated", number],
          ["issue_milestone", "milestoned", number],
          ["issues", "opened", number],
        ],
        JSON.stringify(onCreate),
      );

      const comment = await client.repos.issueCreateComment(
        "olivia",
        "tracker",
        opened.data.number as number,
        {
          body: "Confirmed on the settings page.",
        },
      );
      assert.equal(comment.status, 201);
      assertClientType("Comment", comment.data);
      assert.equal(comment.data.body, "Confirmed on the settings page.");
      assert.deepEqual((await flowCalls(5))[4], ["issue_comment", "created", number]);

      const relabelled = await client.repos.issueReplaceLabels(
        "olivia",
        "tracker",
        opened.data.number as number,
        {
          labels: [ui.data.id],
        },
      );
      assert.equal(relabelled.status, 200);
      assertClientType("Label[]", relabelled.data);
      assert.deepEqual(
        relabelled.data.map((label) => label.name),
        ["ui"],
      );
      assert.deepEqual((await flowCalls(6))[5], ["issue_label", "label_updated", number]);

      const closed = await client.repos.issueEditIssue("olivia", "tracker", opened.data.number as number, {
        state: "closed",
      });
      assert.equal(closed.status, 201);
      assertClientType("Issue", closed.data);
      assert.equal(closed.data.state, "closed");
      assert.deepEqual((await flowCalls(7))[6], ["issues", "closed", number]);

      // The hook whose rule holds another secret was sent every step too (and the ping), and
      // refused each one.
      const refused = await waitFor("the other hook's eight refusals", async () => {
        const page = await api<Delivery[]>(
          forge.url,
          "GET",
          `/repos/olivia/tracker/hooks/${hookIds[1]}/deliveries`,
          { token: owner.token },
        );
        const answered = page.body.filter((delivery) => delivery.response !== null);
        return answered.length >= 8 ? answered : undefined;
      });
      assert.deepEqual(
        refused.map((delivery) => delivery.response?.status),
        Array(8).fill(500),
      );
      const ran = await runner.calls();
      assert.equal(ran.filter((call) => call[0] !== "flow").length, 0, JSON.stringify(ran));
      assert.equal(ran.length, 7, "one command per step, none twice");
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);
