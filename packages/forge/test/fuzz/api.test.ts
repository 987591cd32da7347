import assert from "node:assert/strict";
import { before, test } from "node:test";
import { describeFindings, fuzzService } from "../../../core/test/fuzz/run.ts";
import { fuzzSettings } from "../../../core/test/fuzz/settings.ts";
import { api, forEachForge } from "../support/forge.ts";
import { makeUser } from "../support/people.ts";

// Malformed requests to every route of the forge's own OpenAPI document (seeded and bounded:
// see core/test/fuzz/settings.ts to run longer or with another seed).

const FILE = "packages/forge/test/fuzz/api.test.ts";

forEachForge("forge fuzz: no route answers 5xx or stalls on malformed requests", (forge) => {
  const valid: Record<string, string[]> = {};
  let idsOf: (path: string) => string[] = () => [];

  before(async () => {
    const ok = (answer: { status: number; body: unknown }, what: string) =>
      assert.ok(answer.status < 300, `${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
    const token = forge.adminToken;
    await makeUser(forge.url, token, "fuzzvictim");
    ok(await api(forge.url, "POST", "/orgs", { token, body: { username: "fuzzorg" } }), "org");
    ok(
      await api(forge.url, "POST", "/user/repos", { token, body: { name: "fuzzrepo", auto_init: true } }),
      "repo",
    );
    // The same name under both owners: any owner and repo drawn name a repository.
    ok(
      await api(forge.url, "POST", "/orgs/fuzzorg/repos", { token, body: { name: "fuzzrepo" } }),
      "org repo",
    );
    const team = await api<{ id: number }>(forge.url, "POST", "/orgs/fuzzorg/teams", {
      token,
      body: { name: "fuzzteam", permission: "write", units: ["repo.code"] },
    });
    ok(team, "team");
    ok(await api(forge.url, "PUT", "/repos/root/fuzzrepo/topics/fuzz", { token }), "topic");
    ok(
      await api(forge.url, "POST", "/repos/root/fuzzrepo/branch_protections", {
        token,
        body: { rule_name: "main" },
      }),
      "branch protection",
    );
    ok(await api(forge.url, "POST", "/repos/root/fuzzrepo/tags", { token, body: { tag_name: "v1" } }), "tag");
    ok(
      await api(forge.url, "PUT", "/repos/root/fuzzrepo/collaborators/fuzzvictim", { token, body: {} }),
      "collaborator",
    );
    // Active hooks: a ping is a delivery (refused: the default host list allows no loopback).
    const hookBody = {
      type: "gitea",
      config: { url: "http://127.0.0.1:1/", content_type: "json" },
      events: ["issues", "issue_comment"],
      active: true,
    };
    const hooks: Record<string, string> = {};
    for (const [place, path] of Object.entries({
      repos: "/repos/root/fuzzrepo/hooks",
      orgs: "/orgs/fuzzorg/hooks",
      user: "/user/hooks",
      admin: "/admin/hooks",
    })) {
      const hook = await api<{ id: number }>(forge.url, "POST", path, { token, body: hookBody });
      ok(hook, `${place} hook`);
      hooks[place] = String(hook.body.id);
    }
    const ping = await api(forge.url, "POST", `/repos/root/fuzzrepo/hooks/${hooks.repos}/tests`, { token });
    ok(ping, "hook test");

    // An issue with every part the issue routes name: a label, a milestone, an assignee, a
    // comment, reactions, a subscriber, a pin and a deadline.
    const repoPath = "/repos/root/fuzzrepo";
    const label = await api<{ id: number }>(forge.url, "POST", `${repoPath}/labels`, {
      token,
      body: { name: "fuzzlabel", color: "#00aabb" },
    });
    ok(label, "label");
    const orgLabel = await api<{ id: number }>(forge.url, "POST", "/orgs/fuzzorg/labels", {
      token,
      body: { name: "fuzzorglabel", color: "ff0000" },
    });
    ok(orgLabel, "org label");
    const milestone = await api<{ id: number }>(forge.url, "POST", `${repoPath}/milestones`, {
      token,
      body: { title: "fuzzmilestone" },
    });
    ok(milestone, "milestone");
    const issue = await api<{ number: number }>(forge.url, "POST", `${repoPath}/issues`, {
      token,
      body: {
        title: "fuzz issue",
        body: "for the fuzzer",
        assignees: ["fuzzvictim"],
        labels: [label.body.id],
        milestone: milestone.body.id,
      },
    });
    ok(issue, "issue");
    const index = String(issue.body.number);
    const comment = await api<{ id: number }>(forge.url, "POST", `${repoPath}/issues/${index}/comments`, {
      token,
      body: { body: "a comment" },
    });
    ok(comment, "comment");
    for (const path of [
      `${repoPath}/issues/${index}/reactions`,
      `${repoPath}/issues/comments/${comment.body.id}/reactions`,
    ])
      ok(await api(forge.url, "POST", path, { token, body: { content: "+1" } }), "reaction");
    ok(
      await api(forge.url, "PUT", `${repoPath}/issues/${index}/subscriptions/fuzzvictim`, { token }),
      "subscription",
    );
    ok(await api(forge.url, "POST", `${repoPath}/issues/${index}/pin`, { token }), "pin");
    ok(
      await api(forge.url, "POST", `${repoPath}/issues/${index}/deadline`, {
        token,
        body: { due_date: "2030-01-01T00:00:00Z" },
      }),
      "deadline",
    );

    // A release with an attachment, for the release and asset routes.
    const release = await api<{ id: number }>(forge.url, "POST", `${repoPath}/releases`, {
      token,
      body: { tag_name: "v-fuzz", name: "fuzz release" },
    });
    ok(release, "release");
    const asset = await fetch(
      `${forge.url}/api/v1${repoPath}/releases/${release.body.id}/assets?name=fuzz.txt`,
      {
        method: "POST",
        headers: { authorization: `token ${token}`, "content-type": "application/octet-stream" },
        body: "fuzz",
      },
    );
    const attachment = (await asset.json()) as { id: number; uuid: string };
    ok({ status: asset.status, body: attachment }, "release asset");
    // A pull (of a branch with nothing new: Gitea's empty pull) with a review, for the pull routes.
    ok(
      await api(forge.url, "POST", `${repoPath}/branches`, { token, body: { new_branch_name: "fuzzpull" } }),
      "branch",
    );
    const pull = await api<{ number: number }>(forge.url, "POST", `${repoPath}/pulls`, {
      token,
      body: { head: "fuzzpull", base: "main", title: "fuzz pull", reviewers: ["fuzzvictim"] },
    });
    ok(pull, "pull");
    const review = await api<{ id: number }>(
      forge.url,
      "POST",
      `${repoPath}/pulls/${pull.body.number}/reviews`,
      {
        token,
        body: {
          event: "COMMENT",
          body: "a review",
          comments: [{ path: "README.md", body: "here", new_position: 1 }],
        },
      },
    );
    ok(review, "review");

    // `id` names a different object on each family of routes.
    const ids: [RegExp, string[]][] = [
      [/\/repos\/[^/]+\/[^/]+\/hooks\//, [hooks.repos]],
      [/\/orgs\/[^/]+\/hooks\//, [hooks.orgs]],
      [/\/user\/hooks\//, [hooks.user]],
      [/\/admin\/hooks\//, [hooks.admin]],
      [/\/orgs\/[^/]+\/labels\//, [String(orgLabel.body.id)]],
      [/\/labels\/\{id\}/, [String(label.body.id)]],
      [/\/milestones\//, [String(milestone.body.id), "fuzzmilestone"]],
      [/\/comments\/\{id\}/, [String(comment.body.id)]],
      [/\/teams\//, [String(team.body.id)]],
      [/\/releases\/\{id\}/, [String(release.body.id)]],
      [/\/reviews\//, [String(review.body.id)]],
    ];
    idsOf = (path) => ids.find(([pattern]) => pattern.test(path))?.[1] ?? [String(team.body.id), "1"];
    Object.assign(valid, {
      username: ["fuzzvictim"],
      collaborator: ["fuzzvictim"],
      user: ["fuzzvictim", "root"],
      org: ["fuzzorg"],
      owner: ["root", "fuzzorg"],
      repo: ["fuzzrepo"],
      reponame: ["fuzzrepo"],
      index: [index, String(pull.body.number)],
      position: ["1", "2"],
      delivery: ["1"],
      topic: ["fuzz"],
      branch: ["main"],
      name: ["main"],
      // The tail of a branch or tag path (names with slashes).
      "*": ["main", "v1"],
      token: ["1"],
      tag: ["v-fuzz"],
      attachment_id: [String(attachment.id)],
      uuid: [attachment.uuid],
    });
  });

  test("every operation of /swagger.v1.json, as the admin, anonymously and with junk credentials", async (t) => {
    const document = await (await fetch(`${forge.url}/swagger.v1.json`)).json();
    const settings = fuzzSettings({ perRoute: 12 });
    const run = await fuzzService({
      url: forge.url,
      document,
      settings,
      healthPath: "/api/healthz",
      target: {
        adminAuthorization: `token ${forge.adminToken}`,
        validValues: (name, path) => (name === "id" ? idsOf(path) : (valid[name] ?? [])),
        // Gitea reads these on every route; git's smart HTTP reads `service`.
        queryParameters: {
          token: { type: "string" },
          access_token: { type: "string" },
          sudo: { type: "string" },
          service: { type: "string", enum: ["git-upload-pack", "git-receive-pack"] },
        },
        binaryTypes: (operation) => {
          const service = /\/(git-upload-pack|git-receive-pack)$/.exec(operation.path)?.[1];
          return service ? [`application/x-${service}-request`] : [];
        },
        // Gitea's `{message, url}` (404s add `errors`); a HEAD answer has no body, nor has Gitea's
        // answer about a comment of another repository or a change to it the caller may not make.
        errorShape: ({ operation, method, status, contentType, body }) => {
          if (method === "HEAD") return undefined;
          if (body === "" && /\/comments\/\{id\}$/.test(operation) && (status === 403 || status === 404))
            return undefined;
          if (!contentType.startsWith("application/json")) return `content type "${contentType}"`;
          let parsed: unknown;
          try {
            parsed = JSON.parse(body);
          } catch {
            return "not JSON";
          }
          const { message, url, errors, ...extra } = parsed as Record<string, unknown>;
          const shaped =
            typeof message === "string" && typeof url === "string" && Object.keys(extra).length === 0;
          return shaped && (errors === undefined || Array.isArray(errors))
            ? undefined
            : "not Gitea's {message, url}";
        },
        junkHeaders: (random) => ({
          sudo: random.pick(["", "nobody", "fuzzvictim", "root", "../x", "a".repeat(5000)]),
          "x-forwarded-for": random.pick(["junk", "::1, 1.2.3.4", "999.999.999.999"]),
        }),
      },
    });
    t.diagnostic(`seed ${settings.seed}, ${run.sent} requests, ${run.findings.length} problem(s)`);
    assert.ok(run.sent > 0, "no request was sent");
    assert.equal(run.findings.length, 0, describeFindings(run, settings, FILE));
  });
});
