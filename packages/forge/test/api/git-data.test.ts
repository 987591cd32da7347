// The Git data API (/git/refs, /git/trees, /git/blobs, /git/tags, /git/notes) on real pushes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";
import { type Clone, cloneNewRepository } from "../support/history.ts";
import { makePerson, type Person } from "../support/people.ts";

interface Reference {
  ref: string;
  url: string;
  object: { type: string; sha: string; url: string };
}
interface Tree {
  sha: string;
  tree: { path: string; type: string; mode: string; size: number; sha: string; url: string }[] | null;
  truncated: boolean;
  page: number;
  total_count: number;
}

const FILES = 3000;

forEachForge("the Git data API", (forge) => {
  let owner: Person;
  let stranger: Person;
  let clone: Clone;
  let head: string;
  let tagObject: string;
  let big: string;
  const base = "/repos/gina/data";

  before(async () => {
    owner = await makePerson(forge.url, forge.adminToken, "gina");
    stranger = await makePerson(forge.url, forge.adminToken, "stan");
    clone = await cloneNewRepository(forge.url, owner, "data");
    head = await clone.commit("add code", {
      "src/main.ts": "console.log(1);\n",
      "bin.dat": "\u0000\u0001\u0002",
    });
    await clone.git("tag", "-a", "v1.0", "-m", "release one");
    await clone.git("tag", "light");
    tagObject = await clone.git("rev-parse", "v1.0");
    await clone.git("notes", "add", "-m", "reviewed by gina", "HEAD");
    big = clone.importFiles("big", FILES);
    await clone.git("push", "-q", "origin", "main", "big", "v1.0", "light", "refs/notes/*");
  });
  after(() => clone.remove());

  test("refs: every ref, one object for an exact name, a list for a prefix, 404 for none", async () => {
    const all = await api<Reference[]>(forge.url, "GET", `${base}/git/refs`, { shape: "Reference[]" });
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.map((ref) => ref.ref),
      ["refs/heads/big", "refs/heads/main", "refs/notes/commits", "refs/tags/light", "refs/tags/v1.0"],
    );
    const main = await api<Reference>(forge.url, "GET", `${base}/git/refs/heads/main`, {
      shape: "Reference",
    });
    assert.equal(main.status, 200);
    assert.deepEqual(main.body, {
      ref: "refs/heads/main",
      url: "http://forge.test/api/v1/repos/gina/data/git/refs/heads/main",
      object: {
        type: "commit",
        sha: head,
        url: `http://forge.test/api/v1/repos/gina/data/git/commits/${head}`,
      },
    });
    const tag = await api<Reference>(forge.url, "GET", `${base}/git/refs/tags/v1.0`, { shape: "Reference" });
    assert.deepEqual(tag.body.object, {
      type: "tag",
      sha: tagObject,
      url: `http://forge.test/api/v1/repos/gina/data/git/tags/${tagObject}`,
    });
    // A prefix is matched as text, and answers a list even when one ref starts with it.
    const heads = await api<Reference[]>(forge.url, "GET", `${base}/git/refs/heads`, {
      shape: "Reference[]",
    });
    assert.deepEqual(
      heads.body.map((ref) => ref.ref),
      ["refs/heads/big", "refs/heads/main"],
    );
    const partial = await api<Reference[]>(forge.url, "GET", `${base}/git/refs/heads/ma`);
    assert.ok(Array.isArray(partial.body));
    assert.deepEqual(
      partial.body.map((ref) => ref.ref),
      ["refs/heads/main"],
    );
    for (const missing of ["heads/nope", "heads/main..big", "-x", "heads/%00", "heads/*"])
      assert.equal((await api(forge.url, "GET", `${base}/git/refs/${missing}`)).status, 404, missing);
  });

  test("trees: a page of a tree of thousands of files, truncated until the last", async () => {
    const root = await api<Tree>(forge.url, "GET", `${base}/git/trees/${big}`, { shape: "GitTreeResponse" });
    assert.equal(root.status, 200);
    assert.equal(root.body.total_count, 10);
    assert.equal(root.body.truncated, false);
    const d0 = root.body.tree?.[0];
    assert.deepEqual(d0 && { ...d0, sha: "" }, {
      path: "d0",
      type: "tree",
      mode: "040000",
      size: 0,
      sha: "",
      url: `http://forge.test/api/v1/repos/gina/data/git/trees/${d0?.sha}`,
    });
    const entries = FILES + 10;
    const first = await api<Tree>(forge.url, "GET", `${base}/git/trees/big?recursive=1&per_page=1000`, {
      shape: "GitTreeResponse",
    });
    assert.equal(first.body.tree?.length, 1000);
    assert.equal(first.body.truncated, true);
    assert.equal(first.body.total_count, entries);
    assert.equal(first.body.page, 1);
    assert.equal(first.body.tree?.[0].path, "d0");
    assert.equal(first.body.tree?.[1].path, "d0/f00000.txt");
    assert.equal(first.body.tree?.[1].size, "file 0\n".length);
    assert.equal(
      first.body.tree?.[1].url,
      `http://forge.test/api/v1/repos/gina/data/git/blobs/${first.body.tree?.[1].sha}`,
    );
    const last = await api<Tree>(
      forge.url,
      "GET",
      `${base}/git/trees/big?recursive=true&per_page=1000&page=4`,
    );
    assert.equal(last.body.tree?.length, entries - 3000);
    assert.equal(last.body.truncated, false);
    assert.equal(last.body.tree?.at(-1)?.path, `d9/f0${FILES - 1}.txt`);
    const beyond = await api<Tree>(forge.url, "GET", `${base}/git/trees/big?recursive=1&page=99`);
    assert.equal(beyond.body.tree, null);
    assert.equal(beyond.body.total_count, entries);
    // Gitea's largest page is 1000, whatever is asked.
    const capped = await api<Tree>(forge.url, "GET", `${base}/git/trees/big?recursive=1&per_page=5000`);
    assert.equal(capped.body.tree?.length, 1000);
    const small = await api<Tree>(forge.url, "GET", `${base}/git/trees/main?per_page=2`);
    assert.deepEqual(
      small.body.tree?.map((entry) => entry.path),
      ["README.md", "bin.dat"],
    );
    assert.equal(small.body.truncated, true);
    const rest = await api<Tree>(forge.url, "GET", `${base}/git/trees/main?per_page=2&page=2`);
    assert.deepEqual(
      rest.body.tree?.map((entry) => entry.path),
      ["src"],
    );
    assert.equal(rest.body.truncated, false);
    for (const bad of ["-p", "main..big", "0000000000000000000000000000000000000000"]) {
      const answer = await api<{ message: string }>(forge.url, "GET", `${base}/git/trees/${bad}`);
      assert.equal(answer.status, 400, bad);
    }
    // A NUL never reaches a handler: the router refuses the path.
    assert.equal((await api(forge.url, "GET", `${base}/git/trees/main%00`)).status, 404);
  });

  test("blobs: the content in base64 with its size; 400 for anything but a blob", async () => {
    const tree = await api<Tree>(forge.url, "GET", `${base}/git/trees/main?recursive=1`);
    const binary = tree.body.tree?.find((entry) => entry.path === "bin.dat");
    assert.ok(binary);
    const blob = await api<{ content: string; encoding: string; size: number; sha: string; url: string }>(
      forge.url,
      "GET",
      `${base}/git/blobs/${binary.sha}`,
      { shape: "GitBlobResponse" },
    );
    assert.equal(blob.status, 200);
    assert.deepEqual(Buffer.from(blob.body.content, "base64"), Buffer.from([0, 1, 2]));
    assert.equal(blob.body.encoding, "base64");
    assert.equal(blob.body.size, 3);
    assert.equal(blob.body.url, `http://forge.test/api/v1/repos/gina/data/git/blobs/${binary.sha}`);
    assert.equal((await api(forge.url, "GET", `${base}/git/blobs/${head}`)).status, 400);
    assert.equal((await api(forge.url, "GET", `${base}/git/blobs/--output=x`)).status, 400);
    assert.equal((await api(forge.url, "GET", `${base}/git/blobs/deadbeef`)).status, 400);
  });

  test("blobs: one over Gitea's 10 MiB is answered with its size and without its content", async () => {
    const size = 10 * 1024 * 1024 + 1;
    await clone.git("checkout", "-q", "-b", "large", "main");
    await clone.commit("large", { "large.bin": "x".repeat(size) });
    await clone.git("push", "-q", "origin", "large");
    const sha = await clone.git("rev-parse", "large:large.bin");
    await clone.git("checkout", "-q", "main");
    const blob = await api<{ content: string | null; size: number; sha: string }>(
      forge.url,
      "GET",
      `${base}/git/blobs/${sha}`,
    );
    assert.equal(blob.status, 200);
    assert.deepEqual(blob.body, {
      content: null,
      encoding: null,
      url: `http://forge.test/api/v1/repos/gina/data/git/blobs/${sha}`,
      sha,
      size,
    });
  });

  test("tags: an annotated tag with its tagger and the commit it tags", async () => {
    const tag = await api<{
      tag: string;
      sha: string;
      message: string;
      tagger: { name: string; email: string; date: string };
      object: { type: string; sha: string; url: string };
      url: string;
    }>(forge.url, "GET", `${base}/git/tags/${tagObject}`, { shape: "AnnotatedTag" });
    assert.equal(tag.status, 200);
    assert.equal(tag.body.tag, "v1.0");
    assert.equal(tag.body.sha, tagObject);
    assert.equal(tag.body.message, "release one\n");
    assert.equal(tag.body.tagger.name, "Alice");
    assert.equal(tag.body.tagger.email, "alice@example.com");
    assert.match(tag.body.tagger.date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    assert.deepEqual(tag.body.object, {
      type: "commit",
      sha: head,
      url: `http://forge.test/api/v1/repos/gina/data/git/commits/${head}`,
    });
    // A lightweight tag is no tag object.
    assert.equal((await api(forge.url, "GET", `${base}/git/tags/${head}`)).status, 400);
    assert.equal((await api(forge.url, "GET", `${base}/git/tags/v1..main`)).status, 400);
  });

  test("notes: the note on a commit and the notes commit that wrote it", async () => {
    const notesCommit = await clone.git("rev-parse", "refs/notes/commits");
    const note = await api<{ message: string; commit: { sha: string; stats?: unknown } }>(
      forge.url,
      "GET",
      `${base}/git/notes/${head}`,
      { shape: "Note" },
    );
    assert.equal(note.status, 200);
    assert.equal(note.body.message, "reviewed by gina\n");
    assert.equal(note.body.commit.sha, notesCommit);
    const byBranch = await api<{ message: string }>(forge.url, "GET", `${base}/git/notes/main?files=false`);
    assert.equal(byBranch.body.message, "reviewed by gina\n");
    assert.equal((await api(forge.url, "GET", `${base}/git/notes/${big}`)).status, 404);
    assert.equal((await api(forge.url, "GET", `${base}/git/notes/a..b`)).status, 422);
  });

  test("a private repository's git data is hidden from strangers and anonymous callers", async () => {
    const secret = await cloneNewRepository(forge.url, owner, "secret", { private: true });
    try {
      const sha = await secret.git("rev-parse", "HEAD");
      const tree = await secret.git("rev-parse", "HEAD^{tree}");
      for (const path of [
        "/git/refs",
        "/git/refs/heads/main",
        `/git/trees/${tree}`,
        `/git/blobs/${tree}`,
        `/git/tags/${sha}`,
        `/git/notes/${sha}`,
      ]) {
        assert.equal((await api(forge.url, "GET", `/repos/gina/secret${path}`)).status, 404, path);
        const seen = await api(forge.url, "GET", `/repos/gina/secret${path}`, { token: stranger.token });
        assert.equal(seen.status, 404, path);
      }
      assert.equal(
        (await api(forge.url, "GET", "/repos/gina/secret/git/refs", { token: owner.token })).status,
        200,
      );
    } finally {
      await secret.remove();
    }
  });
});
