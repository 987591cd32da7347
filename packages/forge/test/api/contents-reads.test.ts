import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { api, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { makePerson, type Person } from "../support/people.ts";

// GET /contents keeps what it read by commit, and reads a branch's or tag's tip from the ref files
// itself: every way a ref can move, by the forge or by another process, shows in the next read.

interface Contents {
  path: string;
  sha: string;
  type: string;
  content: string | null;
  last_commit_sha?: string;
  url: string;
}

const b64 = (text: string) => Buffer.from(text).toString("base64");
const text = (answer: { body: Contents }) =>
  Buffer.from(answer.body.content ?? "", "base64").toString("utf8");

forEachForge("forge contents reads: kept answers never outlive a moved ref", (forge) => {
  let alice: Person;
  let work: TempDir;
  let dirs = 0;
  const remote = (repo: string) => `${withCredentials(forge.url, "alice", "password123")}/alice/${repo}.git`;
  const bare = (repo: string) => join(forge.server.dataDir, "repositories", "alice", `${repo}.git`);
  const read = (repo: string, path: string, ref?: string) =>
    api<Contents>(
      forge.url,
      "GET",
      `/repos/alice/${repo}/contents/${path}${ref === undefined ? "" : `?ref=${encodeURIComponent(ref)}`}`,
      { token: alice.token, shape: "ContentsResponse" },
    );
  const out = async (args: string[], dir: string, env: NodeJS.ProcessEnv = {}) => {
    const result = await git(args, dir, env);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout.trim();
  };
  /** Another process changing the repository: git run on the bare repository directly. */
  const direct = (repo: string, args: string[]) => out([`--git-dir=${bare(repo)}`, ...args], work.path);

  async function repoWithClone(name: string): Promise<string> {
    const made = await api(forge.url, "POST", "/user/repos", {
      token: alice.token,
      body: { name, auto_init: true },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const dir = join(work.path, `clone-${++dirs}`);
    await out(["clone", "-q", remote(name), dir], work.path);
    await out(["config", "user.name", "Alice"], dir);
    await out(["config", "user.email", "alice@example.com"], dir);
    return dir;
  }
  async function commitFile(dir: string, path: string, content: string, env: NodeJS.ProcessEnv = {}) {
    await writeFile(join(dir, path), content);
    await out(["add", path], dir);
    await out(["commit", "-q", "-m", `write ${path}: ${content.trim()}`], dir, env);
    return out(["rev-parse", "HEAD"], dir);
  }

  before(async () => {
    work = await tempDir("anvil-forge-contents-reads-");
    alice = await makePerson(forge.url, forge.adminToken, "alice");
  });
  after(() => work?.remove());

  test("a push between two reads shows in the second, by default branch, branch name and full ref", async () => {
    const dir = await repoWithClone("pushed");
    const first = await commitFile(dir, "notes.txt", "one\n");
    await out(["push", "-q", "origin", "main"], dir);
    for (const ref of [undefined, "main", "refs/heads/main"]) {
      const answer = await read("pushed", "notes.txt", ref);
      assert.equal(answer.status, 200);
      assert.equal(text(answer), "one\n");
      assert.equal(answer.body.last_commit_sha, first);
    }
    const second = await commitFile(dir, "notes.txt", "two\n");
    await out(["push", "-q", "origin", "main"], dir);
    for (const ref of [undefined, "main", "refs/heads/main"]) {
      const answer = await read("pushed", "notes.txt", ref);
      assert.equal(text(answer), "two\n", `ref ${ref}`);
      assert.equal(answer.body.last_commit_sha, second);
      assert.equal(answer.body.sha, await out(["rev-parse", "HEAD:notes.txt"], dir));
    }
    // Names the ref files cannot hold, or that lead below a branch's own file, are git's to refuse.
    for (const ref of ["main/x", "../../config", "refs/heads/../main", "main.lock", "refs/heads/"])
      assert.equal((await read("pushed", "notes.txt", ref)).status, 404, ref);
  });

  test("an API commit, a branch made and deleted, a tag: each read follows", async () => {
    const dir = await repoWithClone("api-moves");
    await commitFile(dir, "notes.txt", "one\n");
    await out(["push", "-q", "origin", "main"], dir);
    const before = await read("api-moves", "notes.txt");
    const updated = await api(forge.url, "PUT", "/repos/alice/api-moves/contents/notes.txt", {
      token: alice.token,
      body: { content: b64("by the API\n"), sha: before.body.sha, message: "edit" },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(text(await read("api-moves", "notes.txt")), "by the API\n");

    assert.equal((await read("api-moves", "notes.txt", "topic")).status, 404);
    const branch = await api(forge.url, "POST", "/repos/alice/api-moves/branches", {
      token: alice.token,
      body: { new_branch_name: "topic", old_ref_name: "main" },
    });
    assert.equal(branch.status, 201, JSON.stringify(branch.body));
    assert.equal(text(await read("api-moves", "notes.txt", "topic")), "by the API\n");
    const deleted = await api(forge.url, "DELETE", "/repos/alice/api-moves/branches/topic", {
      token: alice.token,
    });
    assert.equal(deleted.status, 204);
    assert.equal((await read("api-moves", "notes.txt", "topic")).status, 404);

    const tag = await api(forge.url, "POST", "/repos/alice/api-moves/tags", {
      token: alice.token,
      body: { tag_name: "v1", message: "an annotated tag", target: "main" },
    });
    assert.equal(tag.status, 201, JSON.stringify(tag.body));
    const atTag = await read("api-moves", "notes.txt", "v1");
    assert.equal(text(atTag), "by the API\n");
    assert.match(atTag.body.url, /\?ref=v1$/);
  });

  test("refs moved by another process, loose over packed, packed, deleted, and a branch before a tag", async () => {
    const dir = await repoWithClone("packed");
    const first = await commitFile(dir, "notes.txt", "one\n");
    const second = await commitFile(dir, "notes.txt", "two\n");
    await out(["push", "-q", "origin", "main"], dir);
    await direct("packed", ["tag", "-a", "-m", "a tag named like a branch", "side", first]);
    await direct("packed", ["update-ref", "refs/heads/side", second]);
    await direct("packed", ["pack-refs", "--all"]);
    assert.equal(text(await read("packed", "notes.txt")), "two\n");
    // A branch is found before a tag of the same name.
    assert.equal(text(await read("packed", "notes.txt", "side")), "two\n");
    assert.equal(text(await read("packed", "notes.txt", "refs/tags/side")), "one\n");

    // update-ref writes a loose file over the packed ref.
    await direct("packed", ["update-ref", "refs/heads/main", first]);
    assert.equal(text(await read("packed", "notes.txt")), "one\n");
    // pack-refs rewrites packed-refs and removes the loose file.
    await direct("packed", ["pack-refs", "--all"]);
    assert.equal(text(await read("packed", "notes.txt")), "one\n");
    await direct("packed", ["update-ref", "refs/heads/main", second]);
    await direct("packed", ["pack-refs", "--all"]);
    assert.equal(text(await read("packed", "notes.txt")), "two\n");

    // Deleting a packed branch rewrites packed-refs: the name now finds the tag.
    await direct("packed", ["update-ref", "-d", "refs/heads/side"]);
    const atTag = await read("packed", "notes.txt", "side");
    assert.equal(text(atTag), "one\n");
    assert.match(atTag.body.url, /\?ref=side$/);
    await direct("packed", ["tag", "-d", "side"]);
    assert.equal((await read("packed", "notes.txt", "side")).status, 404);
  });

  test("a symbolic ref under refs/heads reads as git resolves it, and follows its target", async () => {
    const dir = await repoWithClone("symbolic");
    await commitFile(dir, "notes.txt", "one\n");
    await out(["push", "-q", "origin", "main"], dir);
    await direct("symbolic", ["symbolic-ref", "refs/heads/alias", "refs/heads/main"]);
    assert.equal(text(await read("symbolic", "notes.txt", "alias")), "one\n");
    await commitFile(dir, "notes.txt", "two\n");
    await out(["push", "-q", "origin", "main"], dir);
    assert.equal(text(await read("symbolic", "notes.txt", "alias")), "two\n");
  });

  test("files read together get the last commit `git log -1 -- path` names, across merges", async () => {
    const dir = await repoWithClone("history");
    let clock = Date.UTC(2024, 0, 1) / 1000;
    const at = () => {
      clock += 60;
      return { GIT_AUTHOR_DATE: `${clock} +0000`, GIT_COMMITTER_DATE: `${clock} +0000` };
    };
    await out(["checkout", "-q", "-b", "base"], dir);
    for (const path of ["a.txt", "b.txt", "c.txt"])
      await commitFile(dir, path, `${path} at the start\n`, at());
    await out(["checkout", "-q", "-b", "feature"], dir);
    await commitFile(dir, "a.txt", "a.txt on the feature\n", at());
    await out(["checkout", "-q", "base"], dir);
    await commitFile(dir, "b.txt", "b.txt on the base\n", at());
    // A later change of a.txt on the base that the merge drops for the feature's.
    await commitFile(dir, "a.txt", "a.txt on the base\n", at());
    await out(["merge", "-q", "--no-ff", "-X", "theirs", "-m", "merge the feature", "feature"], dir, at());
    await commitFile(dir, "d.txt", "d.txt after the merge\n", at());
    await out(["push", "-q", "origin", "base"], dir);
    const paths = ["README.md", "a.txt", "b.txt", "c.txt", "d.txt"];
    const answers = await Promise.all(paths.map((path) => read("history", path, "base")));
    for (const [i, path] of paths.entries()) {
      assert.equal(answers[i].status, 200, path);
      assert.equal(
        answers[i].body.last_commit_sha,
        await out(["log", "-1", "--format=%H", "base", "--", path], dir),
        path,
      );
    }
  });

  test("many files of one commit missed at once each get their own bytes and last commit", async () => {
    const dir = await repoWithClone("many");
    await mkdir(join(dir, "sub"));
    const paths = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? `file-${i}.txt` : `sub/file-${i}.txt`));
    // Four commits, each writing every fourth file, then one more changing some of them again.
    for (let k = 0; k < 4; k++) {
      for (const [i, path] of paths.entries())
        if (i % 4 === k) await writeFile(join(dir, path), `${path} ${k}\n`);
      await out(["add", "."], dir);
      await out(["commit", "-q", "-m", `part ${k}`], dir);
    }
    for (const path of paths.slice(0, 5)) await writeFile(join(dir, path), `${path} again\n`);
    await out(["commit", "-q", "-am", "again"], dir);
    await out(["push", "-q", "origin", "main"], dir);
    const answers = await Promise.all(paths.map((path) => read("many", path)));
    for (const [i, path] of paths.entries()) {
      assert.equal(answers[i].status, 200, path);
      assert.equal(answers[i].body.path, path);
      assert.equal(text(answers[i]), await readFile(join(dir, path), "utf8"));
      assert.equal(
        answers[i].body.last_commit_sha,
        await out(["log", "-1", "--format=%H", "--", path], dir),
        path,
      );
    }
  });
});
