import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir, waitFor } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";
import { assertSigned, payloadOf, type Received, type Receiver, startReceiver } from "../support/receiver.ts";

interface Hook {
  id: number;
  type: string;
  config: Record<string, string>;
  events: string[];
  active: boolean;
  branch_filter: string;
  authorization_header?: string;
}
interface Delivery {
  id: number;
  uuid: string;
  event: string;
  status: string;
  is_succeed: boolean;
  error: string | null;
  request: { headers: Record<string, string>; body: string };
  response: { status: number; body: string } | null;
}
interface ErrorBody {
  message: string;
}

const SECRET = "s3cret-never-shown";
const AUTHORIZATION = "Bearer receiver-credential";

forEachForge(
  "forge webhooks: Gitea's hook API, pings, signatures, git pushes, history",
  (forge) => {
    const cast = {} as Record<"rita" | "walt" | "otto", Person>;
    let receiver: Receiver;
    let work: TempDir;

    const hooksOf = (repo: string) => `/repos/rita/${repo}/hooks`;
    const createHook = (token: string, path: string, body: Record<string, unknown>) =>
      api<Hook & ErrorBody>(forge.url, "POST", path, { token, body, shape: "Hook" });
    const jsonHook = (extra: Record<string, unknown> = {}) => ({
      type: "gitea",
      config: { url: receiver.url, content_type: "json", secret: SECRET },
      events: ["push", "create", "delete", "issues"],
      authorization_header: AUTHORIZATION,
      active: true,
      ...extra,
    });
    const fromHook = (id: number) => (request: Received) =>
      (payloadOf<{ hook_id?: number }>(request).hook_id ?? -1) === id || request.url.includes(`hook=${id}`);

    before(async () => {
      receiver = await startReceiver();
      work = await tempDir("anvil-forge-webhooks-");
      for (const name of ["rita", "walt", "otto"] as const)
        cast[name] = await makePerson(forge.url, forge.adminToken, name);
      for (const [name, priv] of [
        ["site", false],
        ["vault", true],
      ] as const) {
        const made = await api(forge.url, "POST", "/user/repos", {
          token: cast.rita.token,
          body: { name, auto_init: true, private: priv },
        });
        assert.equal(made.status, 201);
      }
      // walt may write to "site" but is no admin of it.
      const added = await api(forge.url, "PUT", "/repos/rita/site/collaborators/walt", {
        token: cast.rita.token,
        body: { permission: "write" },
      });
      assert.equal(added.status, 204);
    });
    after(async () => {
      await receiver.close();
      await work.remove();
    });

    test("create, list, get, edit and delete a repository hook; the secret and authorization header are never shown", async () => {
      const made = await createHook(cast.rita.token, hooksOf("site"), jsonHook({ branch_filter: "main" }));
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.type, "gitea");
      assert.equal(made.body.active, true);
      assert.equal(made.body.branch_filter, "main");
      assert.deepEqual(made.body.config, { url: receiver.url, content_type: "json", http_method: "POST" });
      assert.deepEqual(made.body.events, [
        "create",
        "delete",
        "push",
        "issues",
        "issue_assign",
        "issue_label",
        "issue_milestone",
        "issue_comment",
      ]);
      const id = made.body.id;

      const listed = await api<Hook[]>(forge.url, "GET", hooksOf("site"), {
        token: cast.rita.token,
        shape: "Hook[]",
      });
      assert.equal(listed.status, 200);
      assert.equal(listed.headers.get("x-total-count"), "1");
      assert.deepEqual(
        listed.body.map((h) => h.id),
        [id],
      );
      const shown = await api<Hook>(forge.url, "GET", `${hooksOf("site")}/${id}`, {
        token: cast.rita.token,
        shape: "Hook",
      });
      assert.equal(shown.status, 200);

      const edited = await api<Hook>(forge.url, "PATCH", `${hooksOf("site")}/${id}`, {
        token: cast.rita.token,
        body: { active: false, config: { content_type: "form" }, events: ["push"] },
        shape: "Hook",
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      assert.equal(edited.body.active, false);
      assert.equal(edited.body.config.content_type, "form");
      assert.equal(edited.body.branch_filter, "main", "a field left out keeps its value");
      assert.deepEqual(edited.body.events, ["push"]);

      const deliveries = await api(forge.url, "GET", `${hooksOf("site")}/${id}/deliveries`, {
        token: cast.rita.token,
      });
      for (const answer of [made, listed, shown, edited, deliveries]) {
        const text = JSON.stringify(answer.body);
        assert.ok(!text.includes(SECRET), `the secret is shown: ${text}`);
        assert.ok(!text.includes("receiver-credential"), `the authorization header is shown: ${text}`);
      }

      assert.equal(
        (await api(forge.url, "DELETE", `${hooksOf("site")}/${id}`, { token: cast.rita.token })).status,
        204,
      );
      const gone = await api(forge.url, "GET", `${hooksOf("site")}/${id}`, { token: cast.rita.token });
      assert.equal(gone.status, 404);
    });

    test("Gitea's 422s: unknown type, missing or bad url and content type, slack without a channel, a bad branch glob", async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [
          { type: "jenkins", config: { url: receiver.url, content_type: "json" } },
          "Invalid hook type: jenkins",
        ],
        [{ type: "gitea", config: { content_type: "json" } }, "Missing config option: url"],
        [{ type: "gitea", config: { url: receiver.url } }, "Missing config option: content_type"],
        [{ type: "gitea", config: { url: receiver.url, content_type: "xml" } }, "Invalid content type"],
        [{ type: "gitea", config: { url: "ftp://example.com/x", content_type: "json" } }, "Invalid url"],
        [{ type: "gitea", config: { url: "not a url", content_type: "json" } }, "Invalid url"],
        [
          { type: "slack", config: { url: receiver.url, content_type: "json" } },
          "Missing config option: channel",
        ],
        [
          { type: "gitea", config: { url: receiver.url, content_type: "json" }, branch_filter: "[main" },
          "[BranchFilter]: GlobPattern",
        ],
      ];
      for (const [body, message] of cases) {
        const refused = await createHook(cast.rita.token, hooksOf("site"), body);
        assert.equal(refused.status, 422, JSON.stringify(body));
        assert.equal(refused.body.message, message);
      }
      const noConfig = await createHook(cast.rita.token, hooksOf("site"), { type: "gitea" });
      assert.equal(noConfig.status, 422);
      const listed = await api<Hook[]>(forge.url, "GET", hooksOf("site"), { token: cast.rita.token });
      assert.deepEqual(listed.body, [], "nothing half-written");

      const slack = await createHook(cast.rita.token, hooksOf("site"), {
        type: "slack",
        config: { url: receiver.url, content_type: "json", channel: "#builds", username: "forge" },
        events: ["bogus", "push"],
      });
      assert.equal(slack.status, 201, JSON.stringify(slack.body));
      assert.equal(slack.body.config.channel, "#builds");
      assert.deepEqual(slack.body.events, ["push"], "unknown events are ignored, as Gitea ignores them");
      assert.equal(slack.body.active, false, "active defaults to false, as in Gitea");
      await api(forge.url, "DELETE", `${hooksOf("site")}/${slack.body.id}`, { token: cast.rita.token });
    });

    test("permissions: a writer 403, an outsider 404 on a private repository; org owners only; admins only for system hooks", async () => {
      const body = jsonHook();
      const writer = await createHook(cast.walt.token, hooksOf("site"), body);
      assert.equal(writer.status, 403);
      const writerList = await api(forge.url, "GET", hooksOf("site"), { token: cast.walt.token });
      assert.equal(writerList.status, 403);
      const outsider = await createHook(cast.otto.token, hooksOf("vault"), body);
      assert.equal(outsider.status, 404);
      const anonymous = await api(forge.url, "GET", hooksOf("site"));
      assert.equal(anonymous.status, 401);

      const org = await api(forge.url, "POST", "/orgs", {
        token: cast.rita.token,
        body: { username: "crew" },
      });
      assert.equal(org.status, 201);
      const owners = await api<Array<{ id: number }>>(forge.url, "GET", "/orgs/crew/teams", {
        token: cast.rita.token,
      });
      const members = await api(forge.url, "POST", "/orgs/crew/teams", {
        token: cast.rita.token,
        body: { name: "devs", permission: "write", units: ["repo.code"] },
      });
      assert.equal(owners.status, 200);
      const devs = (members.body as { id: number }).id;
      await api(forge.url, "PUT", `/teams/${devs}/members/walt`, { token: cast.rita.token });
      const member = await createHook(cast.walt.token, "/orgs/crew/hooks", body);
      assert.equal(member.status, 403);
      const ownerHook = await createHook(cast.rita.token, "/orgs/crew/hooks", { ...body, active: false });
      assert.equal(ownerHook.status, 201);
      const orgList = await api<Hook[]>(forge.url, "GET", "/orgs/crew/hooks", {
        token: cast.rita.token,
        shape: "Hook[]",
      });
      assert.deepEqual(
        orgList.body.map((h) => h.id),
        [ownerHook.body.id],
      );

      const userHook = await createHook(cast.otto.token, "/user/hooks", { ...body, active: false });
      assert.equal(userHook.status, 201);
      const notTheirs = await api(forge.url, "GET", `/user/hooks/${userHook.body.id}`, {
        token: cast.walt.token,
      });
      assert.equal(notTheirs.status, 404);

      const notAdmin = await createHook(cast.otto.token, "/admin/hooks", body);
      assert.equal(notAdmin.status, 403);
      const system = await createHook(forge.adminToken, "/admin/hooks", {
        ...body,
        active: false,
        config: { ...(body.config as object), is_system_webhook: "true" },
      });
      assert.equal(system.status, 201, JSON.stringify(system.body));
      const byDefault = await createHook(forge.adminToken, "/admin/hooks", { ...body, active: false });
      assert.equal(
        byDefault.body.config.is_system_webhook,
        "false",
        "without is_system_webhook, a default hook",
      );
      const systemOnly = await api<Hook[]>(forge.url, "GET", "/admin/hooks", {
        token: forge.adminToken,
        shape: "Hook[]",
      });
      assert.deepEqual(
        systemOnly.body.map((h) => h.id),
        [system.body.id],
      );
      const all = await api<Hook[]>(forge.url, "GET", "/admin/hooks?type=all", { token: forge.adminToken });
      assert.deepEqual(
        all.body.map((h) => h.id),
        [system.body.id, byDefault.body.id],
      );
      for (const id of [system.body.id, byDefault.body.id])
        assert.equal(
          (await api(forge.url, "DELETE", `/admin/hooks/${id}`, { token: forge.adminToken })).status,
          204,
        );
    });

    test("a ping on creation, signed with the secret, with Gitea's, Gogs', GitHub's and the forge's headers", async () => {
      const from = receiver.received.length;
      const made = await createHook(cast.rita.token, hooksOf("site"), jsonHook());
      assert.equal(made.status, 201);
      const ping = await receiver.next(fromHook(made.body.id), from);
      assert.equal(ping.method, "POST");
      assert.equal(ping.headers["content-type"], "application/json");
      for (const family of ["gitea", "gogs", "github", "forge"]) {
        assert.equal(ping.headers[`x-${family}-event`], "ping", family);
        assert.equal(ping.headers[`x-${family}-delivery`], ping.headers["x-gitea-delivery"], family);
      }
      assert.equal(ping.headers["x-gitea-hook-installation-target-type"], "repository");
      assert.equal(ping.headers.authorization, AUTHORIZATION);
      assert.match(String(ping.headers["user-agent"]), /anvil/);
      assertSigned(ping, SECRET);
      const payload = payloadOf<{
        zen: string;
        hook_id: number;
        hook: Hook;
        repository: { full_name: string };
        sender: { login: string; username: string };
      }>(ping);
      assert.equal(payload.hook_id, made.body.id);
      assert.equal(payload.hook.id, made.body.id);
      assert.equal(typeof payload.zen, "string");
      assert.equal(payload.repository.full_name, "rita/site");
      assert.equal(payload.sender.username, "rita");
      assert.ok(!ping.body.includes(SECRET), "the payload never carries the secret");

      // /tests: the ping again, then Gitea's push test delivery of the default branch's head.
      const again = receiver.received.length;
      const tested = await api(forge.url, "POST", `${hooksOf("site")}/${made.body.id}/tests`, {
        token: cast.rita.token,
      });
      assert.equal(tested.status, 204);
      const secondPing = await receiver.next(fromHook(made.body.id), again);
      assert.equal(secondPing.headers["x-forge-event"], "ping");
      const push = await receiver.next((r) => r.headers["x-gitea-event"] === "push", again);
      assertSigned(push, SECRET);
      const pushed = payloadOf<{ ref: string; after: string; commits: Array<{ id: string }> }>(push);
      assert.equal(pushed.ref, "refs/heads/main");
      assert.equal(pushed.commits[0].id, pushed.after);
      await api(forge.url, "DELETE", `${hooksOf("site")}/${made.body.id}`, { token: cast.rita.token });
    });

    test("a form hook posts payload=…; X-Hub-Signature-256 covers the body as sent, X-Gitea-Signature the payload", async () => {
      const from = receiver.received.length;
      const made = await createHook(cast.rita.token, hooksOf("site"), {
        ...jsonHook(),
        config: { url: receiver.url, content_type: "form", secret: SECRET },
      });
      const ping = await receiver.next(fromHook(made.body.id), from);
      assert.equal(ping.headers["content-type"], "application/x-www-form-urlencoded");
      assert.ok(ping.body.startsWith("payload="));
      assertSigned(ping, SECRET);
      await api(forge.url, "DELETE", `${hooksOf("site")}/${made.body.id}`, { token: cast.rita.token });
    });

    test("slack, discord and msteams hooks send their own message shapes, as JSON whatever the content type", async () => {
      const shapes: Array<[string, Record<string, string>, (body: Record<string, unknown>) => void]> = [
        [
          "slack",
          { channel: "#builds", username: "forge" },
          (body) => {
            assert.equal(body.channel, "#builds");
            assert.equal(body.username, "forge");
            assert.match(String(body.text), /rita\/site/);
          },
        ],
        [
          "discord",
          {},
          (body) => {
            const [embed] = body.embeds as Array<{ title: string }>;
            assert.match(embed.title, /pinged by rita/);
          },
        ],
        ["msteams", {}, (body) => assert.equal(body["@type"], "MessageCard")],
      ];
      for (const [type, config, check] of shapes) {
        const from = receiver.received.length;
        const made = await createHook(cast.rita.token, hooksOf("site"), {
          type,
          config: { url: `${receiver.url}?type=${type}`, content_type: "form", secret: SECRET, ...config },
          active: true,
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        const ping = await receiver.next((r) => r.url.endsWith(`type=${type}`), from);
        assert.equal(ping.headers["content-type"], "application/json", type);
        assertSigned(ping, SECRET);
        check(JSON.parse(ping.body));
        await api(forge.url, "DELETE", `${hooksOf("site")}/${made.body.id}`, { token: cast.rita.token });
      }
    });

    test("a git push over HTTP arrives as push with the commit id; a new branch as create; the branch filter holds back other branches", async () => {
      const all = await createHook(cast.rita.token, hooksOf("site"), jsonHook());
      const mainOnly = await createHook(cast.rita.token, hooksOf("site"), {
        ...jsonHook(),
        config: { url: `${receiver.url}?hook=filtered`, content_type: "json", secret: SECRET },
        branch_filter: "{main,release/*}",
      });
      assert.equal(mainOnly.status, 201);
      const dir = join(work.path, "push");
      const remote = `${withCredentials(forge.url, "rita", "password123")}/rita/site.git`;
      assert.equal((await git(["clone", "-q", remote, dir], work.path)).code, 0);
      assert.equal((await git(["commit", "-q", "--allow-empty", "-m", "first from a test"], dir)).code, 0);
      const from = receiver.received.length;
      const started = Date.now();
      assert.equal((await git(["push", "-q", "origin", "main"], dir)).code, 0);
      assert.ok(Date.now() - started < 15_000);
      const head = (await git(["rev-parse", "HEAD"], dir)).stdout.trim();

      const isPush = (r: Received) => r.headers["x-gitea-event"] === "push";
      const push = await receiver.next((r) => isPush(r) && !r.url.includes("filtered"), from);
      assertSigned(push, SECRET);
      const payload = payloadOf<{
        ref: string;
        after: string;
        total_commits: number;
        commits: Array<{ id: string; message: string; author: { username: string } }>;
        head_commit: { id: string };
        pusher: { username: string };
        repository: { full_name: string };
      }>(push);
      assert.equal(payload.ref, "refs/heads/main");
      assert.equal(payload.after, head);
      assert.equal(payload.commits[0].id, head);
      assert.equal(payload.commits[0].message, "first from a test\n");
      assert.equal(payload.head_commit.id, head);
      assert.equal(payload.total_commits, 1);
      assert.equal(payload.pusher.username, "rita");
      assert.equal(payload.repository.full_name, "rita/site");
      await receiver.next((r) => isPush(r) && r.url.includes("filtered"), from);

      const branchFrom = receiver.received.length;
      assert.equal((await git(["push", "-q", "origin", "main:refs/heads/feature"], dir)).code, 0);
      const create = await receiver.next((r) => r.headers["x-gitea-event"] === "create", branchFrom);
      assert.deepEqual(
        (({ ref, ref_type, sha }) => ({ ref, ref_type, sha }))(
          payloadOf<{ ref: string; ref_type: string; sha: string }>(create),
        ),
        { ref: "feature", ref_type: "branch", sha: head },
      );
      await receiver.next(
        (r) => isPush(r) && payloadOf<{ ref: string }>(r).ref === "refs/heads/feature",
        branchFrom,
      );
      assert.equal((await git(["push", "-q", "origin", ":refs/heads/feature"], dir)).code, 0);
      await receiver.next(
        (r) => r.headers["x-gitea-event"] === "delete" && !r.url.includes("filtered"),
        branchFrom,
      );
      // Everything the unfiltered hook got has arrived; the filtered one heard nothing of "feature".
      const filtered = receiver.received.slice(branchFrom).filter((r) => r.url.includes("filtered"));
      assert.deepEqual(filtered, []);

      // Every delivery is in the hook's history, answered 200.
      const history = await api<Delivery[]>(
        forge.url,
        "GET",
        `${hooksOf("site")}/${all.body.id}/deliveries`,
        {
          token: cast.rita.token,
        },
      );
      assert.equal(history.status, 200);
      const events = history.body.map((d) => d.event);
      for (const event of ["ping", "push", "create", "delete"])
        assert.ok(events.includes(event), events.join());
      const delivered = await waitFor("every delivery recorded", async () => {
        const page = await api<Delivery[]>(forge.url, "GET", `${hooksOf("site")}/${all.body.id}/deliveries`, {
          token: cast.rita.token,
        });
        return page.body.every((d) => d.status === "delivered") ? page.body : undefined;
      });
      for (const delivery of delivered) {
        assert.equal(delivery.response?.status, 200);
        assert.equal(delivery.request.headers.authorization, "******");
      }
      for (const hook of [all, mainOnly])
        await api(forge.url, "DELETE", `${hooksOf("site")}/${hook.body.id}`, { token: cast.rita.token });
    });

    test("redelivery sends a recorded delivery again under a new delivery id", async () => {
      const from = receiver.received.length;
      const made = await createHook(cast.rita.token, hooksOf("site"), jsonHook());
      const ping = await receiver.next(fromHook(made.body.id), from);
      const history = await api<Delivery[]>(
        forge.url,
        "GET",
        `${hooksOf("site")}/${made.body.id}/deliveries`,
        {
          token: cast.rita.token,
        },
      );
      const [first] = history.body;
      assert.equal(first.uuid, ping.headers["x-gitea-delivery"]);
      const again = await api<Delivery>(
        forge.url,
        "POST",
        `${hooksOf("site")}/${made.body.id}/deliveries/${first.id}/redeliver`,
        { token: cast.rita.token },
      );
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.notEqual(again.body.uuid, first.uuid);
      const replayed = await receiver.next((r) => r.headers["x-gitea-delivery"] === again.body.uuid, from);
      assert.equal(replayed.body, ping.body);
      assertSigned(replayed, SECRET);
      const missing = await api(
        forge.url,
        "POST",
        `${hooksOf("site")}/${made.body.id}/deliveries/999999/redeliver`,
        {
          token: cast.rita.token,
        },
      );
      assert.equal(missing.status, 404);
      await api(forge.url, "DELETE", `${hooksOf("site")}/${made.body.id}`, { token: cast.rita.token });
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);

forEachForge(
  "forge webhooks: the default allowed-host list (external) refuses a loopback target",
  (forge) => {
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
    });
    after(() => receiver.close());

    test("the ping to 127.0.0.1 is never sent, and the history says why", async () => {
      const made = await api<Hook>(forge.url, "POST", "/user/hooks", {
        token: forge.adminToken,
        body: {
          type: "gitea",
          config: { url: receiver.url, content_type: "json", secret: SECRET },
          active: true,
        },
        shape: "Hook",
      });
      assert.equal(made.status, 201);
      const failed = await waitFor("the refused delivery", async () => {
        const page = await api<Delivery[]>(forge.url, "GET", `/user/hooks/${made.body.id}/deliveries`, {
          token: forge.adminToken,
        });
        return page.body.find((d) => d.status === "failed");
      });
      assert.equal(failed.event, "ping");
      assert.equal(failed.is_succeed, false);
      assert.equal(failed.response, null);
      assert.match(failed.error ?? "", /not an allowed host/);
      assert.deepEqual(receiver.received, []);
    });
  },
);
