import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { git } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";
import { payloadOf, type Receiver, startReceiver } from "../support/receiver.ts";

interface Tag {
  name: string;
  message: string;
  id: string;
  commit: { sha: string; url: string; created: string };
  zipball_url: string;
  tarball_url: string;
}
interface ErrorBody {
  message: string;
}

forEachForge(
  "forge tags: lightweight and annotated, list, get, delete, races",
  (forge) => {
    const cast = {} as Record<"tia" | "rex", Person>;
    let work: TempDir;
    let receiver: Receiver;
    let head = "";
    const repoPath = "/repos/tia/tagged";
    const call = <T = Tag & ErrorBody>(
      who: Person | undefined,
      method: string,
      path: string,
      body?: unknown,
    ) => api<T>(forge.url, method, `${repoPath}${path}`, { token: who?.token, body });
    const freshClone = async (name: string) => {
      const cloned = await git(["clone", "-q", `${forge.url}/tia/tagged.git`, name], work.path);
      assert.equal(cloned.code, 0, cloned.stderr);
      return join(work.path, name);
    };

    before(async () => {
      work = await tempDir("anvil-forge-tags-");
      receiver = await startReceiver();
      for (const name of ["tia", "rex"] as const)
        cast[name] = await makePerson(forge.url, forge.adminToken, name);
      const made = await api(forge.url, "POST", "/user/repos", {
        token: cast.tia.token,
        body: { name: "tagged", auto_init: true },
      });
      assert.equal(made.status, 201);
      const hook = await api(forge.url, "POST", `${repoPath}/hooks`, {
        token: cast.tia.token,
        body: {
          type: "gitea",
          config: { url: receiver.url, content_type: "json" },
          events: ["create", "delete"],
          active: true,
        },
      });
      assert.equal(hook.status, 201);
      head = (await git(["rev-parse", "HEAD"], await freshClone("first"))).stdout.trim();
    });
    after(async () => {
      await receiver.close();
      await work.remove();
    });

    test("create: no message makes a lightweight tag, a message an annotated one tagged by the caller", async () => {
      const from = receiver.received.length;
      const light = await api<Tag>(forge.url, "POST", `${repoPath}/tags`, {
        token: cast.tia.token,
        body: { tag_name: "v1.0" },
        shape: "Tag",
      });
      assert.equal(light.status, 201, JSON.stringify(light.body));
      assert.equal(light.body.id, head);
      assert.equal(light.body.commit.sha, head);
      assert.equal(light.body.message, "Initial commit");
      assert.equal(light.body.zipball_url, "http://forge.test/tia/tagged/archive/v1.0.zip");
      assert.equal(light.body.tarball_url, "http://forge.test/tia/tagged/archive/v1.0.tar.gz");
      const created = await receiver.next((r) => r.headers["x-gitea-event"] === "create", from);
      assert.deepEqual(
        (({ ref, ref_type, sha }) => ({ ref, ref_type, sha }))(
          payloadOf<{ ref: string; ref_type: string; sha: string }>(created),
        ),
        { ref: "v1.0", ref_type: "tag", sha: head },
      );

      const annotated = await api<Tag>(forge.url, "POST", `${repoPath}/tags`, {
        token: cast.tia.token,
        body: { tag_name: "release/2.0", target: "main", message: "Release 2.0\n\nWith notes." },
        shape: "Tag",
      });
      assert.equal(annotated.status, 201, JSON.stringify(annotated.body));
      assert.notEqual(annotated.body.id, head);
      assert.equal(annotated.body.commit.sha, head);
      assert.equal(annotated.body.message, "Release 2.0\n\nWith notes.");
      assert.equal(
        (await call(cast.tia, "POST", "/tags", { tag_name: "empty-message", message: "" })).status,
        201,
      );

      const dir = await freshClone("tags");
      const typeOf = async (ref: string) => (await git(["cat-file", "-t", ref], dir)).stdout.trim();
      assert.equal(await typeOf("refs/tags/v1.0"), "commit");
      assert.equal(await typeOf("refs/tags/empty-message"), "commit");
      assert.equal(await typeOf("refs/tags/release/2.0"), "tag");
      const body = (await git(["cat-file", "-p", "refs/tags/release/2.0"], dir)).stdout;
      assert.match(
        body,
        new RegExp(`^object ${head}\ntype commit\ntag release/2.0\ntagger tia <tia@example.com> `),
      );
      assert.match(body, /\n\nRelease 2\.0\n\nWith notes\.\n$/);
    });

    test("list (paged, X-Total-Count) and get, names with slashes included", async () => {
      const all = await api<Tag[]>(forge.url, "GET", `${repoPath}/tags`, { shape: "Tag[]" });
      assert.equal(all.status, 200);
      assert.equal(all.headers.get("x-total-count"), "3");
      assert.deepEqual(all.body.map((tag) => tag.name).sort(), ["empty-message", "release/2.0", "v1.0"]);
      const page = await api<Tag[]>(forge.url, "GET", `${repoPath}/tags?limit=2&page=2`, { shape: "Tag[]" });
      assert.equal(page.body.length, 1);
      assert.equal(page.headers.get("x-total-count"), "3");
      const one = await api<Tag>(forge.url, "GET", `${repoPath}/tags/release/2.0`, { shape: "Tag" });
      assert.equal(one.status, 200);
      assert.equal(one.body.name, "release/2.0");
      assert.deepEqual(
        one.body,
        all.body.find((tag) => tag.name === "release/2.0"),
      );
      for (const name of ["missing", "release", "a..b", "-x", "v1.0%00"])
        assert.equal((await call(undefined, "GET", `/tags/${name}`)).status, 404, name);
    });

    test("create: 409 for a taken name, 404 for a missing target, 422 for bad names, 403 for readers", async () => {
      const taken = await call(cast.tia, "POST", "/tags", { tag_name: "v1.0", message: "again" });
      assert.equal(taken.status, 409);
      assert.equal((await call(cast.tia, "POST", "/tags", { tag_name: "v1.0" })).status, 409);
      assert.equal((await call(cast.tia, "POST", "/tags", { tag_name: "x", target: "no-such" })).status, 404);
      assert.equal((await call(cast.tia, "POST", "/tags", { tag_name: "x", target: "--all" })).status, 404);
      for (const name of ["a..b", "-x", "refs/tags/x", "a\u0000b", "x@{1}", "", "a b", "x".repeat(256)]) {
        const res = await call(cast.tia, "POST", "/tags", { tag_name: name, message: "m" });
        assert.equal(res.status, 422, `${JSON.stringify(name)}: ${JSON.stringify(res.body)}`);
      }
      assert.equal((await call(cast.rex, "POST", "/tags", { tag_name: "by-rex" })).status, 403);
      assert.equal((await call(undefined, "POST", "/tags", { tag_name: "by-nobody" })).status, 401);
      const listed = await git(["ls-remote", "--tags", `${forge.url}/tia/tagged.git`], work.path);
      assert.doesNotMatch(listed.stdout, /refs\/tags\/(x|by-rex|by-nobody)\b/);
    });

    test("create: the same tag asked for at once, annotated or not: one 201, the others 409", async () => {
      for (const message of [undefined, "annotated"]) {
        const name = `race-${message ?? "light"}`;
        const answers = await Promise.all(
          Array.from({ length: 4 }, () => call(cast.tia, "POST", "/tags", { tag_name: name, message })),
        );
        assert.deepEqual(
          answers.map((answer) => answer.status).sort(),
          [201, 409, 409, 409],
          JSON.stringify(answers.map((answer) => answer.body)),
        );
      }
    });

    test("delete: 204 and gone from git (a delete event); 404 after; readers refused", async () => {
      assert.equal((await call(cast.rex, "DELETE", "/tags/v1.0")).status, 403);
      const from = receiver.received.length;
      assert.equal((await call(cast.tia, "DELETE", "/tags/release/2.0")).status, 204);
      const deleted = await receiver.next((r) => r.headers["x-gitea-event"] === "delete", from);
      assert.deepEqual(
        (({ ref, ref_type }) => ({ ref, ref_type }))(payloadOf<{ ref: string; ref_type: string }>(deleted)),
        { ref: "release/2.0", ref_type: "tag" },
      );
      assert.equal((await call(cast.tia, "DELETE", "/tags/release/2.0")).status, 404);
      assert.equal((await call(cast.tia, "GET", "/tags/release/2.0")).status, 404);
      const answers = await Promise.all(
        Array.from({ length: 3 }, () => call(cast.tia, "DELETE", "/tags/v1.0")),
      );
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [204, 404, 404]);
      const listed = await git(["ls-remote", "--tags", `${forge.url}/tia/tagged.git`], work.path);
      assert.doesNotMatch(listed.stdout, /refs\/tags\/(v1\.0|release\/2\.0)/);
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);
