import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { run } from "../ssh/tools.ts";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";
import { payloadOf, type Received, type Receiver, startReceiver } from "../support/receiver.ts";

interface Contents {
  name: string;
  path: string;
  sha: string;
  type: string;
  size: number;
  encoding: string | null;
  content: string | null;
  target: string | null;
  last_commit_sha?: string;
  url: string;
  html_url: string | null;
  download_url: string | null;
  git_url: string | null;
}
interface FileCommit {
  sha: string;
  message: string;
  author: { name: string; email: string; date: string };
  committer: { name: string; email: string; date: string };
  parents: Array<{ sha: string }>;
}
interface FileAnswer {
  content: Contents | null;
  commit: FileCommit;
  message?: string;
}
interface FilesAnswer {
  files: Array<Contents | null>;
  commit: FileCommit;
  message?: string;
}

const b64 = (text: string | Buffer) => Buffer.from(text).toString("base64");

forEachForge(
  "forge contents: files read and changed through the API as real commits, raw, archives, languages, editorconfig",
  (forge) => {
    const cast = {} as Record<"alice" | "bob" | "olga" | "carol", Person>;
    let work: TempDir;
    let receiver: Receiver;
    let dirs = 0;

    const call = <T = { message: string }>(
      who: Person | undefined,
      method: string,
      path: string,
      body?: unknown,
      shape?: string,
    ) => api<T>(forge.url, method, path, { token: who?.token, body, shape });
    const remote = (user: string, repo: string) =>
      `${withCredentials(forge.url, user, "password123")}/alice/${repo}.git`;

    /** A fresh clone of `repo` as `user`; its directory. */
    async function clone(user: string, repo: string, branch?: string): Promise<string> {
      const dir = join(work.path, `clone-${++dirs}`);
      const args = ["clone", "-q", ...(branch ? ["-b", branch] : []), remote(user, repo), dir];
      const cloned = await git(args, work.path);
      assert.equal(cloned.code, 0, cloned.stderr);
      return dir;
    }
    const out = async (args: string[], dir: string) => {
      const result = await git(args, dir);
      assert.equal(result.code, 0, result.stderr);
      return result.stdout;
    };
    const headOf = async (repo: string, branch = "main") =>
      (await out(["ls-remote", remote("alice", repo), `refs/heads/${branch}`], work.path)).split("\t")[0];

    const createRepo = async (who: Person, name: string, extra: Record<string, unknown> = {}) => {
      const made = await call(who, "POST", "/user/repos", { name, auto_init: true, ...extra });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    };

    before(async () => {
      work = await tempDir("anvil-forge-contents-");
      receiver = await startReceiver();
      for (const name of ["alice", "bob", "olga", "carol"] as const)
        cast[name] = await makePerson(forge.url, forge.adminToken, name);
      await createRepo(cast.alice, "files");
      const collaborator = await call(cast.alice, "PUT", "/repos/alice/files/collaborators/bob", {
        permission: "read",
      });
      assert.equal(collaborator.status, 204);
      const hook = await call(cast.alice, "POST", "/repos/alice/files/hooks", {
        type: "gitea",
        config: { url: receiver.url, content_type: "json" },
        events: ["push", "create"],
        active: true,
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
    });
    after(async () => {
      await receiver?.close();
      await work?.remove();
    });

    test("POST /contents/{path} makes a real commit with the author, dates and sign-off asked for; a second create is 422", async () => {
      const before = await headOf("files");
      const made = await call<FileAnswer>(
        cast.alice,
        "POST",
        "/repos/alice/files/contents/docs/hello.txt",
        {
          content: b64("hello, world\n"),
          message: "Add a greeting",
          author: { name: "Ada Author", email: "ada@example.com" },
          committer: { name: "Cy Committer", email: "cy@example.com" },
          dates: { author: "2020-01-02T03:04:05Z", committer: "2021-02-03T04:05:06Z" },
          signoff: true,
        },
        "FileResponse",
      );
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const { content, commit } = made.body;
      assert.ok(content);
      assert.equal(content.path, "docs/hello.txt");
      assert.equal(content.type, "file");
      assert.equal(Buffer.from(content.content ?? "", "base64").toString(), "hello, world\n");
      assert.equal(content.last_commit_sha, commit.sha);
      assert.equal(commit.parents[0].sha, before);
      assert.equal(commit.author.date, "2020-01-02T03:04:05Z");
      assert.equal(commit.committer.date, "2021-02-03T04:05:06Z");

      const dir = await clone("alice", "files");
      assert.equal((await out(["rev-parse", "HEAD"], dir)).trim(), commit.sha);
      assert.equal((await out(["rev-parse", "HEAD:docs/hello.txt"], dir)).trim(), content.sha);
      assert.equal(await out(["show", "HEAD:docs/hello.txt"], dir), "hello, world\n");
      const log = await out(["log", "-1", "--format=%an|%ae|%aI|%cn|%ce|%cI%n%B"], dir);
      assert.equal(
        log.trim(),
        "Ada Author|ada@example.com|2020-01-02T03:04:05+00:00|Cy Committer|cy@example.com|2021-02-03T04:05:06+00:00\n" +
          "Add a greeting\n\nSigned-off-by: Cy Committer <cy@example.com>",
      );

      const again = await call(cast.alice, "POST", "/repos/alice/files/contents/docs/hello.txt", {
        content: b64("x"),
      });
      assert.equal(again.status, 422);
      assert.match(again.body.message, /repository file already exists \[path: docs\/hello.txt\]/);
      assert.equal(await headOf("files"), commit.sha, "nothing was committed");
    });

    test("GET /contents: a file with its content, a directory listing, the root, other refs; 404 for what is not there", async () => {
      const created = await call<FileAnswer>(cast.alice, "POST", "/repos/alice/files/contents/src/main.go", {
        content: b64("package main\n"),
      });
      assert.equal(created.status, 201);
      const file = await call<Contents>(
        cast.bob,
        "GET",
        "/repos/alice/files/contents/src/main.go",
        undefined,
        "ContentsResponse",
      );
      assert.equal(file.status, 200);
      assert.equal(file.body.encoding, "base64");
      assert.equal(Buffer.from(file.body.content ?? "", "base64").toString(), "package main\n");
      assert.equal(file.body.size, 13);
      assert.equal(file.body.last_commit_sha, created.body.commit.sha);
      assert.equal(file.body.url, "http://forge.test/api/v1/repos/alice/files/contents/src/main.go?ref=main");
      assert.equal(file.body.download_url, "http://forge.test/alice/files/raw/branch/main/src/main.go");
      assert.equal(file.body.html_url, "http://forge.test/alice/files/src/branch/main/src/main.go");

      const root = await call<Contents[]>(
        cast.bob,
        "GET",
        "/repos/alice/files/contents",
        undefined,
        "ContentsResponse[]",
      );
      assert.equal(root.status, 200);
      const byName = new Map(root.body.map((entry) => [entry.name, entry]));
      assert.equal(byName.get("README.md")?.type, "file");
      assert.equal(byName.get("src")?.type, "dir");
      assert.equal(byName.get("src")?.content, null, "a listing carries no content");
      assert.equal(byName.get("src")?.last_commit_sha, created.body.commit.sha);
      assert.equal(byName.get("README.md")?.content, null);
      const dir = await call<Contents[]>(
        cast.bob,
        "GET",
        "/repos/alice/files/contents/src/",
        undefined,
        "ContentsResponse[]",
      );
      assert.deepEqual(
        dir.body.map((entry) => entry.path),
        ["src/main.go"],
      );

      // contents-ext: metadata only unless asked; a file or a directory, never both.
      const ext = await call<{
        file_contents?: Contents & { last_commit_message?: string };
        dir_contents?: Contents[];
      }>(cast.bob, "GET", "/repos/alice/files/contents-ext/src/main.go", undefined, "ContentsExtResponse");
      assert.equal(ext.status, 200, JSON.stringify(ext.body));
      assert.equal(ext.body.dir_contents, undefined);
      assert.equal(ext.body.file_contents?.content, null);
      assert.equal(ext.body.file_contents?.last_commit_sha, undefined);
      const full = await call<{ file_contents: Contents & { last_commit_message?: string } }>(
        cast.bob,
        "GET",
        "/repos/alice/files/contents-ext/src/main.go?includes=file_content,commit_metadata,commit_message",
        undefined,
        "ContentsExtResponse",
      );
      assert.equal(Buffer.from(full.body.file_contents.content ?? "", "base64").toString(), "package main\n");
      assert.equal(full.body.file_contents.last_commit_sha, created.body.commit.sha);
      assert.equal(full.body.file_contents.last_commit_message, "Add src/main.go\n");
      const extRoot = await call<{ dir_contents: Contents[] }>(
        cast.bob,
        "GET",
        "/repos/alice/files/contents-ext/.?includes=file_content",
        undefined,
        "ContentsExtResponse",
      );
      assert.ok(
        extRoot.body.dir_contents.some((entry) => entry.path === "README.md" && entry.content === null),
      );
      assert.equal(
        (await call(cast.bob, "GET", "/repos/alice/files/contents-ext/src?includes=bogus")).status,
        400,
      );

      // A symlink pushed with git shows its target; a tag and a commit id work as refs.
      const work = await clone("alice", "files");
      const target = "src/main.go";
      const blob = (await runWithInput(["hash-object", "-w", "--stdin"], work, target)).trim();
      await out(["update-index", "--add", "--cacheinfo", `120000,${blob},link`], work);
      await out(
        ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "a link"],
        work,
      );
      await out(["tag", "v1"], work);
      await out(["push", "-q", "origin", "main", "v1"], work);
      const link = await call<Contents>(
        cast.bob,
        "GET",
        "/repos/alice/files/contents/link?ref=v1",
        undefined,
        "ContentsResponse",
      );
      assert.equal(link.status, 200, JSON.stringify(link.body));
      assert.equal(link.body.type, "symlink");
      assert.equal(link.body.target, target);
      assert.equal(link.body.download_url, "http://forge.test/alice/files/raw/tag/v1/link");
      const old = await call<Contents>(
        cast.bob,
        "GET",
        `/repos/alice/files/contents/src/main.go?ref=${created.body.commit.parents[0].sha}`,
      );
      assert.equal(old.status, 404, "the file is not in the commit before it");
      const atCommit = await call<Contents>(
        cast.bob,
        "GET",
        `/repos/alice/files/contents/src/main.go?ref=${created.body.commit.sha}`,
      );
      assert.equal(atCommit.status, 200);
      const byFullName = await call<Contents>(
        cast.bob,
        "GET",
        "/repos/alice/files/contents/link?ref=refs/tags/v1",
      );
      assert.equal(byFullName.body.download_url, "http://forge.test/alice/files/raw/tag/v1/link");
      const abbreviated = await call<Contents>(
        cast.bob,
        "GET",
        `/repos/alice/files/contents/src/main.go?ref=${created.body.commit.sha.slice(0, 10)}`,
      );
      assert.equal(abbreviated.status, 200);
      assert.equal(
        atCommit.body.html_url,
        `http://forge.test/alice/files/src/commit/${created.body.commit.sha}/src/main.go`,
      );

      for (const path of ["nope.txt", "src/nope", ".git/config", "src/main.go/x"])
        assert.equal((await call(cast.bob, "GET", `/repos/alice/files/contents/${path}`)).status, 404, path);
      // What a browser or fetch would normalize away, sent as it is.
      for (const path of ["../../../etc/passwd", "src/../README.md", "./README.md", "src//main.go"])
        assert.equal(
          (await unnormalized(cast.bob, "GET", `/repos/alice/files/contents/${path}`)).status,
          404,
          path,
        );
      assert.equal((await call(cast.bob, "GET", "/repos/alice/files/contents/a%00b")).status, 404);
      assert.equal(
        (await call(cast.bob, "GET", "/repos/alice/files/contents/README.md?ref=nope")).status,
        404,
      );
      assert.equal(
        (await call(cast.bob, "GET", "/repos/alice/files/contents/README.md?ref=--output=x")).status,
        404,
      );
    });

    /** A request whose path goes out exactly as written (fetch would resolve `..` and `.`). */
    function unnormalized(who: Person, method: string, path: string, body?: unknown) {
      const target = new URL(forge.url);
      return new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            method,
            path: `/api/v1${path}`,
            headers: {
              authorization: `token ${who.token}`,
              ...(body === undefined ? {} : { "content-type": "application/json" }),
            },
          },
          (response) => {
            let text = "";
            response.setEncoding("utf8").on("data", (chunk: string) => {
              text += chunk;
            });
            response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
          },
        );
        request.on("error", reject);
        request.end(body === undefined ? undefined : JSON.stringify(body));
      });
    }

    async function runWithInput(args: string[], cwd: string, input: string): Promise<string> {
      const { spawn } = await import("node:child_process");
      return new Promise((resolve, reject) => {
        const child = spawn("git", args, { cwd, env: { ...process.env, HOME: cwd } });
        let stdout = "";
        child.stdout.on("data", (chunk) => {
          stdout += chunk;
        });
        child.on("error", reject);
        child.on("close", () => resolve(stdout));
        child.stdin.end(input);
      });
    }

    test("a submodule shows its URL from .gitmodules, and a symlink its target, in a listing and by itself", async () => {
      await createRepo(cast.alice, "modules");
      const dir = await clone("alice", "modules");
      const head = (await out(["rev-parse", "HEAD"], dir)).trim();
      await out(["update-index", "--add", "--cacheinfo", `160000,${head},libs/sub`], dir);
      const blob = (await runWithInput(["hash-object", "-w", "--stdin"], dir, "../README.md")).trim();
      await out(["update-index", "--add", "--cacheinfo", `120000,${blob},libs/readme`], dir);
      await writeFile(
        join(dir, ".gitmodules"),
        '[submodule "sub"]\n\tpath = libs/sub\n\turl = https://example.com/sub.git\n',
      );
      await out(["add", ".gitmodules"], dir);
      await out(["commit", "-q", "-m", "a submodule"], dir);
      await out(["push", "-q", "origin", "main"], dir);
      const sub = await call<Contents & { submodule_git_url: string | null }>(
        cast.bob,
        "GET",
        "/repos/alice/modules/contents/libs/sub",
        undefined,
        "ContentsResponse",
      );
      assert.equal(sub.status, 200, JSON.stringify(sub.body));
      assert.equal(sub.body.type, "submodule");
      assert.equal(sub.body.sha, head);
      assert.equal(sub.body.submodule_git_url, "https://example.com/sub.git");
      assert.equal(sub.body.html_url, null);
      const listing = await call<Array<Contents & { submodule_git_url: string | null }>>(
        cast.bob,
        "GET",
        "/repos/alice/modules/contents/libs",
        undefined,
        "ContentsResponse[]",
      );
      assert.deepEqual(
        listing.body.map((entry) => [entry.name, entry.type, entry.target, entry.submodule_git_url]),
        [
          ["readme", "symlink", "../README.md", null],
          ["sub", "submodule", null, "https://example.com/sub.git"],
        ],
      );
      assert.equal((await call(cast.bob, "GET", "/repos/alice/modules/raw/libs/sub")).status, 404);
      // As Gitea, a symlink is not overwritten with a file; a submodule is no file to change.
      const overLink = await call(cast.alice, "PUT", "/repos/alice/modules/contents/libs/readme", {
        content: b64("x"),
        sha: blob,
      });
      assert.equal(overLink.status, 422);
      const overModule = await call(cast.alice, "PUT", "/repos/alice/modules/contents/libs/sub", {
        content: b64("x"),
        sha: head,
      });
      assert.equal(overModule.status, 404);
    });

    test("PUT updates with the blob's sha (422 for a stale one), renames with from_path; DELETE removes with the sha", async () => {
      const made = await call<FileAnswer>(cast.alice, "POST", "/repos/alice/files/contents/notes/a.txt", {
        content: b64("one\n"),
      });
      assert.equal(made.status, 201);
      const sha = made.body.content?.sha as string;
      // Read once before the change, then after it: nothing read before is answered again.
      const contentsOf = async () =>
        Buffer.from(
          (await call<Contents>(cast.bob, "GET", "/repos/alice/files/contents/notes/a.txt")).body.content ??
            "",
          "base64",
        ).toString();
      const rawOf = async () =>
        (await unnormalized(cast.bob, "GET", "/repos/alice/files/raw/notes/a.txt")).body;
      assert.deepEqual([await contentsOf(), await rawOf()], ["one\n", "one\n"]);
      const updated = await call<FileAnswer>(
        cast.alice,
        "PUT",
        "/repos/alice/files/contents/notes/a.txt",
        { content: b64("two\n"), sha },
        "FileResponse",
      );
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.body.commit.message, "Update notes/a.txt\n");
      assert.deepEqual([await contentsOf(), await rawOf()], ["two\n", "two\n"]);
      const stale = await call(cast.alice, "PUT", "/repos/alice/files/contents/notes/a.txt", {
        content: b64("three\n"),
        sha,
      });
      assert.equal(stale.status, 422);
      assert.match(stale.body.message, /sha does not match/);
      const noSha = await call(cast.alice, "PUT", "/repos/alice/files/contents/notes/a.txt", {
        content: b64("x"),
      });
      assert.equal(noSha.status, 422);

      const moved = await call<FileAnswer>(
        cast.alice,
        "PUT",
        "/repos/alice/files/contents/notes/b.txt",
        { content: b64("moved\n"), sha: updated.body.content?.sha, from_path: "notes/a.txt" },
        "FileResponse",
      );
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      const dir = await clone("alice", "files");
      assert.equal((await out(["ls-tree", "--name-only", "HEAD", "notes/"], dir)).trim(), "notes/b.txt");
      assert.equal(await out(["show", "HEAD:notes/b.txt"], dir), "moved\n");

      const missing = await call(cast.alice, "DELETE", "/repos/alice/files/contents/notes/zzz.txt", {
        sha: moved.body.content?.sha,
      });
      assert.equal(missing.status, 404);
      const wrong = await call(cast.alice, "DELETE", "/repos/alice/files/contents/notes/b.txt", { sha: sha });
      assert.equal(wrong.status, 422);
      const deleted = await call<FileAnswer>(
        cast.alice,
        "DELETE",
        "/repos/alice/files/contents/notes/b.txt",
        { sha: moved.body.content?.sha, message: "Remove the note" },
        "FileDeleteResponse",
      );
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.equal(deleted.body.content, null);
      await out(["pull", "-q"], dir);
      assert.equal((await out(["ls-tree", "HEAD", "notes/"], dir)).trim(), "");
      assert.equal((await out(["log", "-1", "--format=%s"], dir)).trim(), "Remove the note");
    });

    test("POST /contents changes several files in one commit; a new_branch is made from branch, announced by create and push", async () => {
      const seeded = await call<FilesAnswer>(cast.alice, "POST", "/repos/alice/files/contents", {
        files: [
          { operation: "create", path: "multi/keep.txt", content: b64("keep\n") },
          { operation: "create", path: "multi/old.txt", content: b64("old\n") },
        ],
      });
      assert.equal(seeded.status, 201, JSON.stringify(seeded.body));
      const [keep, old] = seeded.body.files as Contents[];
      const from = receiver.received.length;
      const changed = await call<FilesAnswer>(
        cast.alice,
        "POST",
        "/repos/alice/files/contents",
        {
          new_branch: "feature/multi",
          message: "Three at once",
          files: [
            { operation: "create", path: "multi/new.txt", content: b64("new\n") },
            { operation: "update", path: "multi/keep.txt", content: b64("kept\n"), sha: keep.sha },
            { operation: "rename", path: "multi/renamed.txt", from_path: "multi/old.txt", sha: old.sha },
          ],
        },
        "FilesResponse",
      );
      assert.equal(changed.status, 201, JSON.stringify(changed.body));
      const main = await headOf("files");
      assert.equal(changed.body.commit.parents[0].sha, main, "made from main, which did not move");
      const dir = await clone("alice", "files", "feature/multi");
      assert.equal(
        await out(["show", "--format=%s", "--name-status", "HEAD"], dir),
        "Three at once\n\nM\tmulti/keep.txt\nA\tmulti/new.txt\nR100\tmulti/old.txt\tmulti/renamed.txt\n",
      );
      assert.equal(await out(["show", "HEAD:multi/renamed.txt"], dir), "old\n", "a rename keeps the bytes");

      const isEvent = (event: string) => (r: Received) =>
        r.headers["x-gitea-event"] === event && JSON.stringify(payloadOf(r)).includes("feature/multi");
      const create = payloadOf<{ ref: string; ref_type: string; sha: string }>(
        await receiver.next(isEvent("create"), from),
      );
      assert.deepEqual(
        [create.ref, create.ref_type, create.sha],
        ["feature/multi", "branch", changed.body.commit.sha],
      );
      const push = payloadOf<{ ref: string; after: string; commits: Array<{ id: string }> }>(
        await receiver.next(isEvent("push"), from),
      );
      assert.equal(push.ref, "refs/heads/feature/multi");
      assert.equal(push.after, changed.body.commit.sha);
      assert.equal(push.commits[0].id, changed.body.commit.sha);

      const exists = await call(cast.alice, "POST", "/repos/alice/files/contents/multi/x.txt", {
        content: b64("x"),
        new_branch: "feature/multi",
      });
      assert.equal(exists.status, 422);
      assert.match(exists.body.message, /branch already exists/);
      const noBranch = await call(cast.alice, "POST", "/repos/alice/files/contents/multi/x.txt", {
        content: b64("x"),
        branch: "nope",
      });
      assert.equal(noBranch.status, 404);
    });

    test("edits fired together with the same sha: exactly one wins, the others change nothing", async () => {
      const made = await call<FileAnswer>(cast.alice, "POST", "/repos/alice/files/contents/race.txt", {
        content: b64("start\n"),
      });
      const sha = made.body.content?.sha;
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          call<FileAnswer>(cast.alice, "PUT", "/repos/alice/files/contents/race.txt", {
            content: b64(`writer ${i}\n`),
            sha,
          }),
        ),
      );
      const won = answers.filter((answer) => answer.status === 200);
      assert.equal(won.length, 1, answers.map((answer) => answer.status).join());
      for (const lost of answers.filter((answer) => answer.status !== 200))
        assert.ok([409, 422].includes(lost.status), `${lost.status} ${JSON.stringify(lost.body)}`);
      const dir = await clone("alice", "files");
      assert.equal((await out(["rev-list", "--count", `${made.body.commit.sha}..HEAD`], dir)).trim(), "1");
      const winner = answers.indexOf(won[0]);
      assert.equal(await out(["show", "HEAD:race.txt"], dir), `writer ${winner}\n`);
    });

    test("paths with '..', absolute, NUL, '.git' or a leading dash in a ref are refused and commit nothing", async () => {
      const before = await headOf("files");
      const bad = [
        "../escape.txt",
        "/etc/passwd",
        "a/../../b",
        "a/.git/config",
        ".GIT/hooks/x",
        "a\u0000b",
        "a//b",
        "./a",
      ];
      for (const path of bad) {
        const answer = await call(cast.alice, "POST", "/repos/alice/files/contents", {
          files: [{ operation: "create", path, content: b64("x") }],
        });
        assert.equal(answer.status, 422, `${JSON.stringify(path)}: ${JSON.stringify(answer.body)}`);
      }
      const viaUrl = await unnormalized(cast.alice, "POST", "/repos/alice/files/contents/../escape.txt", {
        content: b64("x"),
      });
      assert.equal(viaUrl.status, 422, viaUrl.body);
      const fromPath = await call(cast.alice, "PUT", "/repos/alice/files/contents/ok.txt", {
        content: b64("x"),
        sha: "0".repeat(40),
        from_path: "../README.md",
      });
      assert.equal(fromPath.status, 422);
      for (const branch of ["-x", "--output=/tmp/x", "a..b"]) {
        const answer = await call(cast.alice, "POST", "/repos/alice/files/contents/ok.txt", {
          content: b64("x"),
          new_branch: branch,
        });
        assert.equal(answer.status, 422, branch);
      }
      const notBase64 = await call(cast.alice, "POST", "/repos/alice/files/contents/ok.txt", {
        content: "%%%",
      });
      assert.equal(notBase64.status, 422);
      const dirAsFile = await call(cast.alice, "POST", "/repos/alice/files/contents/src", {
        content: b64("x"),
      });
      assert.equal(dirAsFile.status, 422);
      const underFile = await call(cast.alice, "POST", "/repos/alice/files/contents/README.md/x", {
        content: b64("x"),
      });
      assert.equal(underFile.status, 422);
      const inOneChange = await call(cast.alice, "POST", "/repos/alice/files/contents", {
        files: [
          { operation: "create", path: "df/x", content: b64("file") },
          { operation: "create", path: "df/x/y", content: b64("under the file") },
        ],
      });
      assert.equal(inOneChange.status, 422);
      assert.match(inOneChange.body.message, /a file exists where you’re trying to create a subdirectory/);
      for (const odd of [
        { message: "nul \u0000 inside" },
        { dates: { author: "1969-12-31T23:59:59Z" } },
        { dates: { committer: "not a date" } },
        { author: { name: "Eve <evil>", email: "eve@example.com" } },
      ]) {
        const answer = await call(cast.alice, "POST", "/repos/alice/files/contents/odd.txt", {
          content: b64("x"),
          ...odd,
        });
        assert.equal(answer.status, 422, `${JSON.stringify(odd)}: ${JSON.stringify(answer.body)}`);
      }
      assert.equal(await headOf("files"), before, "nothing was committed");
      const refs = await out(["ls-remote", remote("alice", "files")], work.path);
      assert.ok(!refs.includes("output") && !refs.includes("-x"), refs);
    });

    test("writes need code write: a read collaborator and a team without code are refused, an archived repository is locked", async () => {
      const before = await headOf("files");
      const asReader = await call(cast.bob, "POST", "/repos/alice/files/contents/bob.txt", {
        content: b64("x"),
      });
      assert.equal(asReader.status, 403);
      assert.equal((await unnormalized(cast.bob, "GET", "/repos/alice/files/raw/README.md")).status, 200);

      assert.equal((await call(cast.olga, "POST", "/orgs", { username: "acme" })).status, 201);
      assert.equal(
        (await call(cast.olga, "POST", "/orgs/acme/repos", { name: "code", auto_init: true, private: true }))
          .status,
        201,
      );
      const team = await call<{ id: number }>(cast.olga, "POST", "/orgs/acme/teams", {
        name: "issuers",
        units_map: { "repo.issues": "write", "repo.code": "none" },
      });
      assert.equal(team.status, 201, JSON.stringify(team.body));
      assert.equal((await call(cast.olga, "PUT", `/teams/${team.body.id}/repos/acme/code`)).status, 204);
      assert.equal((await call(cast.olga, "PUT", `/teams/${team.body.id}/members/carol`)).status, 204);
      for (const path of ["contents/README.md", "contents", "raw/README.md", "archive/main.zip", "languages"])
        assert.equal((await call(cast.carol, "GET", `/repos/acme/code/${path}`)).status, 403, path);
      const asTeam = await call(cast.carol, "POST", "/repos/acme/code/contents/x.txt", { content: b64("x") });
      assert.equal(asTeam.status, 403);
      const anonymous = await call(undefined, "POST", "/repos/alice/files/contents/x.txt", {
        content: b64("x"),
      });
      assert.equal(anonymous.status, 401);

      assert.equal((await call(cast.alice, "PATCH", "/repos/alice/files", { archived: true })).status, 200);
      const locked = await call(cast.alice, "POST", "/repos/alice/files/contents/x.txt", {
        content: b64("x"),
      });
      assert.equal(locked.status, 423);
      assert.equal((await call(cast.alice, "GET", "/repos/alice/files/contents/README.md")).status, 200);
      assert.equal((await call(cast.alice, "PATCH", "/repos/alice/files", { archived: false })).status, 200);
      assert.equal(await headOf("files"), before);
    });

    test("a protected branch takes API changes only from those who may push to it", async () => {
      await createRepo(cast.alice, "guarded");
      const rule = await call<{ rule_name: string }>(
        cast.alice,
        "POST",
        "/repos/alice/guarded/branch_protections",
        {
          rule_name: "main",
          enable_push: false,
        },
      );
      assert.equal(rule.status, 201, JSON.stringify(rule.body));
      const before = await headOf("guarded");
      const refused = await call(cast.alice, "POST", "/repos/alice/guarded/contents/x.txt", {
        content: b64("x"),
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.message, "user should have a permission to write to the target branch");
      assert.equal(await headOf("guarded"), before);
      const elsewhere = await call(cast.alice, "POST", "/repos/alice/guarded/contents/x.txt", {
        content: b64("x"),
        new_branch: "side",
      });
      assert.equal(elsewhere.status, 201, "a new branch the rule does not cover takes it");
      const edited = await call(cast.alice, "PATCH", "/repos/alice/guarded/branch_protections/main", {
        enable_push: true,
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const allowed = await call(cast.alice, "POST", "/repos/alice/guarded/contents/x.txt", {
        content: b64("x"),
      });
      assert.equal(allowed.status, 201);
    });

    test("the first file of an empty repository makes its default branch", async () => {
      const made = await call(cast.alice, "POST", "/user/repos", { name: "blank" });
      assert.equal(made.status, 201);
      const empty = await call<Contents[]>(cast.alice, "GET", "/repos/alice/blank/contents");
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body, []);
      const deleted = await call(cast.alice, "DELETE", "/repos/alice/blank/contents/x", {
        sha: "0".repeat(40),
      });
      assert.equal(deleted.status, 404);
      const first = await call<FileAnswer>(cast.alice, "POST", "/repos/alice/blank/contents/first.md", {
        content: b64("# first\n"),
      });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual(first.body.commit.parents, []);
      const repo = await call<{ empty: boolean; default_branch: string }>(
        cast.alice,
        "GET",
        "/repos/alice/blank",
      );
      assert.equal(repo.body.empty, false);
      assert.equal(repo.body.default_branch, "main");
      const dir = await clone("alice", "blank");
      assert.equal(await out(["show", "HEAD:first.md"], dir), "# first\n");
      assert.equal((await out(["rev-parse", "--abbrev-ref", "HEAD"], dir)).trim(), "main");
    });

    test("raw and media stream blobs byte for byte, typed safely, by ref query or {ref}/{path}, with an ETag", async () => {
      const binary = randomBytes(200_000);
      binary[10] = 0;
      const html = "<html><script>alert(1)</script></html>\n";
      const made = await call<FilesAnswer>(cast.alice, "POST", "/repos/alice/files/contents", {
        files: [
          { operation: "create", path: "bin/blob.bin", content: b64(binary) },
          { operation: "create", path: "web/page.html", content: b64(html) },
        ],
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const fetchRaw = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${forge.url}/api/v1/repos/alice/files/${path}`, {
          headers: { authorization: `token ${cast.bob.token}`, ...headers },
        });
      for (const route of ["raw", "media"]) {
        const raw = await fetchRaw(`${route}/bin/blob.bin`);
        assert.equal(raw.status, 200);
        assert.ok(Buffer.from(await raw.arrayBuffer()).equals(binary), `${route} is byte-exact`);
        assert.equal(raw.headers.get("content-type"), "application/octet-stream");
        assert.equal(raw.headers.get("content-length"), String(binary.length));
        assert.equal(raw.headers.get("x-content-type-options"), "nosniff");
        assert.match(raw.headers.get("content-disposition") ?? "", /^attachment; filename="blob.bin"/);
      }
      const page = await fetchRaw("raw/web/page.html");
      assert.equal(page.headers.get("content-type"), "text/plain; charset=utf-8", "never text/html");
      assert.equal(await page.text(), html);
      const etag = page.headers.get("etag") ?? "";
      assert.equal(etag, `"${(made.body.files[1] as Contents).sha}"`);
      assert.equal((await fetchRaw("raw/web/page.html", { "if-none-match": etag })).status, 304);

      const byPrefix = await fetchRaw("raw/main/web/page.html");
      assert.equal(byPrefix.status, 200);
      assert.equal(await byPrefix.text(), html);
      const byBranch = await fetchRaw("raw/feature/multi/multi/new.txt");
      assert.equal(await byBranch.text(), "new\n");
      const byCommit = await fetchRaw(`raw/${made.body.commit.sha}/web/page.html`);
      assert.equal(byCommit.status, 200);
      const byQuery = await fetchRaw("raw/multi/new.txt?ref=feature/multi");
      assert.equal(await byQuery.text(), "new\n");
      for (const path of ["raw/web", "raw/nope.txt", "raw/%2e%2e/README.md", "raw/README.md?ref=nope"])
        assert.equal((await fetchRaw(path)).status, 404, path);
    });

    test("archives stream as zip and tar.gz named {repo}-{ref}, unpacking to the tree; a bad ref is 404", async () => {
      const dir = await clone("alice", "files");
      const listing = (await out(["ls-tree", "-r", "--name-only", "HEAD"], dir)).trim().split("\n").sort();
      for (const [suffix, unpack] of [
        [".tar.gz", (file: string, into: string): [string, string[]] => ["tar", ["-xzf", file, "-C", into]]],
        [".zip", (file: string, into: string): [string, string[]] => ["unzip", ["-q", file, "-d", into]]],
      ] as const) {
        const answer = await fetch(`${forge.url}/api/v1/repos/alice/files/archive/main${suffix}`, {
          headers: { authorization: `token ${cast.bob.token}` },
        });
        assert.equal(answer.status, 200);
        assert.match(
          answer.headers.get("content-disposition") ?? "",
          new RegExp(`filename="files-main${suffix.replace(".", "\\.")}"`),
        );
        const file = join(work.path, `archive${suffix}`);
        await writeFile(file, Buffer.from(await answer.arrayBuffer()));
        const into = join(work.path, `unpacked-${++dirs}`);
        await out(["init", "-q", into], work.path);
        const [command, args] = unpack(file, into);
        const unpacked = await run(command, args, { cwd: work.path });
        assert.equal(unpacked.code, 0, unpacked.stderr);
        const found = (await out(["ls-files", "--others", "files/"], into))
          .trim()
          .split("\n")
          .map((p) => p.slice("files/".length));
        // A symlink is unpacked as a link; ls-files lists it either way.
        assert.deepEqual(found.sort(), listing);
        assert.equal(
          await readFile(join(into, "files", "README.md"), "utf8"),
          await out(["show", "HEAD:README.md"], dir),
        );
      }
      const branchArchive = await fetch(`${forge.url}/api/v1/repos/alice/files/archive/feature/multi.zip`, {
        headers: { authorization: `token ${cast.bob.token}` },
      });
      assert.equal(branchArchive.status, 200);
      assert.match(
        branchArchive.headers.get("content-disposition") ?? "",
        /filename="files-feature-multi\.zip"/,
      );
      await branchArchive.arrayBuffer();
      assert.equal((await call(cast.bob, "GET", "/repos/alice/files/archive/nope.zip")).status, 404);
      assert.equal((await call(cast.bob, "GET", "/repos/alice/files/archive/--output=x.tar.gz")).status, 404);
      assert.equal((await call(cast.bob, "GET", "/repos/alice/files/archive/main.rar")).status, 400);
    });

    test("languages count bytes per extension on the default branch; editorconfig answers a path's definition", async () => {
      await createRepo(cast.alice, "langs");
      const editorconfig =
        "root = true\n[*]\nindent_style = space\nindent_size = 2\n[*.go]\nindent_style = tab\n[{Makefile,*.mk}]\nindent_style = tab\nend_of_line = LF\n";
      const noConfig = await call(cast.alice, "GET", "/repos/alice/langs/editorconfig/a.go");
      assert.equal(noConfig.status, 404);
      const made = await call(cast.alice, "POST", "/repos/alice/langs/contents", {
        files: [
          { operation: "create", path: "main.go", content: b64("package main\n") },
          { operation: "create", path: "web/app.ts", content: b64("export const a = 1;\n") },
          { operation: "create", path: "web/more.ts", content: b64("let b;\n") },
          { operation: "create", path: ".editorconfig", content: b64(editorconfig) },
        ],
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const languages = await call<Record<string, number>>(cast.alice, "GET", "/repos/alice/langs/languages");
      assert.equal(languages.status, 200);
      assert.deepEqual(languages.body, { Go: 13, TypeScript: 27 });
      const go = await call(cast.alice, "GET", "/repos/alice/langs/editorconfig/cmd/main.go");
      assert.deepEqual(go.body, { indent_style: "tab", indent_size: "2" });
      const make = await call(cast.alice, "GET", "/repos/alice/langs/editorconfig/Makefile");
      assert.deepEqual(make.body, { indent_style: "tab", indent_size: "2", end_of_line: "lf" });
      const text = await call(cast.alice, "GET", "/repos/alice/langs/editorconfig/README.md");
      assert.deepEqual(text.body, { indent_style: "space", indent_size: "2" });
      const blank = await call(cast.alice, "POST", "/user/repos", { name: "langs-empty" });
      assert.equal(blank.status, 201);
      assert.deepEqual((await call(cast.alice, "GET", "/repos/alice/langs-empty/languages")).body, {});
    });

    test("/commits?path= shows a pushed commit that touched the path, and only such commits", async () => {
      const dir = await clone("alice", "files");
      await writeFile(join(dir, "pushed.txt"), "pushed\n");
      await out(["add", "pushed.txt"], dir);
      await out(
        ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "touch pushed.txt"],
        dir,
      );
      await out(
        [
          "-c",
          "user.name=t",
          "-c",
          "user.email=t@example.com",
          "commit",
          "-q",
          "--allow-empty",
          "-m",
          "elsewhere",
        ],
        dir,
      );
      await out(["push", "-q", "origin", "main"], dir);
      const touched = (await out(["rev-parse", "HEAD~1"], dir)).trim();
      const commits = await call<Array<{ sha: string }>>(
        cast.bob,
        "GET",
        "/repos/alice/files/commits?path=pushed.txt",
      );
      assert.equal(commits.status, 200);
      assert.deepEqual(
        commits.body.map((commit) => commit.sha),
        [touched],
      );
      // The pushed file is there at once for the contents and raw routes, which read refs afresh.
      assert.equal(
        (await unnormalized(cast.bob, "GET", "/repos/alice/files/raw/pushed.txt")).body,
        "pushed\n",
      );
      const file = await call<Contents>(cast.bob, "GET", "/repos/alice/files/contents/pushed.txt");
      assert.equal(file.body.last_commit_sha, touched);
    });
  },
  { forge: { webhookAllowedHostList: "loopback" } },
);
