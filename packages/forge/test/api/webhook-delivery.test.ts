import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  forEachDatabase,
  freePort,
  serviceProcessesOn,
  startServiceProcess,
  type TempDir,
  tempDir,
  waitFor,
} from "@anvil/core/testing";
import { generateKey, gitSshCommand } from "../ssh/tools.ts";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, makeUserByCommand, type Person } from "../support/people.ts";
import { assertSigned, payloadOf, type Received, type Receiver, startReceiver } from "../support/receiver.ts";

// Where deliveries go and what becomes of them: the hooks of a repository's owner and of the site,
// default hooks copied into new repositories, receivers that fail, hang or are down (retried, and
// never in the way of the API), and deliveries that outlive a killed forge.

interface Hook {
  id: number;
  config: Record<string, string>;
}
interface Delivery {
  id: number;
  uuid: string;
  event: string;
  status: string;
  attempts: number;
  error: string | null;
  response: { status: number; body: string } | null;
}

const SECRET = "delivery-secret";

async function settledDeliveries(
  url: string,
  token: string,
  path: string,
  count: number,
): Promise<Delivery[]> {
  return waitFor(`${count} settled deliveries of ${path}`, async () => {
    const page = await api<Delivery[]>(url, "GET", `${path}/deliveries`, { token });
    const settled = page.body.filter((d) => d.status !== "pending");
    return settled.length >= count ? settled : undefined;
  });
}

forEachForge(
  "forge webhook delivery: whose hooks hear what, and receivers that fail",
  (forge) => {
    const cast = {} as Record<"rita", Person>;
    let receiver: Receiver;
    let work: TempDir;
    const to = (name: string) => (r: Received) => r.url.endsWith(`to=${name}`);
    const hookBody = (name: string, events: string[], extra: Record<string, unknown> = {}) => ({
      type: "gitea",
      config: { url: `${receiver.url}?to=${name}`, content_type: "json", secret: SECRET },
      events,
      active: true,
      ...extra,
    });

    async function pushCommit(repo: string, message: string): Promise<string> {
      const dir = join(work.path, `${repo}-${Date.now()}`);
      const remote = `${withCredentials(forge.url, "rita", "password123")}/${repo}.git`;
      assert.equal((await git(["clone", "-q", remote, dir], work.path)).code, 0);
      assert.equal((await git(["commit", "-q", "--allow-empty", "-m", message], dir)).code, 0);
      const pushed = await git(["push", "-q", "origin", "HEAD"], dir);
      assert.equal(pushed.code, 0, pushed.stderr);
      return (await git(["rev-parse", "HEAD"], dir)).stdout.trim();
    }

    before(async () => {
      receiver = await startReceiver();
      work = await tempDir("anvil-forge-webhook-delivery-");
      cast.rita = await makePerson(forge.url, forge.adminToken, "rita");
    });
    after(async () => {
      await receiver.close();
      await work.remove();
    });

    test("organization, user and system hooks hear their repositories: created, pushed to, deleted", async () => {
      const { token } = cast.rita;
      assert.equal(
        (await api(forge.url, "POST", "/orgs", { token, body: { username: "crew" } })).status,
        201,
      );
      const orgHook = await api<Hook>(forge.url, "POST", "/orgs/crew/hooks", {
        token,
        body: hookBody("org", ["repository", "push"]),
        shape: "Hook",
      });
      assert.equal(orgHook.status, 201);
      const userHook = await api<Hook>(forge.url, "POST", "/user/hooks", {
        token,
        body: hookBody("user", ["push"]),
      });
      assert.equal(userHook.status, 201);
      const systemHook = await api<Hook>(forge.url, "POST", "/admin/hooks", {
        token: forge.adminToken,
        body: hookBody("system", ["repository", "push"], {
          config: {
            url: `${receiver.url}?to=system`,
            content_type: "json",
            secret: SECRET,
            is_system_webhook: "true",
          },
        }),
      });
      assert.equal(systemHook.status, 201);

      const from = receiver.received.length;
      const made = await api(forge.url, "POST", "/orgs/crew/repos", {
        token,
        body: { name: "tool", auto_init: true },
      });
      assert.equal(made.status, 201);
      const created = await receiver.next(
        (r) => to("org")(r) && r.headers["x-gitea-event"] === "repository",
        from,
      );
      assertSigned(created, SECRET);
      assert.equal(created.headers["x-gitea-hook-installation-target-type"], "organization");
      const payload = payloadOf<{
        action: string;
        repository: { full_name: string };
        organization: { username: string };
      }>(created);
      assert.equal(payload.action, "created");
      assert.equal(payload.repository.full_name, "crew/tool");
      assert.equal(payload.organization.username, "crew");
      const seenBySystem = await receiver.next(
        (r) => to("system")(r) && r.headers["x-gitea-event"] === "repository",
        from,
      );
      assert.equal(seenBySystem.headers["x-gitea-hook-installation-target-type"], "system");

      assert.equal(
        (await api(forge.url, "POST", "/user/repos", { token, body: { name: "mine", auto_init: true } }))
          .status,
        201,
      );
      const pushFrom = receiver.received.length;
      const head = await pushCommit("rita/mine", "to the user's repository");
      const userPush = await receiver.next(
        (r) => to("user")(r) && r.headers["x-gitea-event"] === "push",
        pushFrom,
      );
      assert.equal(userPush.headers["x-gitea-hook-installation-target-type"], "user");
      assert.equal(payloadOf<{ after: string }>(userPush).after, head);
      await receiver.next((r) => to("system")(r) && r.headers["x-gitea-event"] === "push", pushFrom);
      // The org's own deliveries (crew/tool's) may still be arriving on a busy machine: what
      // matters is that none is about rita's repository.
      assert.ok(
        !receiver.received
          .slice(pushFrom)
          .some(
            (r) =>
              to("org")(r) &&
              payloadOf<{ repository: { full_name: string } }>(r).repository.full_name === "rita/mine",
          ),
        "an organization's hook hears only its own repositories",
      );

      const deleteFrom = receiver.received.length;
      assert.equal((await api(forge.url, "DELETE", "/repos/crew/tool", { token })).status, 204);
      const deleted = await receiver.next(
        (r) => to("org")(r) && r.headers["x-gitea-event"] === "repository",
        deleteFrom,
      );
      assert.equal(payloadOf<{ action: string }>(deleted).action, "deleted");

      for (const path of [`/orgs/crew/hooks/${orgHook.body.id}`, `/user/hooks/${userHook.body.id}`])
        assert.equal((await api(forge.url, "DELETE", path, { token })).status, 204);
      await api(forge.url, "DELETE", `/admin/hooks/${systemHook.body.id}`, { token: forge.adminToken });
    });

    test("a push over SSH arrives as push with the commit id; a new tag as create and push", async () => {
      const { token } = cast.rita;
      const hook = await api<Hook>(forge.url, "POST", "/repos/rita/mine/hooks", {
        token,
        body: hookBody("ssh", ["push", "create"]),
      });
      assert.equal(hook.status, 201);
      const keys = join(work.path, "keys");
      await mkdir(keys, { recursive: true });
      const pair = await generateKey(keys, "rita", ["-t", "ed25519"]);
      const key = await api(forge.url, "POST", "/user/keys", {
        token,
        body: { title: "laptop", key: pair.publicText },
      });
      assert.equal(key.status, 201);
      const env = { GIT_SSH_COMMAND: gitSshCommand(join(keys, "rita")) };
      const dir = join(work.path, "over-ssh");
      const remote = `ssh://git@127.0.0.1:${forge.sshPort}/rita/mine.git`;
      const cloned = await git(["clone", "-q", remote, dir], work.path, env);
      assert.equal(cloned.code, 0, cloned.stderr);
      assert.equal((await git(["commit", "-q", "--allow-empty", "-m", "over ssh"], dir)).code, 0);
      const from = receiver.received.length;
      const pushed = await git(["push", "-q", "origin", "HEAD"], dir, env);
      assert.equal(pushed.code, 0, pushed.stderr);
      const head = (await git(["rev-parse", "HEAD"], dir)).stdout.trim();
      const push = await receiver.next((r) => to("ssh")(r) && r.headers["x-gitea-event"] === "push", from);
      assertSigned(push, SECRET);
      assert.equal(payloadOf<{ after: string }>(push).after, head);

      const tagFrom = receiver.received.length;
      assert.equal((await git(["tag", "v1.0"], dir)).code, 0);
      assert.equal((await git(["push", "-q", "origin", "v1.0"], dir, env)).code, 0);
      const created = await receiver.next(
        (r) => to("ssh")(r) && r.headers["x-gitea-event"] === "create",
        tagFrom,
      );
      assert.deepEqual(
        (({ ref, ref_type, sha }) => ({ ref, ref_type, sha }))(
          payloadOf<{ ref: string; ref_type: string; sha: string }>(created),
        ),
        { ref: "v1.0", ref_type: "tag", sha: head },
      );
      const tagPush = await receiver.next(
        (r) => to("ssh")(r) && r.headers["x-gitea-event"] === "push",
        tagFrom,
      );
      assert.equal(payloadOf<{ ref: string }>(tagPush).ref, "refs/tags/v1.0");
      await api(forge.url, "DELETE", `/repos/rita/mine/hooks/${hook.body.id}`, { token });
    });

    test("a default hook is copied into each new repository, which then delivers to it", async () => {
      const { token } = cast.rita;
      const template = await api<Hook>(forge.url, "POST", "/admin/hooks", {
        token: forge.adminToken,
        body: hookBody("default", ["push"]),
      });
      assert.equal(template.status, 201);
      assert.equal(
        (await api(forge.url, "POST", "/user/repos", { token, body: { name: "fresh", auto_init: true } }))
          .status,
        201,
      );
      await api(forge.url, "DELETE", `/admin/hooks/${template.body.id}`, { token: forge.adminToken });
      const copied = await api<Hook[]>(forge.url, "GET", "/repos/rita/fresh/hooks", {
        token,
        shape: "Hook[]",
      });
      assert.deepEqual(
        copied.body.map((h) => h.config.url),
        [`${receiver.url}?to=default`],
      );
      const from = receiver.received.length;
      const head = await pushCommit("rita/fresh", "to a repository with a copied hook");
      const push = await receiver.next(
        (r) => to("default")(r) && r.headers["x-gitea-event"] === "push",
        from,
      );
      assert.equal(push.headers["x-gitea-hook-installation-target-type"], "repository");
      assert.equal(payloadOf<{ after: string }>(push).after, head);
    });

    test("receivers answering 500 or down are retried, and the history keeps each answer or error", async () => {
      const { token } = cast.rita;
      const failing = await startReceiver(500);
      const closedPort = await freePort();
      try {
        const broken = await api<Hook>(forge.url, "POST", "/user/hooks", {
          token,
          body: { ...hookBody("x", ["push"]), config: { url: failing.url, content_type: "json" } },
        });
        const down = await api<Hook>(forge.url, "POST", "/user/hooks", {
          token,
          body: {
            ...hookBody("x", ["push"]),
            config: { url: `http://127.0.0.1:${closedPort}/hook`, content_type: "json" },
          },
        });
        const [answered] = await settledDeliveries(forge.url, token, `/user/hooks/${broken.body.id}`, 1);
        assert.equal(answered.status, "failed");
        assert.equal(answered.attempts, 3, "tried once and retried twice");
        assert.equal(answered.response?.status, 500);
        assert.equal(answered.response?.body, "answered 500");
        assert.equal(failing.received.length, 3);
        assert.deepEqual(
          new Set(failing.received.map((r) => r.headers["x-gitea-delivery"])),
          new Set([answered.uuid]),
        );
        const [unreached] = await settledDeliveries(forge.url, token, `/user/hooks/${down.body.id}`, 1);
        assert.equal(unreached.status, "failed");
        assert.equal(unreached.attempts, 3);
        assert.equal(unreached.response, null);
        assert.match(unreached.error ?? "", /refused|ECONNREFUSED/i);
        for (const hook of [broken, down])
          await api(forge.url, "DELETE", `/user/hooks/${hook.body.id}`, { token });
      } finally {
        await failing.close();
      }
    });

    test("a receiver that hangs never delays the API or a push; its delivery times out", async () => {
      const { token } = cast.rita;
      const hanging = await startReceiver("hang");
      try {
        let started = Date.now();
        const hook = await api<Hook>(forge.url, "POST", "/repos/rita/mine/hooks", {
          token,
          body: { ...hookBody("x", ["push"]), config: { url: hanging.url, content_type: "json" } },
        });
        assert.equal(hook.status, 201);
        // Far below the receiver's silence; generous for a loaded machine.
        assert.ok(Date.now() - started < 3000, `the create took ${Date.now() - started} ms`);
        await waitFor("the ping to reach the hanging receiver", async () => hanging.received[0]);
        started = Date.now();
        await pushCommit("rita/mine", "while the receiver hangs");
        assert.ok(Date.now() - started < 10_000, `the push took ${Date.now() - started} ms`);
        const [timedOut] = await settledDeliveries(
          forge.url,
          token,
          `/repos/rita/mine/hooks/${hook.body.id}`,
          1,
        );
        assert.match(timedOut.error ?? "", /time/i);
        await api(forge.url, "DELETE", `/repos/rita/mine/hooks/${hook.body.id}`, { token });
      } finally {
        await hanging.close();
      }
    });
  },
  {
    ssh: true,
    forge: {
      webhookAllowedHostList: "loopback",
      webhookRetryWaitsMs: [100, 200],
      webhookDeliveryTimeoutMs: 1000,
    },
  },
);

forEachDatabase(
  "forge webhook delivery: a forge killed with deliveries pending sends them after its restart",
  (database) => {
    let dir: TempDir;
    before(async () => {
      dir = await tempDir("anvil-forge-webhook-restart-");
    });
    after(() => dir.remove());

    test("a ping queued while its receiver is down arrives once the forge is started again", async () => {
      const where = ["--data-dir", dir.path, "--database", database.url];
      const serve = [
        "forge",
        "serve",
        ...where,
        "--ssh-port",
        "0",
        "--log-level",
        "warn",
        "--webhook-allowed-host-list",
        "loopback",
      ];
      const token = await makeUserByCommand(where, "kim");
      // The receiver's port is known but nothing listens there yet: the first attempt fails.
      const port = await freePort();
      const first = await startServiceProcess(serve);
      const hook = await api<Hook>(first.url, "POST", "/user/hooks", {
        token,
        body: {
          type: "gitea",
          config: { url: `http://127.0.0.1:${port}/hook`, content_type: "json", secret: SECRET },
          active: true,
        },
      });
      assert.equal(hook.status, 201);
      // Killed once the first attempt has failed and the delivery waits for its retry.
      await waitFor("the first attempt", async () => {
        const page = await api<Delivery[]>(first.url, "GET", `/user/hooks/${hook.body.id}/deliveries`, {
          token,
        });
        return page.body[0]?.attempts === 1 && page.body[0].error ? true : undefined;
      });
      first.child.kill("SIGKILL");
      await first.finished;

      const receiver = await startReceiver(200, port);
      const second = await startServiceProcess(serve);
      try {
        const ping = await receiver.next((r) => r.headers["x-forge-event"] === "ping", 0, 30_000);
        assertSigned(ping, SECRET);
        assert.equal(payloadOf<{ hook_id: number }>(ping).hook_id, hook.body.id);
      } finally {
        second.child.kill("SIGTERM");
        const ended = await second.finished;
        await receiver.close();
        assert.equal(ended.code, 0, ended.stderr);
      }
    });
  },
);

forEachDatabase(
  "forge webhook delivery: several processes on one database send each delivery once",
  (database) => {
    const services = serviceProcessesOn(database, "forge", 3, [
      "--ssh-port",
      "0",
      "--webhook-allowed-host-list",
      "loopback",
    ]);
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
    });
    after(() => receiver.close());

    test("repositories made through three processes: one delivery each, none twice", async () => {
      const token = await makeUserByCommand(services.where, "lou");
      const hook = await api<Hook>(services.urls[0], "POST", "/user/hooks", {
        token,
        body: {
          type: "gitea",
          config: { url: receiver.url, content_type: "json", secret: SECRET },
          events: ["repository"],
          active: true,
        },
      });
      assert.equal(hook.status, 201);
      const REPOS = 12;
      const made = await Promise.all(
        Array.from({ length: REPOS }, (_, n) =>
          api(services.urls[n % services.urls.length], "POST", "/user/repos", {
            token,
            body: { name: `r${n}` },
          }),
        ),
      );
      assert.deepEqual(
        made.map((m) => m.status),
        Array(REPOS).fill(201),
      );
      const expected = REPOS + 1;
      await waitFor(`${expected} deliveries`, async () =>
        receiver.received.length >= expected ? true : undefined,
      );
      // Longer than a poll of every process: a second sending of any delivery would have come.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const ids = receiver.received.map((r) => r.headers["x-gitea-delivery"]);
      assert.equal(ids.length, expected, "no delivery was sent twice");
      assert.equal(new Set(ids).size, expected);
      const names = receiver.received
        .filter((r) => r.headers["x-gitea-event"] === "repository")
        .map((r) => payloadOf<{ repository: { name: string } }>(r).repository.name)
        .sort();
      assert.deepEqual(names, Array.from({ length: REPOS }, (_, n) => `r${n}`).sort());
    });
  },
);
