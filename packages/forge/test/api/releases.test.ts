import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";
import { payloadOf, type Receiver, startReceiver } from "../support/receiver.ts";

// Releases: created published, draft or prerelease, the tag made (lightweight, at the target) only
// when published and only when missing; listed (drafts only to writers), latest, by tag and id,
// edited, deleted (the tag stays); permissions of the releases unit through teams; `release` hooks.

interface Release {
  id: number;
  tag_name: string;
  target_commitish: string;
  name: string;
  body: string;
  draft: boolean;
  prerelease: boolean;
  url: string;
  html_url: string;
  tarball_url: string;
  zipball_url: string;
  upload_url: string;
  author: { login: string };
  assets: unknown[];
  created_at: string;
  published_at: string;
}

forEachForge(
  "releases",
  (forge) => {
    const cast = {} as Record<"alice" | "wanda" | "cody" | "rita" | "olga", Person>;
    let work: TempDir;
    let receiver: Receiver;
    let dirs = 0;

    const call = <T = Release>(who: Person | undefined, method: string, path: string, body?: unknown) =>
      api<T & { message: string }>(forge.url, method, path, { token: who?.token, body });
    const create = (who: Person, repo: string, body: Record<string, unknown>) =>
      api<Release & { message: string }>(forge.url, "POST", `/repos/${repo}/releases`, {
        token: who.token,
        body,
        shape: "Release",
      });

    /** The tags of a repository as `git ls-remote` shows them: name -> commit (peeled). */
    async function remoteTags(repo: string): Promise<Map<string, string>> {
      const url = `${withCredentials(forge.url, "alice", cast.alice.token)}/${repo}.git`;
      const listed = await git(["ls-remote", "--tags", url], work.path);
      assert.equal(listed.code, 0, listed.stderr);
      const tags = new Map<string, string>();
      for (const line of listed.stdout.trim().split("\n").filter(Boolean)) {
        const [sha, ref] = line.split("\t");
        tags.set(ref.replace(/^refs\/tags\//, ""), sha);
      }
      return tags;
    }
    async function remoteHead(repo: string, branch: string): Promise<string> {
      const url = `${withCredentials(forge.url, "alice", cast.alice.token)}/${repo}.git`;
      const listed = await git(["ls-remote", url, `refs/heads/${branch}`], work.path);
      return listed.stdout.split("\t")[0];
    }

    before(async () => {
      work = await tempDir("anvil-forge-releases-");
      receiver = await startReceiver();
      for (const name of ["alice", "wanda", "cody", "rita", "olga"] as const)
        cast[name] = await makePerson(forge.url, forge.adminToken, name);
      for (const [name, priv] of [
        ["app", false],
        ["hidden", true],
        ["empty", false],
      ] as const) {
        const made = await call(cast.alice, "POST", "/user/repos", {
          name,
          auto_init: name !== "empty",
          private: priv,
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
      }
      // A second branch one commit ahead of main.
      const dir = join(work.path, `clone-${++dirs}`);
      const url = `${withCredentials(forge.url, "alice", cast.alice.token)}/alice/app.git`;
      assert.equal((await git(["clone", "-q", url, dir], work.path)).code, 0);
      await git(["checkout", "-q", "-b", "next"], dir);
      await git(
        [
          "-c",
          "user.name=A",
          "-c",
          "user.email=a@example.com",
          "commit",
          "-q",
          "--allow-empty",
          "-m",
          "next",
        ],
        dir,
      );
      assert.equal((await git(["push", "-q", "origin", "next"], dir)).code, 0);
      // An organization whose teams reach its repository's releases unit in different ways.
      assert.equal((await call(cast.olga, "POST", "/orgs", { username: "acme" })).status, 201);
      assert.equal(
        (await call(cast.olga, "POST", "/orgs/acme/repos", { name: "tool", auto_init: true, private: true }))
          .status,
        201,
      );
      for (const [team, member, units] of [
        ["publishers", "wanda", { "repo.code": "read", "repo.releases": "write" }],
        ["coders", "cody", { "repo.code": "write", "repo.releases": "none" }],
        ["readers", "rita", { "repo.code": "none", "repo.releases": "read" }],
      ] as const) {
        const made = await call<{ id: number }>(cast.olga, "POST", "/orgs/acme/teams", {
          name: team,
          units_map: units,
          includes_all_repositories: true,
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        assert.equal((await call(cast.olga, "PUT", `/teams/${made.body.id}/members/${member}`)).status, 204);
      }
    });
    after(async () => {
      await receiver.close();
      await work.remove();
    });

    test("a published release creates its missing tag, lightweight, at the default branch's tip", async () => {
      const made = await create(cast.alice, "alice/app", { tag_name: "v1.0.0", name: "One", body: "notes" });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const release = made.body;
      assert.equal(release.tag_name, "v1.0.0");
      assert.equal(release.target_commitish, "main");
      assert.equal(release.name, "One");
      assert.equal(release.body, "notes");
      assert.equal(release.draft, false);
      assert.equal(release.prerelease, false);
      assert.equal(release.author.login, "alice");
      assert.deepEqual(release.assets, []);
      assert.equal(release.url, `http://forge.test/api/v1/repos/alice/app/releases/${release.id}`);
      assert.equal(release.html_url, "http://forge.test/alice/app/releases/tag/v1.0.0");
      assert.equal(release.tarball_url, "http://forge.test/alice/app/archive/v1.0.0.tar.gz");
      assert.equal(release.zipball_url, "http://forge.test/alice/app/archive/v1.0.0.zip");
      assert.equal(release.upload_url, `${release.url}/assets`);
      assert.equal(release.published_at, release.created_at);
      const tags = await remoteTags("alice/app");
      assert.equal(tags.get("v1.0.0"), await remoteHead("alice/app", "main"));
      // Lightweight: no peeled `^{}` line, the ref names the commit itself.
      assert.equal(tags.has("v1.0.0^{}"), false);

      const again = await create(cast.alice, "alice/app", { tag_name: "v1.0.0" });
      assert.equal(again.status, 409);
      assert.equal(again.body.message, "release tag already exist [tag_name: v1.0.0]");
    });

    test("target_commitish names the tag's commit; an unknown target is a 404 and makes nothing", async () => {
      const made = await create(cast.alice, "alice/app", {
        tag_name: "v1.1.0-rc1",
        target_commitish: "next",
        prerelease: true,
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.prerelease, true);
      const tags = await remoteTags("alice/app");
      assert.equal(tags.get("v1.1.0-rc1"), await remoteHead("alice/app", "next"));

      const missing = await create(cast.alice, "alice/app", {
        tag_name: "v9",
        target_commitish: "no-such-branch",
      });
      assert.equal(missing.status, 404);
      assert.equal((await remoteTags("alice/app")).has("v9"), false);
      assert.equal((await call(cast.alice, "GET", "/repos/alice/app/releases/tags/v9")).status, 404);

      for (const tag_name of ["", "-rf", "a..b", "bad tag", "x\u0000y", "refs/../x"]) {
        const refused = await create(cast.alice, "alice/app", { tag_name, target_commitish: "main" });
        assert.equal(refused.status, 422, `${JSON.stringify(tag_name)}: ${JSON.stringify(refused.body)}`);
      }
      for (const target_commitish of ["--upload-pack=x", "main\u0000", "../../etc"]) {
        const refused = await create(cast.alice, "alice/app", { tag_name: "v-bad", target_commitish });
        assert.ok([404, 422].includes(refused.status), `${target_commitish}: ${refused.status}`);
      }
      assert.equal((await remoteTags("alice/app")).has("v-bad"), false);
      const empty = await create(cast.alice, "alice/empty", { tag_name: "v1" });
      assert.equal(empty.status, 422);
    });

    test("tag_message makes the release's new tag an annotated one, tagged by the publisher", async () => {
      const made = await create(cast.alice, "alice/app", {
        tag_name: "v1.2.0",
        target_commitish: "next",
        tag_message: "the annotated one",
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const tags = await remoteTags("alice/app");
      // An annotated tag: its ref names the tag object, the peeled line the commit.
      assert.equal(tags.get("v1.2.0^{}"), await remoteHead("alice/app", "next"));
      assert.notEqual(tags.get("v1.2.0"), tags.get("v1.2.0^{}"));
      const tag = await api<{ message: string; commit: { sha: string } }>(
        forge.url,
        "GET",
        "/repos/alice/app/tags/v1.2.0",
      );
      assert.equal(tag.status, 200);
      assert.match(tag.body.message, /^the annotated one/);
    });

    test("a tag a release stands on cannot be deleted directly (409) until the release is gone", async () => {
      const made = await create(cast.alice, "alice/app", { tag_name: "v-kept", draft: true });
      assert.equal(made.status, 201);
      const pushedTag = await call(cast.alice, "POST", "/repos/alice/app/tags", {
        tag_name: "v-kept",
        target: "main",
      });
      assert.equal(pushedTag.status, 201, JSON.stringify(pushedTag.body));
      const refused = await call(cast.alice, "DELETE", "/repos/alice/app/tags/v-kept");
      assert.equal(refused.status, 409);
      assert.equal(
        (await call(cast.alice, "DELETE", `/repos/alice/app/releases/${made.body.id}`)).status,
        204,
      );
      assert.equal((await call(cast.alice, "DELETE", "/repos/alice/app/tags/v-kept")).status, 204);
      assert.equal((await remoteTags("alice/app")).has("v-kept"), false);
    });

    test("a release on an existing tag uses it and moves nothing", async () => {
      const before = (await remoteTags("alice/app")).get("v1.1.0-rc1");
      const del = await call(cast.alice, "DELETE", "/repos/alice/app/releases/tags/v1.1.0-rc1");
      assert.equal(del.status, 204);
      // Deleting a release keeps its tag.
      assert.equal((await remoteTags("alice/app")).get("v1.1.0-rc1"), before);
      const made = await create(cast.alice, "alice/app", {
        tag_name: "v1.1.0-rc1",
        target_commitish: "main",
        prerelease: true,
      });
      assert.equal(made.status, 201);
      assert.equal((await remoteTags("alice/app")).get("v1.1.0-rc1"), before);
    });

    test("a draft makes no tag until it is published; drafts show only to writers", async () => {
      const draft = await create(cast.alice, "alice/app", { tag_name: "v2.0.0", draft: true, name: "Two" });
      assert.equal(draft.status, 201);
      assert.equal(draft.body.draft, true);
      assert.equal((await remoteTags("alice/app")).has("v2.0.0"), false);

      const asAnon = await api<Release[]>(forge.url, "GET", "/repos/alice/app/releases", {
        shape: "Release[]",
      });
      assert.ok(!asAnon.body.some((release) => release.tag_name === "v2.0.0"));
      assert.equal((await call(undefined, "GET", `/repos/alice/app/releases/${draft.body.id}`)).status, 404);
      assert.equal((await call(cast.rita, "GET", "/repos/alice/app/releases/tags/v2.0.0")).status, 404);
      const asOwner = await api<Release[]>(forge.url, "GET", "/repos/alice/app/releases", {
        token: cast.alice.token,
        shape: "Release[]",
      });
      assert.deepEqual(
        asOwner.body.map((release) => release.tag_name),
        ["v2.0.0", "v1.1.0-rc1", "v1.2.0", "v1.0.0"],
      );
      assert.equal(asOwner.headers.get("x-total-count"), "4");
      const drafts = await call<Release[]>(cast.alice, "GET", "/repos/alice/app/releases?draft=true");
      assert.deepEqual(
        drafts.body.map((release) => release.tag_name),
        ["v2.0.0"],
      );
      const pre = await call<Release[]>(cast.alice, "GET", "/repos/alice/app/releases?pre-release=false");
      assert.deepEqual(
        pre.body.map((release) => release.tag_name),
        ["v2.0.0", "v1.2.0", "v1.0.0"],
      );
      const onlyPre = await call<Release[]>(cast.alice, "GET", "/repos/alice/app/releases?pre-release=true");
      assert.deepEqual(
        onlyPre.body.map((release) => release.tag_name),
        ["v1.1.0-rc1"],
      );
      const paged = await call<Release[]>(cast.alice, "GET", "/repos/alice/app/releases?limit=1&page=2");
      assert.deepEqual(
        paged.body.map((release) => release.tag_name),
        ["v1.1.0-rc1"],
      );

      // Latest skips drafts and prereleases.
      const latest = await api<Release>(forge.url, "GET", "/repos/alice/app/releases/latest", {
        shape: "Release",
      });
      assert.equal(latest.body.tag_name, "v1.2.0");

      const published = await api<Release>(forge.url, "PATCH", `/repos/alice/app/releases/${draft.body.id}`, {
        token: cast.alice.token,
        body: { draft: false, body: "now out" },
        shape: "Release",
      });
      assert.equal(published.status, 200, JSON.stringify(published.body));
      assert.equal(published.body.draft, false);
      assert.equal(published.body.body, "now out");
      assert.equal(published.body.name, "Two");
      assert.equal((await remoteTags("alice/app")).get("v2.0.0"), await remoteHead("alice/app", "main"));
      assert.equal(
        (await call(undefined, "GET", "/repos/alice/app/releases/latest")).body.tag_name,
        "v2.0.0",
      );
      // An empty string leaves a field as it was, as in Gitea.
      const kept = await call(cast.alice, "PATCH", `/repos/alice/app/releases/${draft.body.id}`, {
        name: "",
      });
      assert.equal(kept.body.name, "Two");
    });

    test("get by id and tag, delete by id; numbers only for ids", async () => {
      const made = await create(cast.alice, "alice/app", { tag_name: "v3", target_commitish: "next" });
      const byId = await api<Release>(forge.url, "GET", `/repos/alice/app/releases/${made.body.id}`, {
        shape: "Release",
      });
      assert.equal(byId.body.tag_name, "v3");
      const byTag = await api<Release>(forge.url, "GET", "/repos/alice/app/releases/tags/v3", {
        shape: "Release",
      });
      assert.equal(byTag.body.id, made.body.id);
      for (const id of ["abc", "-1", "1e3", "99999999"])
        assert.equal((await call(cast.alice, "GET", `/repos/alice/app/releases/${id}`)).status, 404, id);
      assert.equal(
        (await call(cast.alice, "DELETE", `/repos/alice/app/releases/${made.body.id}`)).status,
        204,
      );
      assert.equal((await call(cast.alice, "GET", `/repos/alice/app/releases/${made.body.id}`)).status, 404);
      assert.equal((await remoteTags("alice/app")).has("v3"), true);
      // Another repository's release id is not found through this one.
      const other = await create(cast.olga, "acme/tool", { tag_name: "t1" });
      assert.equal(other.status, 201);
      assert.equal((await call(cast.alice, "GET", `/repos/alice/app/releases/${other.body.id}`)).status, 404);
    });

    test("permissions follow the releases unit: team writers publish, code writers and readers do not", async () => {
      const byWriter = await create(cast.wanda, "acme/tool", { tag_name: "w1" });
      assert.equal(byWriter.status, 201, JSON.stringify(byWriter.body));
      const byCoder = await create(cast.cody, "acme/tool", { tag_name: "c1" });
      assert.equal(byCoder.status, 403);
      assert.equal((await call(cast.cody, "GET", "/repos/acme/tool/releases")).status, 403);
      const byReader = await create(cast.rita, "acme/tool", { tag_name: "r1" });
      assert.equal(byReader.status, 403);
      const read = await call<Release[]>(cast.rita, "GET", "/repos/acme/tool/releases");
      assert.equal(read.status, 200);
      assert.ok(read.body.some((release) => release.tag_name === "w1"));
      assert.equal(
        (await call(cast.rita, "DELETE", `/repos/acme/tool/releases/${byWriter.body.id}`)).status,
        403,
      );
      assert.equal(
        (await call(cast.rita, "PATCH", `/repos/acme/tool/releases/${byWriter.body.id}`, { name: "x" }))
          .status,
        403,
      );
      // Outsiders do not see the private repository at all.
      assert.equal((await call(cast.alice, "GET", "/repos/acme/tool/releases")).status, 404);
      assert.equal((await call(undefined, "GET", "/repos/alice/hidden/releases")).status, 404);
    });

    test("concurrent releases of one new tag: one 201, the others 409, one tag", async () => {
      const answers = await Promise.all(
        ["main", "next", "main", "next"].map((target) =>
          create(cast.alice, "alice/app", { tag_name: "race", target_commitish: target }),
        ),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status).sort(),
        [201, 409, 409, 409],
        JSON.stringify(answers.map((answer) => answer.body)),
      );
      const winner = answers.find((answer) => answer.status === 201)?.body.target_commitish as string;
      assert.equal((await remoteTags("alice/app")).get("race"), await remoteHead("alice/app", winner));
    });

    test("release_counter counts published releases through publication, unpublishing and deletion", async () => {
      const counter = async () =>
        (await api<{ release_counter: number }>(forge.url, "GET", "/repos/alice/app")).body.release_counter;
      const start = await counter();
      const draft = await create(cast.alice, "alice/app", { tag_name: "count-me", draft: true });
      assert.equal(await counter(), start);
      const path = `/repos/alice/app/releases/${draft.body.id}`;
      // Published by several edits at once: counted once.
      const edits = await Promise.all([1, 2, 3].map(() => call(cast.alice, "PATCH", path, { draft: false })));
      assert.deepEqual(
        edits.map((edit) => edit.status),
        [200, 200, 200],
      );
      assert.equal(await counter(), start + 1);
      assert.equal((await call(cast.alice, "PATCH", path, { draft: true })).status, 200);
      assert.equal(await counter(), start);
      assert.equal((await call(cast.alice, "PATCH", path, { draft: false })).status, 200);
      // Deleted by several requests at once: one 204, the others 404, counted off once.
      const deletes = await Promise.all([1, 2, 3].map(() => call(cast.alice, "DELETE", path)));
      assert.deepEqual(deletes.map((answer) => answer.status).sort(), [204, 404, 404]);
      assert.equal(await counter(), start);
    });

    test("hooks hear `release`: published, updated, deleted, and the tag's `create`", async () => {
      const hook = await call(cast.alice, "POST", "/repos/alice/app/hooks", {
        type: "gitea",
        config: { url: receiver.url, content_type: "json" },
        events: ["release", "create"],
        active: true,
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const from = receiver.received.length;
      const made = await create(cast.alice, "alice/app", { tag_name: "hooked" });
      const published = await receiver.next((r) => r.headers["x-gitea-event"] === "release", from);
      const payload = payloadOf<{ action: string; release: Release; repository: { full_name: string } }>(
        published,
      );
      assert.equal(payload.action, "published");
      assert.equal(payload.release.tag_name, "hooked");
      assert.equal(payload.repository.full_name, "alice/app");
      const created = await receiver.next((r) => r.headers["x-gitea-event"] === "create", from);
      assert.deepEqual(
        (({ ref, ref_type }) => ({ ref, ref_type }))(payloadOf<{ ref: string; ref_type: string }>(created)),
        { ref: "hooked", ref_type: "tag" },
      );
      const at = receiver.received.length;
      await call(cast.alice, "PATCH", `/repos/alice/app/releases/${made.body.id}`, { name: "renamed" });
      const updated = await receiver.next((r) => r.headers["x-gitea-event"] === "release", at);
      assert.equal(payloadOf<{ action: string }>(updated).action, "updated");
      const at2 = receiver.received.length;
      await call(cast.alice, "DELETE", `/repos/alice/app/releases/${made.body.id}`);
      const deleted = await receiver.next((r) => r.headers["x-gitea-event"] === "release", at2);
      assert.equal(payloadOf<{ action: string }>(deleted).action, "deleted");
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);
