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
      await api(forge.url, "PUT", "/repos/root/fuzzrepo/collaborators/fuzzvictim", { token, body: {} }),
      "collaborator",
    );
    // An active hook: its ping is a delivery (refused: the default host list allows no loopback).
    const hook = await api<{ id: number }>(forge.url, "POST", "/repos/root/fuzzrepo/hooks", {
      token,
      body: { type: "gitea", config: { url: "http://127.0.0.1:1/", content_type: "json" }, active: true },
    });
    ok(hook, "hook");
    Object.assign(valid, {
      username: ["fuzzvictim"],
      collaborator: ["fuzzvictim"],
      org: ["fuzzorg"],
      owner: ["root", "fuzzorg"],
      repo: ["fuzzrepo"],
      reponame: ["fuzzrepo"],
      id: [String(team.body.id), String(hook.body.id), "1"],
      delivery: ["1"],
      topic: ["fuzz"],
      branch: ["main"],
      token: ["1"],
    });
  });

  test("every operation of /swagger.v1.json, as the admin, anonymously and with junk credentials", async (t) => {
    const document = await (await fetch(`${forge.url}/swagger.v1.json`)).json();
    const settings = fuzzSettings({ perRoute: 20 });
    const run = await fuzzService({
      url: forge.url,
      document,
      settings,
      healthPath: "/api/healthz",
      target: {
        adminAuthorization: `token ${forge.adminToken}`,
        validValues: (name) => valid[name] ?? [],
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
