import assert from "node:assert/strict";
import { access, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Conflict, Invalid, NotFound } from "@anvil/core";
import { type TempDir, tempDir } from "@anvil/core/testing";
import {
  autoInit,
  defaultBranch,
  discardRepository,
  EmptyRepository,
  initRepository,
  isEmpty,
  listBranches,
  listCommits,
  renameOwner,
  renameRepository,
  repositoryExists,
  repositoryPath,
  runGit,
  setDefaultBranch,
} from "../../src/git/index.ts";

const AUTHOR = { name: "Alice Tester", email: "alice@example.com", date: new Date("2024-02-03T04:05:06Z") };
const COMMITTER = { name: "Forge Bot", email: "bot@example.com", date: new Date("2024-02-03T04:05:07Z") };

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe("repository storage", { timeout: 60_000 }, () => {
  let dir: TempDir;
  let root: string;
  before(async () => {
    dir = await tempDir("anvil-git-storage-");
    root = join(dir.path, "repositories");
  });
  after(() => dir.remove());

  async function created(owner: string, name: string, branch = "main"): Promise<string> {
    const path = repositoryPath(root, owner, name);
    await initRepository(path, { defaultBranch: branch });
    return path;
  }

  test("init makes an empty bare repository whose HEAD names the default branch", async () => {
    const path = await created("Alice", "Init", "trunk");
    assert.equal(path, join(root, "alice", "init.git"));
    assert.equal(await readFile(join(path, "HEAD"), "utf8"), "ref: refs/heads/trunk\n");
    assert.equal(await defaultBranch(path), "trunk");
    assert.equal((await runGit([`--git-dir=${path}`, "rev-parse", "--is-bare-repository"])).stdout, "true\n");
    const config = await runGit([`--git-dir=${path}`, "config", "--get", "receive.denyNonFastForwards"]);
    assert.equal(config.stdout, "false\n");
    assert.equal(await repositoryExists(path), true);
    assert.equal(await isEmpty(path), true);
    assert.deepEqual(await listBranches(path, { page: 1, limit: 10 }), { branches: [], total: 0 });
  });

  test("init refuses a place that is taken and a bad branch name, leaving nothing behind", async () => {
    const path = await created("alice", "taken");
    await assert.rejects(initRepository(path, { defaultBranch: "main" }), Conflict);
    for (const branch of ["-x", "a..b", "with space", "", "trailing/"]) {
      const other = repositoryPath(root, "alice", "bad-branch");
      await assert.rejects(initRepository(other, { defaultBranch: branch }), Invalid, branch);
      assert.equal(await exists(other), false);
    }
  });

  test("commits of an empty repository are reported as such (Gitea's 409)", async () => {
    const path = await created("alice", "empty");
    await assert.rejects(listCommits(path, { page: 1, limit: 10 }), (error: unknown) => {
      assert.ok(error instanceof EmptyRepository);
      assert.ok(error instanceof Conflict);
      assert.equal(error.message, "Git Repository is empty.");
      return true;
    });
  });

  test("autoInit commits a README.md without a work tree, with the given author and committer", async () => {
    const path = await created("alice", "demo");
    const id = await autoInit(path, {
      name: "demo",
      description: "A demo repository",
      author: AUTHOR,
      committer: COMMITTER,
    });
    assert.equal(await exists(join(path, "index")), false);
    assert.equal(await isEmpty(path), false);
    const tree = await runGit([`--git-dir=${path}`, "ls-tree", "--name-only", id]);
    assert.equal(tree.stdout, "README.md\n");
    const readme = await runGit([`--git-dir=${path}`, "cat-file", "blob", `${id}:README.md`]);
    assert.equal(readme.stdout, "# demo\n\nA demo repository\n");

    const { commits, total } = await listCommits(path, { page: 1, limit: 10 });
    assert.equal(total, 1);
    assert.deepEqual(commits, [
      {
        id,
        tree: (await runGit([`--git-dir=${path}`, "rev-parse", `${id}^{tree}`])).stdout.trim(),
        parents: [],
        message: "Initial commit\n",
        author: { name: AUTHOR.name, email: AUTHOR.email, date: "2024-02-03T04:05:06+00:00" },
        committer: { name: COMMITTER.name, email: COMMITTER.email, date: "2024-02-03T04:05:07+00:00" },
      },
    ]);
    const { branches } = await listBranches(path, { page: 1, limit: 10 });
    assert.deepEqual(
      branches.map((branch) => [branch.name, branch.commit.id]),
      [["main", id]],
    );
  });

  test("autoInit refuses a repository that already has commits, and unsafe identities", async () => {
    const path = await created("alice", "twice");
    await autoInit(path, { name: "twice", description: "", author: AUTHOR });
    await assert.rejects(autoInit(path, { name: "twice", description: "", author: AUTHOR }), Conflict);
    const other = await created("alice", "ident");
    await assert.rejects(
      autoInit(other, { name: "x", description: "", author: { ...AUTHOR, email: "a>b@example.com" } }),
      Invalid,
    );
    await assert.rejects(
      autoInit(other, { name: "x", description: "", author: { ...AUTHOR, date: new Date(Number.NaN) } }),
      Invalid,
    );
    assert.equal(await isEmpty(other), true);
  });

  test("setDefaultBranch points HEAD elsewhere", async () => {
    const path = await created("alice", "head");
    await setDefaultBranch(path, "develop");
    assert.equal(await defaultBranch(path), "develop");
    await assert.rejects(setDefaultBranch(path, "-f"), Invalid);
  });

  test("renameRepository moves the directory to another name and owner", async () => {
    const path = await created("carol", "before");
    await autoInit(path, { name: "before", description: "", author: AUTHOR });
    await renameRepository(root, { owner: "carol", name: "before" }, { owner: "Dave", name: "After" });
    assert.equal(await exists(path), false);
    const moved = join(root, "dave", "after.git");
    assert.equal((await stat(moved)).isDirectory(), true);
    assert.equal((await listCommits(moved, { page: 1, limit: 1 })).total, 1);
    // Only the case differs: the same directory.
    await renameRepository(root, { owner: "dave", name: "after" }, { owner: "DAVE", name: "AFTER" });
    assert.equal(await repositoryExists(moved), true);
  });

  test("renameRepository refuses an occupied target and a missing source", async () => {
    await created("erin", "one");
    await created("erin", "two");
    await assert.rejects(
      renameRepository(root, { owner: "erin", name: "one" }, { owner: "erin", name: "two" }),
      Conflict,
    );
    assert.equal(await repositoryExists(repositoryPath(root, "erin", "one")), true);
    await assert.rejects(
      renameRepository(root, { owner: "erin", name: "none" }, { owner: "erin", name: "three" }),
      NotFound,
    );
    await assert.rejects(
      renameRepository(root, { owner: "erin", name: "one" }, { owner: "erin", name: "../one" }),
      Invalid,
    );
  });

  test("renameOwner moves every repository of the owner", async () => {
    await created("frank", "a");
    await created("frank", "b");
    await renameOwner(root, "Frank", "Grace");
    assert.equal(await exists(join(root, "frank")), false);
    assert.equal(await repositoryExists(join(root, "grace", "a.git")), true);
    assert.equal(await repositoryExists(join(root, "grace", "b.git")), true);
    await renameOwner(root, "nobody", "somebody");
    assert.equal(await exists(join(root, "somebody")), false);
    await created("heidi", "c");
    await assert.rejects(renameOwner(root, "grace", "heidi"), Conflict);
  });

  test("discardRepository removes the directory by way of the trash, and again is no error", async () => {
    const path = await created("ivan", "gone");
    await discardRepository(root, path);
    assert.equal(await exists(path), false);
    assert.deepEqual(await readdir(join(root, ".trash")), []);
    await discardRepository(root, path);
    assert.throws(() => repositoryPath(root, "..", "gone"), Invalid);
  });
});
