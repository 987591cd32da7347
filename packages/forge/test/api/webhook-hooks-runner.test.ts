import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  type Finished,
  forEachDatabase,
  freePort,
  type ServiceProcess,
  startAnvil,
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
  let runner: { child: import("node:child_process").ChildProcess; finished: Promise<Finished> };
  let runnerUrl = "";
  let token = "";
  const calls = () => join(dir.path, "calls.log");

  async function recordedCalls(): Promise<string[][]> {
    const text = await readFile(calls(), "utf8").catch(() => "");
    return text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as string[]);
  }

  before(async () => {
    dir = await tempDir("anvil-forge-hooks-runner-");
    const script = join(dir.path, "record.mjs");
    await writeFile(
      script,
      `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(calls())}, JSON.stringify(process.argv.slice(2)) + "\\n");\n`,
    );
    const hooksFile = join(dir.path, "hooks.json");
    const event = (value: string) => ({
      match: { type: "value", value, parameter: { source: "header", name: "X-Forge-Event" } },
    });
    await writeFile(
      hooksFile,
      JSON.stringify([
        {
          id: "forge",
          "execute-command": process.execPath,
          "command-working-directory": dir.path,
          "pass-arguments-to-command": [
            { source: "string", name: script },
            { source: "header", name: "X-Forge-Event" },
            { source: "payload", name: "after" },
          ],
          "trigger-rule": {
            and: [
              {
                match: {
                  type: "payload-hmac-sha256",
                  secret: SECRET,
                  parameter: { source: "header", name: "X-Hub-Signature-256" },
                },
              },
              { or: [event("ping"), event("push")] },
            ],
          },
        },
      ]),
    );
    const port = await freePort();
    runner = startAnvil(["hooks", "-hooks", hooksFile, "-ip", "127.0.0.1", "-port", String(port)]);
    runnerUrl = `http://127.0.0.1:${port}/hooks/forge`;
    await waitFor("the hook runner to listen", async () => {
      const res = await fetch(`http://127.0.0.1:${port}/`);
      await res.body?.cancel();
      return true;
    });

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
    runner?.child.kill("SIGTERM");
    forge?.child.kill("SIGTERM");
    await Promise.all([runner?.finished, forge?.finished]);
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
    await waitFor("the ping's command", async () =>
      (await recordedCalls()).some((c) => c[0] === "ping") ? true : undefined,
    );

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
    await waitFor("the push's command", async () =>
      (await recordedCalls()).some((c) => c[0] === "push" && c[1] === head) ? true : undefined,
    );
    const ran = await recordedCalls();
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
