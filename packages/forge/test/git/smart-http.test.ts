import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readdir, readFile } from "node:fs/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { NotFound } from "@anvil/core";
import { type TempDir, tempDir } from "@anvil/core/testing";
import {
  autoInit,
  FLUSH_PACKET,
  getBranch,
  initRepository,
  listBranches,
  listCommits,
  pktLine,
  renameRepository,
  repositoryPath,
  runGit,
} from "../../src/git/index.ts";
import { ALICE, commitFile, git, importCommits, packObjects, tryGit } from "./support/client.ts";
import { processesIn, waitFor } from "./support/processes.ts";
import { type GitServer, startGitServer } from "./support/server.ts";

const FOUNDER = {
  name: "Forge Founder",
  email: "founder@example.com",
  date: new Date("2024-01-02T03:04:05Z"),
};

interface Seeded {
  path: string;
  url: string;
  initial: string;
}

describe("smart HTTP with the real git client", { timeout: 180_000 }, () => {
  let dir: TempDir;
  let root: string;
  let server: GitServer;
  let workTrees = 0;

  before(async () => {
    dir = await tempDir("anvil-git-http-");
    root = join(dir.path, "repositories");
    server = await startGitServer(root);
  });
  after(async () => {
    await server.close();
    await dir.remove();
  });
  // Whatever a test does to the server, nothing may end as a server error.
  afterEach(() => {
    assert.deepEqual(server.errors.splice(0), []);
  });

  async function seeded(owner: string, name: string): Promise<Seeded> {
    const path = repositoryPath(root, owner, name);
    await initRepository(path, { defaultBranch: "main" });
    const initial = await autoInit(path, { name, description: `About ${name}`, author: FOUNDER });
    return { path, url: `${server.url}/${owner}/${name}.git`, initial };
  }

  async function clone(url: string): Promise<string> {
    const target = join(dir.path, `work-${++workTrees}`);
    await git(dir.path, ["clone", "--quiet", url, target]);
    return target;
  }

  async function refs(path: string): Promise<string> {
    return (await runGit([`--git-dir=${path}`, "for-each-ref", "--format=%(objectname) %(refname)"])).stdout;
  }

  /** receive-pack's quarantine directories, where a push's objects wait until it is accepted. */
  async function incomingObjects(path: string): Promise<string[]> {
    return (await readdir(join(path, "objects"))).filter((entry) => entry.includes("incoming"));
  }

  async function head(workTree: string, rev = "HEAD"): Promise<string> {
    return (await git(workTree, ["rev-parse", rev])).trim();
  }

  test("a clone of an auto-initialised repository has the README and the founder's commit", async () => {
    const { initial } = await seeded("alice", "demo");
    for (const url of [`${server.url}/alice/demo.git`, `${server.url}/Alice/Demo`]) {
      const work = await clone(url);
      assert.equal(await readFile(join(work, "README.md"), "utf8"), "# demo\n\nAbout demo\n");
      assert.equal(await head(work), initial);
      const log = await git(work, ["log", "-1", "--format=%an <%ae>%n%cn <%ce>%n%aI%n%s"]);
      assert.equal(
        log,
        "Forge Founder <founder@example.com>\nForge Founder <founder@example.com>\n2024-01-02T03:04:05+00:00\nInitial commit\n",
      );
      assert.equal((await git(work, ["branch", "--show-current"])).trim(), "main");
    }
  });

  test("clones speak protocol v2 when the client asks for it, and v0 otherwise", async () => {
    const { initial } = await seeded("alice", "protocols");
    const trace = { GIT_TRACE_PACKET: "1" };
    const v2 = join(dir.path, "protocol-v2");
    const cloneV2 = await tryGit(
      dir.path,
      ["-c", "protocol.version=2", "clone", `${server.url}/alice/protocols`, v2],
      {
        env: trace,
      },
    );
    assert.equal(cloneV2.code, 0, cloneV2.stderr);
    assert.match(cloneV2.stderr, /clone< version 2\n/);
    assert.match(cloneV2.stderr, /clone> command=fetch\n/);
    assert.equal(await head(v2), initial);

    const v0 = join(dir.path, "protocol-v0");
    const cloneV0 = await tryGit(
      dir.path,
      ["-c", "protocol.version=0", "clone", `${server.url}/alice/protocols`, v0],
      {
        env: trace,
      },
    );
    assert.equal(cloneV0.code, 0, cloneV0.stderr);
    assert.doesNotMatch(cloneV0.stderr, /version 2/);
    assert.match(cloneV0.stderr, /git< # service=git-upload-pack\n/);
    assert.equal(await head(v0), initial);
  });

  test("pushed branches and commits are what the read functions list", async () => {
    const { path, url, initial } = await seeded("alice", "project");
    const work = await clone(url);
    const dated = {
      GIT_AUTHOR_DATE: "2024-03-01T10:00:00+01:00",
      GIT_COMMITTER_DATE: "2024-03-01T11:30:00+01:00",
    };
    await git(work, ["checkout", "--quiet", "-b", "feature"]);
    const guide = await commitFile(
      work,
      "docs/guide.md",
      "# Guide\n",
      "Add the guide\n\nWith a body.",
      dated,
    );
    const main = await commitFile(work, "src/main.txt", "main\n", "Add main", dated);
    await git(work, ["push", "--quiet", "-u", "origin", "feature"]);
    await git(work, ["checkout", "--quiet", "main"]);
    const readme = await commitFile(work, "README.md", "# project\n\nBetter.\n", "Improve the README", dated);
    await git(work, ["push", "--quiet", "origin", "main"]);

    const all = await listBranches(path, { page: 1, limit: 10 });
    assert.equal(all.total, 2);
    assert.deepEqual(
      all.branches.map((branch) => branch.name),
      ["feature", "main"],
    );
    const [feature, mainBranch] = all.branches;
    assert.deepEqual(feature.commit, {
      id: main,
      tree: await head(work, `${main}^{tree}`),
      parents: [guide],
      message: "Add main\n",
      author: { name: ALICE.name, email: ALICE.email, date: "2024-03-01T10:00:00+01:00" },
      committer: { name: ALICE.name, email: ALICE.email, date: "2024-03-01T11:30:00+01:00" },
    });
    assert.equal(mainBranch.commit.id, readme);
    assert.deepEqual(await listBranches(path, { page: 2, limit: 1 }), { branches: [mainBranch], total: 2 });
    assert.deepEqual(await getBranch(path, "feature"), feature);
    for (const missing of ["feat", "featur*", "feature/x", "-", ""]) {
      assert.equal(await getBranch(path, missing), undefined, missing);
    }

    const history = await listCommits(path, { ref: "feature", page: 1, limit: 10 });
    assert.equal(history.total, 3);
    assert.deepEqual(
      history.commits.map((commit) => commit.id),
      [main, guide, initial],
    );
    assert.equal(history.commits[1].message, "Add the guide\n\nWith a body.\n");
    assert.equal(history.commits[2].author.name, FOUNDER.name);
    const onHead = await listCommits(path, { page: 1, limit: 10 });
    assert.deepEqual(
      onHead.commits.map((commit) => commit.id),
      [readme, initial],
    );
    const touching = await listCommits(path, { ref: "feature", path: "docs/guide.md", page: 1, limit: 10 });
    assert.deepEqual(
      touching.commits.map((commit) => commit.id),
      [guide],
    );
    assert.equal(touching.total, 1);
    const secondPage = await listCommits(path, { ref: "feature", page: 2, limit: 2 });
    assert.deepEqual(
      secondPage.commits.map((commit) => commit.id),
      [initial],
    );
    assert.equal(secondPage.total, 3);
    const fromId = await listCommits(path, { ref: guide, page: 1, limit: 10 });
    assert.deepEqual(
      fromId.commits.map((commit) => commit.id),
      [guide, initial],
    );
    for (const ref of ["nothing", "--all", "-n1"]) {
      await assert.rejects(listCommits(path, { ref, page: 1, limit: 10 }), NotFound, ref);
    }
  });

  test("a fetch after a push brings the new commits, with gzip-compressed negotiation", async () => {
    const { url, initial } = await seeded("alice", "shared");
    const reader = await clone(url);
    const writer = await clone(url);
    // Unpushed history makes the reader's next fetch list many haves, which git sends gzipped.
    await importCommits(reader, "local", initial, 80);
    for (const version of ["0", "2"]) {
      const pushed = await commitFile(writer, "news.txt", `news for v${version}\n`, `News for v${version}`);
      await git(writer, ["push", "--quiet", "origin", "main"]);
      const seen = server.exchanges.length;
      await git(reader, ["-c", `protocol.version=${version}`, "fetch", "--quiet", "origin"]);
      assert.equal(await head(reader, "origin/main"), pushed);
      const gzipped = server.exchanges
        .slice(seen)
        .filter((exchange) => exchange.method === "POST" && exchange.contentEncoding === "gzip");
      assert.ok(gzipped.length > 0, `protocol v${version}: no gzip-compressed request`);
      assert.ok(gzipped.every((exchange) => exchange.status === 200));
    }
  });

  test("a repository of a few hundred commits clones completely", async () => {
    const { path, url, initial } = await seeded("alice", "long");
    const work = await clone(url);
    await importCommits(work, "main", initial, 300);
    await git(work, ["push", "--quiet", "origin", "main"]);
    const copy = await clone(url);
    assert.equal((await git(copy, ["rev-list", "--count", "HEAD"])).trim(), "301");
    assert.equal(await head(copy), await head(work, "main"));
    await git(copy, ["fsck", "--strict", "--no-dangling"]);
    assert.equal(await readFile(join(copy, "counter.txt"), "utf8"), "line 300\n");

    const page = await listCommits(path, { page: 3, limit: 50 });
    assert.equal(page.total, 301);
    const expected = (await git(work, ["rev-list", "--skip=100", "--max-count=50", "main"]))
      .trim()
      .split("\n");
    assert.deepEqual(
      page.commits.map((commit) => commit.id),
      expected,
    );
  });

  test("a refused push leaves every ref as it was; a forced one goes through", async () => {
    const { path, url } = await seeded("alice", "guarded");
    const work = await clone(url);
    await commitFile(work, "a.txt", "a\n", "First");
    await git(work, ["push", "--quiet", "origin", "main"]);
    await git(work, ["reset", "--quiet", "--hard", "HEAD~1"]);
    const diverged = await commitFile(work, "b.txt", "b\n", "Diverge");
    const before = await refs(path);

    const plain = await tryGit(work, ["push", "origin", "main"]);
    assert.notEqual(plain.code, 0);
    assert.match(plain.stderr, /\[rejected\] +main -> main \(non-fast-forward\)/);
    assert.equal(await refs(path), before);

    await git(work, ["push", "--quiet", "--force", "origin", "main"]);
    assert.match(await refs(path), new RegExp(`^${diverged} refs/heads/main$`, "m"));

    // Refused by receive-pack itself this time: an atomic push of two refs changes neither.
    await runGit([`--git-dir=${path}`, "config", "receive.denyNonFastForwards", "true"]);
    await git(work, ["reset", "--quiet", "--hard", "HEAD~1"]);
    await commitFile(work, "c.txt", "c\n", "Diverge again");
    await git(work, ["branch", "topic"]);
    const guarded = await refs(path);
    const atomic = await tryGit(work, ["push", "--atomic", "--force", "origin", "main", "topic"]);
    assert.notEqual(atomic.code, 0);
    assert.match(atomic.stderr, /non-fast-forward/);
    assert.equal(await refs(path), guarded);
  });

  test("after a rename the repository clones under its new name only", async () => {
    const { initial } = await seeded("judy", "old-name");
    await renameRepository(root, { owner: "judy", name: "old-name" }, { owner: "Kim", name: "New-Name" });
    const work = await clone(`${server.url}/kim/new-name.git`);
    assert.equal(await head(work), initial);
    assert.equal(await readFile(join(work, "README.md"), "utf8"), "# old-name\n\nAbout old-name\n");
    const old = await tryGit(dir.path, [
      "clone",
      `${server.url}/judy/old-name.git`,
      join(dir.path, "old-clone"),
    ]);
    assert.notEqual(old.code, 0);
    assert.match(old.stderr, /not found|404/);
  });

  test("the advertisement has git's headers; other services, bodies and repositories are refused", async () => {
    await seeded("alice", "answers");
    const base = `${server.url}/alice/answers.git`;
    const advertised = await fetch(`${base}/info/refs?service=git-upload-pack`);
    assert.equal(advertised.status, 200);
    assert.equal(advertised.headers.get("content-type"), "application/x-git-upload-pack-advertisement");
    assert.equal(advertised.headers.get("cache-control"), "no-cache, max-age=0, must-revalidate");
    assert.match(
      await advertised.text(),
      /^001e# service=git-upload-pack\n0000[0-9a-f]{4}[0-9a-f]{40} HEAD\0/,
    );

    for (const query of ["?service=git-upload-archive", "?service=", ""]) {
      const refused = await fetch(`${base}/info/refs${query}`);
      assert.equal(refused.status, 403, query);
      assert.deepEqual(await refused.json(), {
        message: "Unsupported service",
        url: `${server.url}/api/swagger`,
      });
    }
    const missing = await fetch(`${server.url}/alice/none.git/info/refs?service=git-upload-pack`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();

    const post = (headers: Record<string, string>, body: string | Buffer) =>
      fetch(`${base}/git-upload-pack`, { method: "POST", headers, body });
    const wrongType = await post({ "content-type": "application/json" }, "{}");
    assert.equal(wrongType.status, 415);
    await wrongType.body?.cancel();
    const type = { "content-type": "application/x-git-upload-pack-request" };
    const brotli = await post({ ...type, "content-encoding": "br" }, "0000");
    assert.equal(brotli.status, 415);
    await brotli.body?.cancel();
    const notGzip = await post({ ...type, "content-encoding": "gzip" }, "this is not gzip");
    assert.equal(notGzip.status, 400);
    assert.match(((await notGzip.json()) as { message: string }).message, /not valid gzip/);
  });

  test("a push over the request limit is refused with 413 and changes nothing", async () => {
    const { path, url } = await seeded("alice", "limited");
    const limited = await startGitServer(root, { maxRequestBytes: 256 * 1024 });
    try {
      const work = await clone(url);
      await git(work, ["remote", "set-url", "origin", `${limited.url}/alice/limited.git`]);
      const before = await refs(path);
      await commitFile(work, "small.txt", "small\n", "Small");
      await git(work, ["push", "--quiet", "origin", "main"]);
      const accepted = await refs(path);
      assert.notEqual(accepted, before);
      // Above http.postBuffer, git streams the body without a length: the limit applies midway.
      await commitFile(work, "big.bin", randomBytes(2 * 1024 * 1024), "Too big");
      const push = await tryGit(work, ["push", "origin", "main"]);
      assert.notEqual(push.code, 0);
      // The 413 goes out as soon as the limit is passed; git, still sending, sees it or, when the
      // connection closes first, only the cut.
      assert.match(push.stderr, /HTTP 413|remote end hung up/);
      assert.equal(await refs(path), accepted);
      await waitFor(async () => (await processesIn(path)).length === 0);
      assert.deepEqual(await incomingObjects(path), []);
      await runGit([`--git-dir=${path}`, "fsck", "--no-dangling"]);
    } finally {
      await limited.close();
    }
  });

  test("a client that disconnects during a clone stops git", async () => {
    const { path, url } = await seeded("alice", "big");
    const work = await clone(url);
    const tip = await commitFile(work, "big.bin", randomBytes(32 * 1024 * 1024), "Add a large file");
    await git(work, ["push", "--quiet", "origin", "main"]);
    await waitFor(async () => (await processesIn(path)).length === 0);

    const request = httpRequest(`${server.url}/alice/big.git/git-upload-pack`, {
      method: "POST",
      headers: { "content-type": "application/x-git-upload-pack-request" },
    });
    request.on("error", () => {});
    request.end(Buffer.concat([pktLine(`want ${tip}\n`), FLUSH_PACKET, pktLine("done\n")]));
    const [response] = (await once(request, "response")) as [IncomingMessage];
    assert.equal(response.statusCode, 200);
    await once(response, "readable");
    assert.ok((await processesIn(path)).length > 0, "git is still sending the pack");
    request.destroy();
    await waitFor(async () => (await processesIn(path)).length === 0);
  });

  test("a client that leaves before git answers stops git", async () => {
    const { path, initial } = await seeded("alice", "waiting");
    const request = httpRequest(`${server.url}/alice/waiting.git/git-upload-pack`, {
      method: "POST",
      headers: { "content-type": "application/x-git-upload-pack-request" },
    });
    request.on("error", () => {});
    // A negotiation that never ends: upload-pack waits for the rest.
    request.write(pktLine(`want ${initial}\n`));
    await waitFor(async () => (await processesIn(path)).length > 0);
    request.destroy();
    await waitFor(async () => (await processesIn(path)).length === 0);
  });

  test("a push cut off midway leaves the repository as it was", async () => {
    const { path, url, initial } = await seeded("alice", "cut");
    const work = await clone(url);
    const next = await commitFile(work, "data.bin", randomBytes(8 * 1024 * 1024), "Add data");
    const pack = await packObjects(work, next, initial);
    const before = await refs(path);

    const request = httpRequest(`${server.url}/alice/cut.git/git-receive-pack`, {
      method: "POST",
      headers: { "content-type": "application/x-git-receive-pack-request" },
    });
    request.on("error", () => {});
    request.write(
      Buffer.concat([
        pktLine(`${initial} ${next} refs/heads/main\0report-status\n`),
        FLUSH_PACKET,
        pack.subarray(0, pack.length / 2),
      ]),
    );
    // receive-pack has started taking the pack into its quarantine directory.
    await waitFor(async () => (await incomingObjects(path)).length > 0);
    request.destroy();
    await waitFor(async () => (await processesIn(path)).length === 0);

    assert.equal(await refs(path), before);
    assert.deepEqual(await incomingObjects(path), []);
    const object = await runGit([`--git-dir=${path}`, "cat-file", "-e", next], { acceptExitCodes: [1, 128] });
    assert.notEqual(object.exitCode, 0);
    await runGit([`--git-dir=${path}`, "fsck", "--no-dangling"]);
    await git(work, ["push", "--quiet", "origin", "main"]);
    assert.match(await refs(path), new RegExp(`^${next} refs/heads/main$`, "m"));
  });
});
