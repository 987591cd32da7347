import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  forEachDatabase,
  type HookRunner,
  headerIsOneOf,
  type ServiceProcess,
  signedWith,
  startHookRunner,
  startServiceProcess,
  type TempDir,
  tempDir,
  waitFor,
} from "@anvil/core/testing";
import { api } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makeUserByCommand } from "../support/people.ts";

// The forge's webhooks reach the hook runner end to end, both as real processes: a hooks file
// whose rule checks X-Hub-Signature-256 against the payload with the shared secret and matches
// X-Forge-Event, and runs a command (a node script, spawned without a shell) that appends its
// arguments to a file. Hook creation's ping runs it; a git push runs it with the pushed commit.

const SECRET = "runner-shared-secret";

interface Delivery {
  event: string;
  status: string;
  response: { status: number; body: string } | null;
}

forEachDatabase("forge webhooks reach `anvil hooks`: signed pings and pushes run a command", (database) => {
  let dir: TempDir;
  let forge: ServiceProcess;
  let runner: HookRunner;
  let runnerUrl = "";
  let token = "";

  before(async () => {
    dir = await tempDir("anvil-forge-hooks-runner-");
    runner = await startHookRunner(dir.path, [
      {
        id: "forge",
        arguments: [
          { source: "header", name: "X-Forge-Event" },
          { source: "payload", name: "after" },
        ],
        rule: { and: [signedWith(SECRET), headerIsOneOf("X-Forge-Event", ["ping", "push"])] },
      },
    ]);
    runnerUrl = runner.url("forge");

    const where = ["--data-dir", dir.path, "--database", database.url];
    token = await makeUserByCommand(where, "hana");
    forge = await startServiceProcess([
      "forge",
      "serve",
      ...where,
      "--ssh-port",
      "0",
      "--log-level",
      "debug",
      "--webhook-allowed-host-list",
      "loopback",
    ]);
  });

  after(async () => {
    forge?.child.kill("SIGTERM");
    await Promise.all([runner?.stop(), forge?.finished]);
    await dir.remove();
  });

  test("hook creation's ping runs the command; a push runs it with the commit id; a wrong secret runs nothing", async () => {
    const repo = await api(forge.url, "POST", "/user/repos", {
      token,
      body: { name: "app", auto_init: true },
    });
    assert.equal(repo.status, 201);
    const hook = await api<{ id: number }>(forge.url, "POST", "/repos/hana/app/hooks", {
      token,
      body: {
        type: "gitea",
        config: { url: runnerUrl, content_type: "json", secret: SECRET },
        events: ["push"],
        active: true,
      },
      shape: "Hook",
    });
    assert.equal(hook.status, 201);
    await runner.waitForCall("the ping's command", (c) => c[0] === "ping");

    // A sender without the secret gets the runner's refusal (webhook answers a signature that does
    // not match with a 500), recorded in the history.
    const forged = await api<{ id: number }>(forge.url, "POST", "/user/hooks", {
      token,
      body: {
        type: "gitea",
        config: { url: runnerUrl, content_type: "json", secret: "not-the-secret" },
        active: true,
      },
    });
    assert.equal(forged.status, 201, JSON.stringify(forged.body));
    const refused = await waitFor("the refused ping's answer", async () => {
      const page = await api<Delivery[]>(forge.url, "GET", `/user/hooks/${forged.body.id}/deliveries`, {
        token,
      });
      return page.body.find((d) => d.response !== null);
    });
    assert.equal(refused.response?.status, 500);
    assert.match(refused.response?.body ?? "", /error occurred while evaluating hook rules/i);

    const work = join(dir.path, "clone");
    const remote = `${withCredentials(forge.url, "hana", "hanapassword")}/hana/app.git`;
    assert.equal((await git(["clone", "-q", remote, work], dir.path)).code, 0);
    assert.equal((await git(["commit", "-q", "--allow-empty", "-m", "deploy me"], work)).code, 0);
    const pushed = await git(["push", "-q", "origin", "main"], work);
    assert.equal(pushed.code, 0, pushed.stderr);
    const head = (await git(["rev-parse", "HEAD"], work)).stdout.trim();
    await runner.waitForCall("the push's command", (c) => c[0] === "push" && c[1] === head);
    const ran = await runner.calls();
    assert.deepEqual(
      ran.map((c) => c[0]),
      ["ping", "push"],
      "the ping with the wrong secret ran nothing",
    );
  });

  test("the secret appears in no log line of the forge", async () => {
    forge.child.kill("SIGTERM");
    const ended = await forge.finished;
    assert.equal(ended.code, 0, ended.stderr);
    assert.ok(ended.stdout.length + ended.stderr.length > 0, "the forge logged at debug level");
    assert.ok(!`${ended.stdout}${ended.stderr}`.includes(SECRET));
    assert.ok(!`${ended.stdout}${ended.stderr}`.includes("not-the-secret"));
  });
});
